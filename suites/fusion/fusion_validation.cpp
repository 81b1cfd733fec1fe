#include "suites/fusion/fusion_validation.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

#include "kernels/bias_gelu/bias_gelu.hpp"
#include "kernels/bias_gelu/bias_gelu_reference.hpp"
#include "kernels/layernorm/layernorm.hpp"
#include "kernels/layernorm/layernorm_reference.hpp"
#include "kernels/softmax/softmax.hpp"
#include "kernels/softmax/softmax_reference.hpp"

namespace gpubench::fusion {

void RowCheck::add(std::uint64_t row, std::uint64_t col, double got, double ref, double scale,
                   const char* output) {
  ++m_checked;
  if (row != m_last_row) {
    ++m_rows;
    m_last_row = row;
  }
  const double err = std::fabs(got - ref) / (scale > 0 ? scale : 1.0);
  const bool ok = err <= m_tolerance;  // false for NaN
  if (ok) {
    if (err > m_worst) m_worst = err;
    return;
  }
  ++m_failed;
  if (std::isnan(err))
    m_worst = err;
  else if (err > m_worst)
    m_worst = err;
  if (m_first_failure.empty()) {
    char text[160];
    std::snprintf(text, sizeof text, "%s[%llu][%llu]: got %.6g, reference %.6g", output,
                  static_cast<unsigned long long>(row), static_cast<unsigned long long>(col), got,
                  ref);
    m_first_failure = text;
  }
}

std::string RowCheck::summary() const {
  char text[256];
  if (m_failed == 0) {
    std::snprintf(text, sizeof text, "%llu elements of %llu sampled rows within %.1e (worst %.1e)",
                  static_cast<unsigned long long>(m_checked),
                  static_cast<unsigned long long>(m_rows), m_tolerance, m_worst);
  } else {
    std::snprintf(text, sizeof text, "%llu of %llu elements outside %.1e, first %s",
                  static_cast<unsigned long long>(m_failed),
                  static_cast<unsigned long long>(m_checked), m_tolerance, m_first_failure.c_str());
  }
  return text;
}

double family_tolerance(Family f, Precision p) {
  switch (f) {
    case Family::bias_gelu:
      return kernels::bias_gelu::tolerance(p);
    case Family::layernorm:
      return kernels::layernorm::tolerance(p);
    case Family::softmax:
      return kernels::softmax::tolerance(p);
    case Family::gemm_bias_gelu:
      return kernels::bias_gelu::tolerance(p);
  }
  return 0.0;
}

void check_row(Family f, std::uint64_t row, std::uint64_t cols, const RowInputs& in,
               const RowOutputs& out, RowCheck& check) {
  std::vector<double> ref(cols);
  switch (f) {
    case Family::bias_gelu:
    case Family::gemm_bias_gelu:
      kernels::bias_gelu::reference(in.x, in.bias, ref.data(), 1, cols);
      for (std::uint64_t c = 0; c < cols; ++c)
        check.add(row, c, out.y[c], ref[c], std::fabs(ref[c]) + 1.0, "y");
      return;
    case Family::layernorm: {
      std::vector<double> s(cols);
      kernels::layernorm::reference(in.x, in.res, in.gamma, in.beta, s.data(), ref.data(), 1, cols);
      for (std::uint64_t c = 0; c < cols; ++c) {
        check.add(row, c, out.s[c], s[c], std::fabs(s[c]) + 1.0, "s");
        check.add(row, c, out.y[c], ref[c],
                  kernels::layernorm::y_scale(ref[c], in.gamma[c], in.beta[c]), "y");
      }
      return;
    }
    case Family::softmax: {
      double row_max = 0;
      double row_sum = 0;
      kernels::softmax::reference(in.x, ref.data(), &row_max, &row_sum, 1, cols);
      const double floor = 1.0 / static_cast<double>(cols);
      for (std::uint64_t c = 0; c < cols; ++c)
        check.add(row, c, out.y[c], ref[c], std::fabs(ref[c]) + floor, "y");
      return;
    }
  }
}

std::vector<std::uint64_t> validation_rows(std::uint64_t rows, std::uint64_t count) {
  std::vector<std::uint64_t> out;
  if (rows == 0) return out;
  if (count >= rows || count < 2) {
    const std::uint64_t n = count >= rows ? rows : 1;
    for (std::uint64_t r = 0; r < n; ++r) out.push_back(r);
    return out;
  }
  // Evenly spread, first and last included (edges are where indexing bugs show).
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::uint64_t r = k * (rows - 1) / (count - 1);
    if (out.empty() || out.back() != r) out.push_back(r);
  }
  return out;
}

}  // namespace gpubench::fusion
