// splitmix64 (Steele, Lea, Flood 2014), the one generator behind every seeded draw of the suite:
// sample pixels and labels (dataset.cpp), epoch orders (sample_order.cpp) and crop boxes
// (augment.cpp). Integer-only and fully specified, so a seed gives the same values on every
// machine and compiler (std:: distributions do not).
#pragma once

#include <cstdint>

namespace gpubench::dataloader {

inline constexpr std::uint64_t k_splitmix_gamma = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio

// splitmix64's output function: a bijective 64-bit mixer.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// One step: advances `state` by the gamma and returns the mixed value.
constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  state += k_splitmix_gamma;
  return mix64(state);
}

// Uniform integer in [0, n), n >= 1, unbiased: rejects the 2^64 mod n lowest draws so the rest
// cover every residue equally often (none for a power of two).
constexpr std::uint64_t uniform_below(std::uint64_t& state, std::uint64_t n) {
  const std::uint64_t threshold = (0 - n) % n;
  for (;;) {
    const std::uint64_t r = splitmix64(state);
    if (r >= threshold) return r % n;
  }
}

}  // namespace gpubench::dataloader
