// CPU reference of the collective checks (and the modulus choice, host-only).
#include <cstring>
#include <initializer_list>

#include "kernels/collective_check/collective_check.hpp"

namespace gpubench::kernels::collective_check {

int crafted_modulus(Dtype type, int ranks) {
  if (ranks < 1) return 0;
  for (int modulus : {4, 2}) {
    int largest = 0;
    for (int i = 0; i < modulus; ++i) {
      const int s = crafted_sum(ranks, static_cast<std::uint64_t>(i), modulus);
      if (s > largest) largest = s;
    }
    // Partial sums never exceed the final sum (all terms are >= 0), so every intermediate NCCL
    // produces, in any order, is exact as well.
    if (largest <= exact_integer_limit(type)) return modulus;
  }
  return 0;
}

namespace {
void store(void* data, std::uint64_t i, Dtype type, std::uint32_t bits) {
  if (type == Dtype::fp32) {
    static_cast<std::uint32_t*>(data)[i] = bits;
  } else {
    static_cast<std::uint16_t*>(data)[i] = static_cast<std::uint16_t>(bits);
  }
}
std::uint32_t load(const void* data, std::uint64_t i, Dtype type) {
  if (type == Dtype::fp32) return static_cast<const std::uint32_t*>(data)[i];
  return static_cast<const std::uint16_t*>(data)[i];
}
}  // namespace

void fill_input_host(void* data, std::uint64_t count, std::uint64_t first_index, Dtype type,
                     int rank, int modulus) {
  for (std::uint64_t i = 0; i < count; ++i) {
    store(data, i, type, encode_bits(type, crafted_value(rank, first_index + i, modulus)));
  }
}

std::uint64_t count_mismatches_host(const void* data, const CheckSpec& spec) {
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < spec.recv_count; ++i) {
    if (load(data, i, spec.type) != expected_bits(spec, i)) ++wrong;
  }
  return wrong;
}

}  // namespace gpubench::kernels::collective_check
