#include "kernels/copy/copy.hpp"

namespace gpubench::kernels::copy {

void fill_pattern_host(std::uint32_t* data, std::uint64_t words, std::uint32_t seed) {
  for (std::uint64_t i = 0; i < words; ++i) data[i] = pattern_word(seed, i);
}

}  // namespace gpubench::kernels::copy
