// CPU reference and tolerances for validating GPU results (CUDA-free), METHODOLOGY rule 7.
//
// The GPU result is checked on a sampled subset of output elements: for each sampled (row, column)
// the CPU computes the dot product in double from the very input values the GPU used (read back
// and decoded bit-exactly), so the only differences left are the GPU's accumulation and output
// rounding. An element passes when
//     |gpu - ref| <= tol x (|ref| + magnitude),   magnitude = sqrt(sum_p (a_p b_p)^2)
// `magnitude` is the natural size of a dot product of random inputs, so elements whose true value
// is near zero are not held to an impossible relative bound, while a wrong element (off by about
// `magnitude`) fails for every tolerance below ~0.5. int8 is exact (tol = 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "suites/common/dtype.hpp"

namespace gpubench::suite {

// Bit-exact decoders of the stored formats (IEEE binary16, bfloat16, OCP FP8 E4M3 with no
// infinities and 0x7F/0xFF = NaN).
double decode_fp16(std::uint16_t bits);
double decode_bf16(std::uint16_t bits);
double decode_fp8_e4m3(std::uint8_t bits);
// One element of `kind` at `bytes` (native little-endian layout) as a double.
double decode_element(ElementKind kind, const unsigned char* bytes);

// Round-to-nearest-even encoders, used by tests to build inputs.
std::uint16_t encode_bf16(float value);
std::uint16_t encode_fp16(float value);

struct DotReference {
  double value = 0.0;
  double magnitude = 0.0;  // sqrt(sum of squared products)
};

// sum_p a[p * a_stride] * b[p * b_stride] for p in [0, k), in double.
DotReference reference_dot(const double* a, std::size_t a_stride, const double* b,
                           std::size_t b_stride, std::size_t k);

// Relative tolerance per GEMM data type (see the header comment for what it is relative to).
double gemm_tolerance(DType dtype);

// FP8 (E4M3) GEMM with fast accumulation (CUBLASLT_MATMUL_DESC_FAST_ACCUM = 1): the bound grows
// with k. Model: the E4M3 products are exact; each Tensor Core MMA instruction covers
// k_fp8_mma_k = 32 of k, and without cuBLASLt's periodic promotion to FP32 its result is added
// to an accumulator that keeps about 14 significant bits (DeepSeek-V3 technical report, section
// 3.3.2: FP8 GEMM accumulation on Hopper "limited to retaining around 14 bits"; it reports a
// maximum relative error near 2% at K = 4096), truncated rather than rounded. Each of the
// n = ceil(k / 32) additions is off by less than 2^-13 of the running sum, and the running sums
// of random products stay near `magnitude`, so
//     tol(k) = max(gemm_tolerance(fp8_e4m3), n * 2^-13 + 2^-8)     (2^-8: the bf16 output)
// = 2e-2 up to k = 4096, 0.066 at k = 16384, 0.13 at k = 32768: still far below the ~0.5 of a
// wrong element. The unit test holds it to a simulation of this accumulation.
inline constexpr int k_fp8_mma_k = 32;
inline constexpr int k_fp8_fast_accum_significant_bits = 14;
double fp8_fast_accum_tolerance(std::int64_t k);

bool within_tolerance(double gpu, const DotReference& ref, double tolerance);

class ValidationReport {
 public:
  explicit ValidationReport(double tolerance) : m_tolerance(tolerance) {}
  void add(std::size_t row, std::size_t col, double gpu, const DotReference& ref);

  bool passed() const noexcept { return m_checked > 0 && m_failed == 0; }
  std::size_t checked() const noexcept { return m_checked; }
  std::size_t failed() const noexcept { return m_failed; }
  // Largest |gpu - ref| / (|ref| + magnitude) seen.
  double worst_error() const noexcept { return m_worst; }
  // "144 sampled elements within 1e-02 (worst 3.1e-03)" or
  // "3 of 144 sampled elements outside 1e-02, first at (5, 17): gpu 1.5 vs cpu 12.25".
  std::string summary() const;

 private:
  double m_tolerance;
  std::size_t m_checked = 0;
  std::size_t m_failed = 0;
  double m_worst = 0.0;
  std::string m_first_failure;
};

// `count` distinct indices in [0, extent), sorted, always including 0 and extent - 1 (edges are
// where tiling bugs show), the rest spread by a seeded generator. All of them when count >= extent.
std::vector<std::size_t> sample_indices(std::size_t extent, std::size_t count, std::uint64_t seed);

}  // namespace gpubench::suite
