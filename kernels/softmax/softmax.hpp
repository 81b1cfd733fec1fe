// Softmax over each row of a tokens x hidden (or tokens x vocabulary) matrix:
//   y[r][c] = exp(x[r][c] - max_r) / sum_c' exp(x[r][c'] - max_r)
// (subtracting the row maximum keeps exp from overflowing; it cancels in the ratio). CUDA-free;
// kernels in softmax_kernels.cu.
//
// Versions (v1 the unfused baseline, each later one adds one strategy)
//   v1  three kernels, three passes over x: row maxima, row sums of exp(x - max), normalise
//   v2  online softmax (Milakov & Gimelshein 2018): one kernel, a warp per row; the maximum and the
//       sum are found together in one read (the sum is rescaled whenever the maximum grows), then
//       the row is read again to normalise it (from DRAM at the large sizes, see below)
//
// Bytes a perfect fused kernel must move: read x + write y = 2*R*C * element size.
// v1 moves 4*R*C * element size (x three times, y once) + 20*R bytes of FP32 row statistics
// (maxima: written, read by the sum kernel and by the normalisation, 12 R; sums: written and
// read, 8 R).
// v2 moves 3*R*C * element size: x twice (at the large sizes a warp's row is evicted from L1 and
// L2 before the second read comes), y once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/fusion_grid.hpp"
#include "kernels/common/precision.hpp"

struct CUstream_st;

namespace gpubench::kernels::softmax {

enum class Version { v1, v2 };

inline constexpr Version k_versions[] = {Version::v1, Version::v2};

constexpr const char* to_string(Version v) {
  return v == Version::v1 ? "v1" : "v2";
}

constexpr int launches_per_call(Version v) {
  return v == Version::v1 ? 3 : 1;
}

constexpr std::uint64_t fused_bytes(std::uint64_t rows, std::uint64_t cols, std::size_t elem) {
  return 2 * rows * cols * elem;
}

constexpr std::uint64_t version_bytes(Version v, std::uint64_t rows, std::uint64_t cols,
                                      std::size_t elem) {
  return v == Version::v1 ? 4 * rows * cols * elem + 20 * rows : 3 * rows * cols * elem;
}

// v1's normalisation indexes columns in 32 bits (device::k_max_cols_2d, 2^31 - 1:
// fusion_grid.hpp).
constexpr bool version_supports(Version v, Precision, std::uint64_t cols) {
  return cols > 0 && (v != Version::v1 || cols <= device::k_max_cols_2d);
}

// Validation: an element passes when |gpu - ref| <= tol * (|ref| + 1/C): 1/C is the mean output of
// a row, the scale below which fp16 results are subnormal and only absolutely accurate.
//   fp32  expf is within 2 ulp; a row sum of positive terms accumulates at most
//         (C/32 + 5) u = 1.6e-5 relative error at C = 8192 (one warp per row, v2): tol = 5e-5.
//   fp16, bf16  the output store rounds by u (the statistics are FP32): tol = 4 u.
constexpr double tolerance(Precision p) {
  return p == Precision::fp32 ? 5e-5 : 4.0 * unit_roundoff(p);
}

// x, y: device pointers to rows*cols elements of `precision`; scratch: 2*rows floats of device
// memory for v1's row statistics (unused by v2, may be null there). Asynchronous on `stream`;
// returns the cudaError_t as an int.
int launch(Version v, Precision precision, const void* x, void* y, float* scratch,
           std::uint64_t rows, std::uint64_t cols, CUstream_st* stream);

}  // namespace gpubench::kernels::softmax
