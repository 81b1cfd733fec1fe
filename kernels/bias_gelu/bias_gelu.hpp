// bias + GELU (tanh form) over a tokens x hidden activation matrix: y[r][c] = gelu(x[r][c] + b[c]).
// CUDA-free: the suite, the tests and the CPU reference include it; the kernels live in
// bias_gelu_kernels.cu.
//
// Versions (llm.c's dev/cuda pattern: v1 is the unfused baseline, each later one adds one strategy)
//   v1  two kernels: y = x + b (rounded to the storage type), then y = gelu(y) in place
//   v2  fuses the bias into GELU: one elementwise kernel, one read of x, one write of y
//   v3  v2 with 128-bit vector loads and stores (4 floats or 8 halves per access) and cheap
//       per-element math: the same x / (1 + exp(-2z)) with the fast intrinsics __expf and
//       __fdividef (about 12 FP32 PTX instructions per element, 2 of them MUFU, plus the storage
//       conversion, instead of ~27 with expf and an IEEE division, which made bf16 ALU-bound
//       rather than DRAM-bound on B200)
// v1 and v2 move one scalar element (2 or 4 bytes) per thread per access, as a naive elementwise
// kernel does, and find an element's column from a 2D grid's loop counters rather than a 64-bit
// % per element (fusion_grid.hpp). So v2 / v1 is what fusion saves (bytes and a launch), while v3
// / v2 is what 16-byte accesses (8x or 4x the bytes in flight per thread: memory-level
// parallelism) and the fast math add; v3 / v1 is both, not fusion alone.
//
// Bytes a perfect fused kernel must move (the effective-bandwidth numerator):
//   read x (R*C) + read b (C) + write y (R*C)  =  (2*R*C + C) * element size
// v1 moves (4*R*C + C) * element size: its first kernel writes y and its second reads it back.
//
// Layout: row-major, C contiguous; bias indexed by column. Storage fp32, fp16 or bf16, math in
// FP32.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/fusion_grid.hpp"
#include "kernels/common/precision.hpp"

struct CUstream_st;  // cudaStream_t without including CUDA

namespace gpubench::kernels::bias_gelu {

enum class Version { v1, v2, v3 };

inline constexpr Version k_versions[] = {Version::v1, Version::v2, Version::v3};

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

// Kernel launches one call of the version issues.
constexpr int launches_per_call(Version v) {
  return v == Version::v1 ? 2 : 1;
}

// Bytes a perfect fused kernel must move (see the header comment).
constexpr std::uint64_t fused_bytes(std::uint64_t rows, std::uint64_t cols, std::size_t elem) {
  return (2 * rows * cols + cols) * elem;
}

// Bytes the version moves through DRAM when nothing stays in cache between its kernels.
constexpr std::uint64_t version_bytes(Version v, std::uint64_t rows, std::uint64_t cols,
                                      std::size_t elem) {
  return v == Version::v1 ? (4 * rows * cols + cols) * elem : fused_bytes(rows, cols, elem);
}

// Whether the version can run this shape: v3 needs whole 128-bit vectors per row; v1 and v2 index
// columns in 32 bits (device::k_max_cols_2d, 2^31 - 1: fusion_grid.hpp).
constexpr bool version_supports(Version v, Precision p, std::uint64_t cols) {
  if (v == Version::v3) return cols % elements_per_128_bits(p) == 0;
  return cols <= device::k_max_cols_2d;
}

// v3's GELU, per element (FP32):
//   a = x * (k_fast_c0 + k_fast_c1 * x * x)                            (= -2 z)
//   y = a > k_fast_exp_cap ? 0 : __fdividef(x, 1 + __expf(a))
// (the kernel divides 0 by 1 + e^cap rather than branching). Past the cap gelu(x) is below 2e-34
// in magnitude, and 1 + e^a stays below 2^126, where __fdividef is documented to return 0.
// gelu_fast_model() in bias_gelu_reference.hpp evaluates the same steps on the CPU with the
// intrinsics' documented worst errors (CUDA Programming Guide, intrinsic functions: __expf 2 +
// floor(|1.173 a|) ulp, __fdividef 2 ulp); the tests hold it to tolerance() for every precision.
inline constexpr float k_fast_c0 = static_cast<float>(-2.0 * 0.7978845608028654);
inline constexpr float k_fast_c1 = static_cast<float>(-2.0 * 0.7978845608028654 * 0.044715);
inline constexpr float k_fast_exp_cap = 80.0f;

// Relative validation tolerance: an element passes when |gpu - ref| <= tol * (|ref| + 1), ref in
// double from the stored inputs (inputs are N(0,1), so "+1" is the scale of the data near y = 0).
// Error budget:
//   fp32  v1/v2: expf is within 2 ulp, the division is correctly rounded, plus about 5 roundings
//         of FP32 arithmetic: < 10 u = 6e-7. v3: __expf's error grows with |a|, but its effect on
//         y is |y| e^a / (1 + e^a) times it, largest near x = -1.5 (the model's worst is ~1e-6).
//         1e-5 is METHODOLOGY's FP32 figure and leaves room for other math libraries.
//   fp16, bf16  the output store rounds by u; v1 also rounds x + b to the storage type, and GELU's
//         slope is at most 1.13, so the error stays below 2.2 u (|ref| + 1); tol = 4 u
//         (fp16 2e-3, bf16 1.6e-2).
constexpr double tolerance(Precision p) {
  return p == Precision::fp32 ? 1e-5 : 4.0 * unit_roundoff(p);
}

// --- device launchers (bias_gelu_kernels.cu; only built with CUDA) ------------------------------
// x, y: device pointers to rows*cols elements of `precision` (y may equal x); bias: cols elements.
// Asynchronous on `stream`. Returns the cudaError_t as an int (0 = success);
// cudaErrorInvalidValue (1) when the version does not support the shape or a pointer is misaligned.
int launch(Version v, Precision precision, const void* x, const void* bias, void* y,
           std::uint64_t rows, std::uint64_t cols, CUstream_st* stream);

}  // namespace gpubench::kernels::bias_gelu
