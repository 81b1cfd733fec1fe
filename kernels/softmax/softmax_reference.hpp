// CPU reference of row softmax (header-only templates, CUDA-free), shared by the tests, the GPU
// validation (T = double) and the suite's host variants (T = float, timed). The unfused passes
// write their row statistics to arrays the way v1's kernels do; the fused pass is the online
// softmax, one read per row for the statistics.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace gpubench::kernels::softmax {

// Pass 1 over rows [row_begin, row_end): row maxima.
template <class T>
void max_pass(const T* x, T* row_max, std::uint64_t row_begin, std::uint64_t row_end,
              std::uint64_t cols) {
  for (std::uint64_t r = row_begin; r < row_end; ++r) {
    T m = -std::numeric_limits<T>::infinity();
    for (std::uint64_t c = 0; c < cols; ++c) m = std::max(m, x[r * cols + c]);
    row_max[r] = m;
  }
}

// Pass 2: row sums of exp(x - max).
template <class T>
void sum_pass(const T* x, const T* row_max, T* row_sum, std::uint64_t row_begin,
              std::uint64_t row_end, std::uint64_t cols) {
  for (std::uint64_t r = row_begin; r < row_end; ++r) {
    T s = 0;
    for (std::uint64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - row_max[r]);
    row_sum[r] = s;
  }
}

// Pass 3: y = exp(x - max) / sum.
template <class T>
void normalise_pass(const T* x, const T* row_max, const T* row_sum, T* y, std::uint64_t row_begin,
                    std::uint64_t row_end, std::uint64_t cols) {
  for (std::uint64_t r = row_begin; r < row_end; ++r) {
    const T inv = static_cast<T>(1) / row_sum[r];
    for (std::uint64_t c = 0; c < cols; ++c)
      y[r * cols + c] = std::exp(x[r * cols + c] - row_max[r]) * inv;
  }
}

// Online statistics of one row: the maximum and the sum of exp(x - max) in one read.
template <class T>
void online_stats(const T* xr, std::uint64_t cols, T& max_out, T& sum_out) {
  T m = -std::numeric_limits<T>::infinity();
  T s = 0;
  for (std::uint64_t c = 0; c < cols; ++c) {
    const T v = xr[c];
    if (v > m) {
      s = s * std::exp(m - v) + static_cast<T>(1);  // rescale the sum to the new maximum
      m = v;
    } else {
      s += std::exp(v - m);
    }
  }
  max_out = m;
  sum_out = s;
}

// Fused: per row, online statistics then the normalisation while the row is in cache.
template <class T>
void fused_pass(const T* x, T* y, std::uint64_t row_begin, std::uint64_t row_end,
                std::uint64_t cols) {
  for (std::uint64_t r = row_begin; r < row_end; ++r) {
    T m = 0;
    T s = 0;
    online_stats(x + r * cols, cols, m, s);
    const T inv = static_cast<T>(1) / s;
    for (std::uint64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) * inv;
  }
}

// The reference: the three unfused passes; row_max and row_sum hold `rows` values each.
template <class T>
void reference(const T* x, T* y, T* row_max, T* row_sum, std::uint64_t rows, std::uint64_t cols) {
  max_pass(x, row_max, 0, rows, cols);
  sum_pass(x, row_max, row_sum, 0, rows, cols);
  normalise_pass(x, row_max, row_sum, y, 0, rows, cols);
}

}  // namespace gpubench::kernels::softmax
