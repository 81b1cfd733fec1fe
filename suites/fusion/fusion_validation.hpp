// Validation of one row of a fusion family's output against the CPU reference (CUDA-free), used by
// the host variants, the device variants and the tests. The reference runs in double on the very
// input values the implementation used (device inputs read back and decoded bit-exactly), so what
// is left is the implementation's arithmetic and its output rounding; each family's tolerance and
// error scale are justified in kernels/<family>/<family>.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/common/precision.hpp"
#include "suites/fusion/fusion_cases.hpp"

namespace gpubench::fusion {

class RowCheck {
 public:
  explicit RowCheck(double tolerance) : m_tolerance(tolerance) {}

  // Passes when |got - ref| <= tolerance * scale (NaN never passes).
  void add(std::uint64_t row, std::uint64_t col, double got, double ref, double scale,
           const char* output);

  bool passed() const noexcept { return m_checked > 0 && m_failed == 0; }
  std::uint64_t checked() const noexcept { return m_checked; }
  std::uint64_t failed() const noexcept { return m_failed; }
  double tolerance() const noexcept { return m_tolerance; }
  // Largest |got - ref| / scale seen.
  double worst() const noexcept { return m_worst; }
  // "8192 elements of 8 sampled rows within 1.6e-02 (worst 2.1e-03)" or
  // "5 of 8192 elements outside 1.6e-02, first y[3][17]: got 1.5, reference 0.25".
  std::string summary() const;

 private:
  double m_tolerance;
  std::uint64_t m_checked = 0;
  std::uint64_t m_failed = 0;
  std::uint64_t m_rows = 0;
  std::uint64_t m_last_row = ~std::uint64_t{0};
  double m_worst = 0.0;
  std::string m_first_failure;
};

// One row's inputs (cols values each; the per-column vectors are whole).
struct RowInputs {
  const double* x = nullptr;
  const double* res = nullptr;    // layernorm: the residual
  const double* bias = nullptr;   // bias_gelu
  const double* gamma = nullptr;  // layernorm
  const double* beta = nullptr;   // layernorm
};

// One row's outputs: y always; s (the residual sum) for layernorm.
struct RowOutputs {
  const double* y = nullptr;
  const double* s = nullptr;
};

// The family's tolerance for the storage precision.
double family_tolerance(Family f, Precision p);

// Computes the reference of row `row` (cols values) and adds every element to `check`.
// gemm_bias_gelu is validated by its own runner (a dot product per element).
void check_row(Family f, std::uint64_t row, std::uint64_t cols, const RowInputs& in,
               const RowOutputs& out, RowCheck& check);

// Rows validated: up to `count` distinct rows including the first and the last, spread evenly.
std::vector<std::uint64_t> validation_rows(std::uint64_t rows, std::uint64_t count = 8);

}  // namespace gpubench::fusion
