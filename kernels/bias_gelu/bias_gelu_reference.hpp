// CPU reference of bias + GELU (header-only templates, CUDA-free). One reference, shared by the
// tests, the GPU validation (T = double, from the decoded stored inputs) and the suite's host
// variants (T = float, timed): the unfused passes and the fused single pass are the same
// arithmetic in a different order over memory.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "kernels/bias_gelu/bias_gelu.hpp"

namespace gpubench::kernels::bias_gelu {

// sqrt(2 / pi) and the cubic coefficient of the tanh form (Hendrycks & Gimpel 2016).
inline constexpr double k_sqrt_2_over_pi = 0.7978845608028654;
inline constexpr double k_gelu_cubic = 0.044715;
// Largest |gelu_tanh(x) - gelu_erf(x)| over the reals: 4.73e-4 near x = 2.70 (a dense scan; the
// difference vanishes for |x| -> infinity). Tests hold the tanh form to it.
inline constexpr double k_tanh_form_max_abs_error = 4.8e-4;

// GELU, tanh form: 0.5 x (1 + tanh(z)), z = sqrt(2/pi) (x + 0.044715 x^3), evaluated as the
// identical x / (1 + exp(-2 z)) (because 0.5 (1 + tanh z) = 1 / (1 + e^-2z)): one exp instead of a
// tanh, and no cancellation in 1 + tanh(z) for negative z. The kernels compute the same expression
// in FP32; gelu_tanh_textbook() is the published formula the tests hold it to.
template <class T>
inline T gelu_tanh(T x) {
  const T z = static_cast<T>(k_sqrt_2_over_pi) * (x + static_cast<T>(k_gelu_cubic) * x * x * x);
  return x / (static_cast<T>(1) + std::exp(static_cast<T>(-2) * z));
}

inline double gelu_tanh_textbook(double x) {
  const double z = k_sqrt_2_over_pi * (x + k_gelu_cubic * x * x * x);
  return 0.5 * x * (1.0 + std::tanh(z));
}

// GELU, exact form: x Phi(x) = 0.5 x (1 + erf(x / sqrt 2)).
inline double gelu_erf(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

// A CPU model of v3's fast GELU (bias_gelu.hpp): the kernel's FP32 steps, with __expf's result
// scaled by (1 + exp_error) and __fdividef's by (1 + div_error), so tests can push both to the
// documented worst cases, (2 + floor(1.173 |a|)) x 2^-23 and 2 x 2^-23 relative, either way.
inline float gelu_fast_model(float x, double exp_error, double div_error) {
  const float a = x * (k_fast_c0 + k_fast_c1 * (x * x));
  const float numerator = a > k_fast_exp_cap ? 0.0f : x;
  const float capped = std::fmin(a, k_fast_exp_cap);
  const float e = static_cast<float>(static_cast<double>(std::exp(capped)) * (1.0 + exp_error));
  const float d = 1.0f + e;
  return static_cast<float>(static_cast<double>(numerator / d) * (1.0 + div_error));
}

// The documented relative error bound of __expf(a) (2 + floor(|1.173 a|) ulp, 1 ulp <= 2^-23
// relative).
inline double fast_exp_error_bound(float a) {
  return (2.0 + std::floor(std::fabs(1.173 * static_cast<double>(a)))) * std::ldexp(1.0, -23);
}

// Unfused pass 1 over rows [row_begin, row_end): y = x + b.
template <class T>
void bias_pass(const T* x, const T* bias, T* y, std::uint64_t row_begin, std::uint64_t row_end,
               std::uint64_t cols) {
  for (std::uint64_t r = row_begin; r < row_end; ++r) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    for (std::uint64_t c = 0; c < cols; ++c) yr[c] = xr[c] + bias[c];
  }
}

// Unfused pass 2: y = gelu(y) in place.
template <class T>
void gelu_pass(T* y, std::uint64_t row_begin, std::uint64_t row_end, std::uint64_t cols) {
  for (std::uint64_t i = row_begin * cols; i < row_end * cols; ++i) y[i] = gelu_tanh(y[i]);
}

// Fused single pass: y = gelu(x + b).
template <class T>
void fused_pass(const T* x, const T* bias, T* y, std::uint64_t row_begin, std::uint64_t row_end,
                std::uint64_t cols) {
  for (std::uint64_t r = row_begin; r < row_end; ++r) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    for (std::uint64_t c = 0; c < cols; ++c) yr[c] = gelu_tanh(xr[c] + bias[c]);
  }
}

// The reference: the two unfused passes over the whole matrix.
template <class T>
void reference(const T* x, const T* bias, T* y, std::uint64_t rows, std::uint64_t cols) {
  bias_pass(x, bias, y, 0, rows, cols);
  gelu_pass(y, 0, rows, cols);
}

}  // namespace gpubench::kernels::bias_gelu
