// Storage precision of the fusion kernels' activations (CUDA-free). Every kernel computes in FP32
// and converts on load and store; only what sits in memory changes with the precision.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace gpubench::kernels {

enum class Precision { fp32, fp16, bf16 };

inline constexpr Precision k_all_precisions[] = {Precision::fp32, Precision::fp16, Precision::bf16};

// "fp32", "fp16", "bf16" (the value of `dtype:` in benchmark names).
constexpr const char* to_string(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::fp16:
      return "fp16";
    case Precision::bf16:
      return "bf16";
  }
  return "fp32";
}

constexpr std::optional<Precision> parse_precision(std::string_view text) {
  for (Precision p : k_all_precisions) {
    if (text == to_string(p)) return p;
  }
  return std::nullopt;
}

constexpr std::size_t element_bytes(Precision p) {
  return p == Precision::fp32 ? 4 : 2;
}

// Elements in one 128-bit (16-byte) vector load: 4 floats or 8 halves.
constexpr std::size_t elements_per_128_bits(Precision p) {
  return 16 / element_bytes(p);
}

// Unit roundoff u of the storage format (round to nearest: half an ulp of 1, 2^-p for p
// significand bits): fp32 2^-24, fp16 2^-11, bf16 2^-8. A correctly rounded store adds a relative
// error of at most u; the tolerances of the families are stated as multiples of it.
constexpr double unit_roundoff(Precision p) {
  switch (p) {
    case Precision::fp32:
      return 5.9604644775390625e-08;  // 2^-24
    case Precision::fp16:
      return 4.8828125e-04;  // 2^-11
    case Precision::bf16:
      return 3.90625e-03;  // 2^-8
  }
  return 5.9604644775390625e-08;
}

}  // namespace gpubench::kernels
