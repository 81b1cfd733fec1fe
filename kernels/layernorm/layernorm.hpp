// Residual add + LayerNorm over a tokens x hidden matrix (the pre-LN transformer block's
// "x = x + f(x); h = LN(x)"):
//   s[r][c] = x[r][c] + res[r][c]                      (the new residual stream, an output)
//   y[r][c] = (s[r][c] - mean_r) * rstd_r * gamma[c] + beta[c],   rstd_r = 1 / sqrt(var_r + eps)
// with the biased variance var_r = mean_c (s - mean_r)^2 and eps = 1e-5. CUDA-free; kernels in
// layernorm_kernels.cu.
//
// Versions (v1 the unfused baseline, each later one adds one strategy)
//   v1  two kernels: s = x + res (elementwise), then LayerNorm of s, one block per row (two-pass)
//   v2  fuses the add into the LayerNorm: one kernel, one block per row, the row kept in shared
//       memory between the statistics and the normalisation
//   v3  v2 with 128-bit vector loads and the row held in registers (FP32) instead of shared
//       memory: a team of v3_row_threads() threads (a warp for rows up to 1024 columns, up to 512
//       threads for the widest rows) per row, at most 32 values per thread, so x and res are read
//       from memory once, as the byte count below assumes
//
// Bytes a perfect fused kernel must move (the effective-bandwidth numerator):
//   read x, res (2*R*C) + write s, y (2*R*C) + read gamma, beta (2*C) = (4*R*C + 2*C) * element
//   size
// v1 moves (5*R*C + 2*C) * element size: its LayerNorm kernel reads s back from memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/fusion_grid.hpp"
#include "kernels/common/precision.hpp"

struct CUstream_st;

namespace gpubench::kernels::layernorm {

enum class Version { v1, v2, v3 };

inline constexpr Version k_versions[] = {Version::v1, Version::v2, Version::v3};

inline constexpr double k_epsilon = 1e-5;

// v2 stages one row of FP32 in shared memory (48 KiB at 12288 columns; the launcher opts in to
// more than the default 48 KiB per block when the reduction scratch needs it).
inline constexpr std::uint64_t k_max_cols = 12288;

constexpr const char* to_string(Version v) {
  switch (v) {
    case Version::v1:
      return "v1";
    case Version::v2:
      return "v2";
    case Version::v3:
      return "v3";
  }
  return "v1";
}

constexpr int launches_per_call(Version v) {
  return v == Version::v1 ? 2 : 1;
}

constexpr std::uint64_t fused_bytes(std::uint64_t rows, std::uint64_t cols, std::size_t elem) {
  return (4 * rows * cols + 2 * cols) * elem;
}

constexpr std::uint64_t version_bytes(Version v, std::uint64_t rows, std::uint64_t cols,
                                      std::size_t elem) {
  return v == Version::v1 ? (5 * rows * cols + 2 * cols) * elem : fused_bytes(rows, cols, elem);
}

// v3: FP32 values of the row each thread keeps in registers, and the threads per row: the
// smallest power of two from 32 (a warp) to k_v3_max_block_threads whose registers hold the row.
inline constexpr int k_v3_values_per_thread = 32;
constexpr int v3_packs_per_thread(Precision p) {
  return k_v3_values_per_thread / elements_per_128_bits(p);
}

// v3's block: its team, or 256 threads (several teams, one row each) when the team is smaller.
// A 512-thread block may use 65,536 / 512 = 128 registers per thread (the per-block limit of
// every sm_80+ GPU). The fp32 kernel takes 122 on sm_90 unbounded, one allocation granule of 8
// below that, so it is compiled with __launch_bounds__(k_v3_max_block_threads): ptxas keeps it to
// 128 and rows of 8193-12288 columns cannot fail with cudaErrorLaunchOutOfResources after a
// compiler update (`nvcc -Xptxas -v`: no spills). fp16/bf16 take at most 94 and stay unbounded
// (layernorm_kernels.cu says why).
inline constexpr auto k_v3_min_block_threads = static_cast<unsigned>(device::k_block_threads);
inline constexpr unsigned k_v3_max_block_threads = 512;

constexpr unsigned v3_row_threads(std::uint64_t cols) {
  unsigned threads = 32;
  while (threads < k_v3_max_block_threads &&
         static_cast<std::uint64_t>(threads) * k_v3_values_per_thread < cols)
    threads *= 2;
  return threads;
}
constexpr unsigned v3_block_threads(std::uint64_t cols) {
  const unsigned team = v3_row_threads(cols);
  return team > k_v3_min_block_threads ? team : k_v3_min_block_threads;
}
// Every supported row fits in the registers of one team, in every precision (v3 never needs a
// fallback that re-reads the row), and no block exceeds the kernel's launch bound.
static_assert(std::uint64_t{k_v3_max_block_threads} * k_v3_values_per_thread >= k_max_cols);
static_assert(v3_block_threads(k_max_cols) <= k_v3_max_block_threads);

constexpr bool version_supports(Version v, Precision p, std::uint64_t cols) {
  if (cols == 0 || cols > k_max_cols) return false;
  return v != Version::v3 || cols % elements_per_128_bits(p) == 0;
}

// Validation: an element of y passes when |gpu - ref| <= tol * scale with
//   scale = |ref| + |ref - beta_c| + |gamma_c| + 1  (= |y| + |gamma_c| (|n| + 1) + 1, n the
//   normalised value), because an error d in n reaches y as |gamma_c| d; s uses |ref| + 1.
// Error budget of n:
//   fp32  mean and variance are sums of up to C/32 sequential FP32 terms per thread plus a tree:
//         (256 + 5) u = 1.6e-5 worst case at C = 8192, a few of those through rstd and (s - mean):
//         tol = 1e-4 (typical errors are ~1e-6).
//   fp16, bf16  v1 stores s in the storage type (error u |s|, i.e. u (|n| + 1) after scaling) and
//         every version rounds y on store (u |y|): below 2 u * scale; tol = 4 u.
constexpr double tolerance(Precision p) {
  return p == Precision::fp32 ? 1e-4 : 4.0 * unit_roundoff(p);
}

// x, res, s, y: device pointers to rows*cols elements of `precision`; gamma, beta: cols elements.
// s and y must not alias the inputs. Asynchronous on `stream`; returns the cudaError_t as an int,
// cudaErrorInvalidValue (1) when the version does not support the shape.
int launch(Version v, Precision precision, const void* x, const void* res, const void* gamma,
           const void* beta, void* s, void* y, std::uint64_t rows, std::uint64_t cols,
           CUstream_st* stream);

}  // namespace gpubench::kernels::layernorm
