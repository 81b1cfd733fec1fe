#include "kernels/copy/copy.hpp"

#include <algorithm>

namespace gpubench::kernels::copy {

void fill_pattern_host(std::uint32_t* data, std::uint64_t words, std::uint32_t seed) {
  for (std::uint64_t i = 0; i < words; ++i) data[i] = pattern_word(seed, i);
}

namespace {
// ceil(words / words_per_block) blocks, clamped to [1, 4 per SM].
int grid_for(std::size_t words, std::size_t words_per_block, int sm_count) {
  const std::size_t wanted = (words + words_per_block - 1) / words_per_block;
  const std::size_t most =
      static_cast<std::size_t>(std::max(1, sm_count)) * k_copy_max_blocks_per_sm;
  return static_cast<int>(std::clamp<std::size_t>(wanted, 1, most));
}
}  // namespace

int sm_copy_grid(std::size_t bytes, int sm_count) {
  constexpr std::size_t words_per_block =
      std::size_t{k_copy_threads_per_block} * k_copy_words_per_thread;
  return grid_for(bytes / 16, words_per_block, sm_count);
}

int sm_copy_bidir_grid(std::size_t bytes, int sm_count) {
  // Half of a block's threads per direction.
  constexpr std::size_t words_per_block =
      std::size_t{k_copy_threads_per_block} / 2 * k_copy_words_per_thread;
  return grid_for(bytes / 16, words_per_block, sm_count);
}

}  // namespace gpubench::kernels::copy
