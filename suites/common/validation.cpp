#include "suites/common/validation.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <set>

namespace gpubench::suite {

double decode_fp16(std::uint16_t bits) {
  const int sign = (bits >> 15) & 1;
  const int exponent = (bits >> 10) & 0x1F;
  const int mantissa = bits & 0x3FF;
  double value = 0.0;
  if (exponent == 0) {
    value = std::ldexp(mantissa, -24);  // subnormal: m / 2^10 x 2^-14
  } else if (exponent == 0x1F) {
    value = mantissa ? std::numeric_limits<double>::quiet_NaN()
                     : std::numeric_limits<double>::infinity();
  } else {
    value = std::ldexp(1024 + mantissa, exponent - 25);  // (1 + m/2^10) x 2^(e-15)
  }
  return sign ? -value : value;
}

double decode_bf16(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  return static_cast<double>(std::bit_cast<float>(wide));
}

double decode_fp8_e4m3(std::uint8_t bits) {
  const int sign = (bits >> 7) & 1;
  const int exponent = (bits >> 3) & 0xF;
  const int mantissa = bits & 0x7;
  double value = 0.0;
  if (exponent == 0xF && mantissa == 0x7) {
    value = std::numeric_limits<double>::quiet_NaN();
  } else if (exponent == 0) {
    value = std::ldexp(mantissa, -9);  // subnormal: m / 8 x 2^-6
  } else {
    value = std::ldexp(8 + mantissa, exponent - 10);  // (1 + m/8) x 2^(e-7)
  }
  return sign ? -value : value;
}

double decode_element(ElementKind kind, const unsigned char* bytes) {
  switch (kind) {
    case ElementKind::f64: {
      double v;
      std::memcpy(&v, bytes, sizeof v);
      return v;
    }
    case ElementKind::f32: {
      float v;
      std::memcpy(&v, bytes, sizeof v);
      return v;
    }
    case ElementKind::f16: {
      std::uint16_t v;
      std::memcpy(&v, bytes, sizeof v);
      return decode_fp16(v);
    }
    case ElementKind::bf16: {
      std::uint16_t v;
      std::memcpy(&v, bytes, sizeof v);
      return decode_bf16(v);
    }
    case ElementKind::fp8_e4m3:
      return decode_fp8_e4m3(bytes[0]);
    case ElementKind::i8:
      return static_cast<double>(static_cast<std::int8_t>(bytes[0]));
    case ElementKind::i32: {
      std::int32_t v;
      std::memcpy(&v, bytes, sizeof v);
      return v;
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::uint16_t encode_bf16(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if (std::isnan(value)) return 0x7FC0;
  bits += 0x7FFF + ((bits >> 16) & 1);  // round to nearest, ties to even
  return static_cast<std::uint16_t>(bits >> 16);
}

std::uint16_t encode_fp16(float value) {
  // Through double arithmetic: exact for the normal and subnormal range, saturates to infinity.
  if (std::isnan(value)) return 0x7E00;
  const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  double a = std::fabs(static_cast<double>(value));
  if (a >= 65520.0) return sign | 0x7C00;
  int exponent = 0;
  if (a < std::ldexp(1.0, -14)) {
    const double m = std::nearbyint(a / std::ldexp(1.0, -24));  // subnormal units
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(m));
  }
  std::frexp(a, &exponent);                          // a = f x 2^exponent, f in [0.5, 1)
  const int e = exponent - 1;                        // a = (1.x) x 2^e
  double m = std::nearbyint(std::ldexp(a, 10 - e));  // 1024..2048
  int biased = e + 15;
  if (m >= 2048.0) {
    m /= 2.0;
    ++biased;
  }
  if (biased >= 31) return sign | 0x7C00;
  return static_cast<std::uint16_t>(sign | (biased << 10) | (static_cast<int>(m) - 1024));
}

DotReference reference_dot(const double* a, std::size_t a_stride, const double* b,
                           std::size_t b_stride, std::size_t k) {
  DotReference ref;
  double squares = 0.0;
  for (std::size_t p = 0; p < k; ++p) {
    const double product = a[p * a_stride] * b[p * b_stride];
    ref.value += product;
    squares += product * product;
  }
  ref.magnitude = std::sqrt(squares);
  return ref;
}

double gemm_tolerance(DType dtype) {
  switch (dtype) {
    case DType::fp64:
      return 1e-10;
    case DType::fp32:
      // Sequential FP32 accumulation over k = 16384 random products leaves errors near 1e-5 of
      // the magnitude (unit roundoff 6e-8 x ~0.4 sqrt(k)); a wrong element is off by ~1.
      return 5e-5;
    case DType::tf32:
    case DType::fp16:
    case DType::bf16:
      return 1e-2;
    case DType::fp8_e4m3:
      // FP8 inputs are exact here; the slack is for the bf16 output and the FP8 accumulation with
      // periodic promotion to FP32 (fast accumulation: fp8_fast_accum_tolerance(k)).
      return 2e-2;
    case DType::int8:
      return 0.0;
  }
  return 1e-2;
}

double fp8_fast_accum_tolerance(std::int64_t k) {
  const std::int64_t additions = (std::max<std::int64_t>(k, 1) + k_fp8_mma_k - 1) / k_fp8_mma_k;
  const double accumulator_step = std::ldexp(1.0, 1 - k_fp8_fast_accum_significant_bits);
  const double bf16_output = std::ldexp(1.0, -8);
  return std::max(gemm_tolerance(DType::fp8_e4m3),
                  static_cast<double>(additions) * accumulator_step + bf16_output);
}

bool within_tolerance(double gpu, const DotReference& ref, double tolerance) {
  if (!std::isfinite(gpu)) return false;
  return std::fabs(gpu - ref.value) <= tolerance * (std::fabs(ref.value) + ref.magnitude);
}

void ValidationReport::add(std::size_t row, std::size_t col, double gpu, const DotReference& ref) {
  ++m_checked;
  const double scale = std::fabs(ref.value) + ref.magnitude;
  const double error = std::isfinite(gpu) ? std::fabs(gpu - ref.value) / (scale > 0 ? scale : 1.0)
                                          : std::numeric_limits<double>::infinity();
  m_worst = std::max(m_worst, error);
  if (!within_tolerance(gpu, ref, m_tolerance)) {
    if (m_failed == 0) {
      char text[160];
      std::snprintf(text, sizeof text, "first at (%zu, %zu): gpu %.9g vs cpu %.9g", row, col, gpu,
                    ref.value);
      m_first_failure = text;
    }
    ++m_failed;
  }
}

std::string ValidationReport::summary() const {
  char text[256];
  if (m_checked == 0) return "no elements were checked";
  if (m_failed == 0) {
    std::snprintf(text, sizeof text, "%zu sampled elements within %.0e (worst %.2e)", m_checked,
                  m_tolerance, m_worst);
  } else {
    std::snprintf(text, sizeof text, "%zu of %zu sampled elements outside %.0e, %s", m_failed,
                  m_checked, m_tolerance, m_first_failure.c_str());
  }
  return text;
}

std::vector<std::size_t> sample_indices(std::size_t extent, std::size_t count, std::uint64_t seed) {
  std::vector<std::size_t> out;
  if (extent == 0 || count == 0) return out;
  if (count >= extent) {
    for (std::size_t i = 0; i < extent; ++i) out.push_back(i);
    return out;
  }
  std::set<std::size_t> chosen{0, extent - 1};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, extent - 1);
  while (chosen.size() < count) chosen.insert(pick(rng));
  return {chosen.begin(), chosen.end()};
}

}  // namespace gpubench::suite
