// CPU reference of residual add + LayerNorm (header-only templates, CUDA-free), shared by the
// tests, the GPU validation (T = double) and the suite's host variants (T = float, timed).
// Statistics accumulate in double whatever T is.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/layernorm/layernorm.hpp"

namespace gpubench::kernels::layernorm {

// Unfused pass 1 over rows [row_begin, row_end): s = x + res.
template <class T>
void add_pass(const T* x, const T* res, T* s, std::uint64_t row_begin, std::uint64_t row_end,
              std::uint64_t cols) {
  for (std::uint64_t i = row_begin * cols; i < row_end * cols; ++i) s[i] = x[i] + res[i];
}

// LayerNorm of one row that is already summed: two passes for mean and variance, then one to
// normalise.
template <class T>
void normalise_row(const T* s, const T* gamma, const T* beta, T* y, std::uint64_t cols) {
  double sum = 0;
  for (std::uint64_t c = 0; c < cols; ++c) sum += static_cast<double>(s[c]);
  const double mean = sum / static_cast<double>(cols);
  double sq = 0;
  for (std::uint64_t c = 0; c < cols; ++c) {
    const double d = static_cast<double>(s[c]) - mean;
    sq += d * d;
  }
  const double rstd = 1.0 / std::sqrt(sq / static_cast<double>(cols) + k_epsilon);
  for (std::uint64_t c = 0; c < cols; ++c) {
    y[c] =
        static_cast<T>((static_cast<double>(s[c]) - mean) * rstd * static_cast<double>(gamma[c]) +
                       static_cast<double>(beta[c]));
  }
}

// Unfused pass 2: y = LayerNorm(s), row by row.
template <class T>
void layernorm_pass(const T* s, const T* gamma, const T* beta, T* y, std::uint64_t row_begin,
                    std::uint64_t row_end, std::uint64_t cols) {
  for (std::uint64_t r = row_begin; r < row_end; ++r)
    normalise_row(s + r * cols, gamma, beta, y + r * cols, cols);
}

// Fused: per row, add and normalise while the row is still in cache (one pass over memory).
template <class T>
void fused_pass(const T* x, const T* res, const T* gamma, const T* beta, T* s, T* y,
                std::uint64_t row_begin, std::uint64_t row_end, std::uint64_t cols) {
  for (std::uint64_t r = row_begin; r < row_end; ++r) {
    const std::uint64_t o = r * cols;
    for (std::uint64_t c = 0; c < cols; ++c) s[o + c] = x[o + c] + res[o + c];
    normalise_row(s + o, gamma, beta, y + o, cols);
  }
}

// The reference: the two unfused passes over the whole matrix.
template <class T>
void reference(const T* x, const T* res, const T* gamma, const T* beta, T* s, T* y,
               std::uint64_t rows, std::uint64_t cols) {
  add_pass(x, res, s, 0, rows, cols);
  layernorm_pass(s, gamma, beta, y, 0, rows, cols);
}

// The scale an error in y is measured against (see tolerance() in layernorm.hpp).
inline double y_scale(double ref, double gamma, double beta) {
  return std::fabs(ref) + std::fabs(ref - beta) + std::fabs(gamma) + 1.0;
}

}  // namespace gpubench::kernels::layernorm
