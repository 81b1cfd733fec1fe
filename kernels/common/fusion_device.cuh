// Device helpers shared by the fusion kernel families (bias_gelu, layernorm, softmax): FP32 math on
// fp32/fp16/bf16 storage, 128-bit packs, warp and block reductions, and the launcher plumbing.
// Include only from .cu files.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "kernels/common/fusion_grid.hpp"
#include "kernels/common/precision.hpp"

namespace gpubench::kernels::device {

// --- conversions: every kernel computes in FP32 ------------------------------------------------
__device__ __forceinline__ float to_float(float v) {
  return v;
}
__device__ __forceinline__ float to_float(__half v) {
  return __half2float(v);
}
__device__ __forceinline__ float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

// --- 128-bit packs ------------------------------------------------------------------------------
// 16 bytes of T, loaded and stored as one int4 (one LDG.128 / STG.128 per thread).
template <class T>
struct alignas(16) Pack128 {
  static constexpr int size = 16 / static_cast<int>(sizeof(T));
  T v[size];
};

template <class T>
__device__ __forceinline__ Pack128<T> load128(const T* p) {
  Pack128<T> out;
  *reinterpret_cast<int4*>(out.v) = *reinterpret_cast<const int4*>(p);
  return out;
}

template <class T>
__device__ __forceinline__ void store128(T* p, const Pack128<T>& pack) {
  *reinterpret_cast<int4*>(p) = *reinterpret_cast<const int4*>(pack.v);
}

// --- reductions ---------------------------------------------------------------------------------
// Butterfly reductions: every lane of the warp ends with the result.
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Block-wide sum or max; every thread of the block gets the result. `scratch` holds 32 floats of
// shared memory; the function synchronises the block before it returns and before reuse, so the
// same scratch can serve consecutive reductions.
template <bool Max>
__device__ __forceinline__ float block_reduce(float v, float* scratch) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int warps = (blockDim.x + 31) / 32;
  v = Max ? warp_max(v) : warp_sum(v);
  __syncthreads();  // scratch may still be read by a previous reduction
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float r = lane < warps ? scratch[lane] : (Max ? -INFINITY : 0.0f);
  r = Max ? warp_max(r) : warp_sum(r);
  return r;
}

// --- launch plumbing ----------------------------------------------------------------------------
// k_block_threads, grid_for() and grid_2d_for(): fusion_grid.hpp (CUDA-free, host-tested).

inline bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

// Calls f(T{}) with the storage type of `p` (float, __half or __nv_bfloat16).
template <class F>
cudaError_t dispatch(Precision p, F&& f) {
  switch (p) {
    case Precision::fp32:
      return f(float{});
    case Precision::fp16:
      return f(__half{});
    case Precision::bf16:
      return f(__nv_bfloat16{});
  }
  return cudaErrorInvalidValue;
}

// The row-wise families (layernorm, softmax) give each row a block, and gridDim.x is at most
// 2^31 - 1.
inline constexpr std::uint64_t k_max_rows = 0x7fffffffull;

// Their launchers' checks before dispatch(precision, f): a version that does not support the
// shape, or more rows than blocks, is invalid; no rows is nothing to do.
template <class F>
cudaError_t dispatch_rows(bool version_supported, Precision p, std::uint64_t rows, F&& f) {
  if (!version_supported) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  if (rows > k_max_rows) return cudaErrorInvalidValue;
  return dispatch(p, std::forward<F>(f));
}

}  // namespace gpubench::kernels::device
