// bias + GELU kernels, v1..v3 (see bias_gelu.hpp for what each version adds and its byte count).
//
// Indexing: the matrix is rows x cols, row-major; element (r, c) is at r * cols + c and its bias
// element is bias[c]. The kernels that read the bias (v1's bias add, v2) take a 2D grid and walk
// rows and columns in two loops (fusion_grid.hpp, grid_2d_for), so the column comes from the loop
// counter, not from a 64-bit i % cols per element. v1's GELU kernel needs no index but i: a flat
// grid-stride loop, thread t handles items t, t + G, t + 2G, ... (G = threads in the grid). v3
// walks 128-bit packs the same way. In every kernel consecutive threads touch consecutive
// addresses, so each warp's accesses coalesce. Each element is read and written by exactly one
// thread, so no kernel needs synchronisation, and y may alias x.
#include <cuda_runtime.h>

#include "kernels/bias_gelu/bias_gelu.hpp"
#include "kernels/common/fusion_device.cuh"

namespace gpubench::kernels::bias_gelu {
namespace {

using device::from_float;
using device::to_float;

// GELU, tanh form, as x / (1 + exp(-2z)) (see gelu_tanh() in bias_gelu_reference.hpp): expf and
// one IEEE division (no fast-math intrinsics), so FP32 results stay within a few ulp.
__device__ __forceinline__ float gelu(float x) {
  const float z = 0.7978845608f * (x + 0.044715f * x * x * x);
  return x / (1.0f + expf(-2.0f * z));
}

// v3's GELU: the same expression with the fast intrinsics (bias_gelu.hpp, k_fast_*). __expf is
// ex2.approx of a * log2(e) (2 instructions), __fdividef div.approx (a reciprocal and a multiply):
// with the polynomial, cap and select about 12 FP32 PTX instructions per element (nvcc 13, sm_90),
// 2 of them MUFU, against ~26 for expf and IEEE division.
// Beyond the cap (x below about -9.66, where |gelu| < 2e-34) the result is 0 and the exponent
// stays capped, so 1 + e^a never reaches 2^126 (where __fdividef's result is defined as 0) or
// infinity. A NaN x fails `a > cap` and propagates through the division.
__device__ __forceinline__ float gelu_fast(float x) {
  const float a = x * (k_fast_c0 + k_fast_c1 * (x * x));
  const float numerator = a > k_fast_exp_cap ? 0.0f : x;
  return __fdividef(numerator, 1.0f + __expf(fminf(a, k_fast_exp_cap)));
}

// v1, kernel 1: y = x + b, rounded to the storage type (the intermediate an unfused graph stores).
// 2D grid (grid_2d_for): block row blockIdx.y takes rows blockIdx.y, + gridDim.y, ...; within a row
// thread (blockIdx.x, threadIdx.x) takes columns c0, c0 + gridDim.x * blockDim.x, ... One scalar
// element per access, as an unfused elementwise kernel reads it.
template <class T>
__global__ void bias_add_kernel(const T* x, const T* __restrict__ bias, T* y, std::uint64_t rows,
                                std::uint32_t cols) {
  const std::uint32_t c0 = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t c_stride = gridDim.x * blockDim.x;
  for (std::uint64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const std::uint64_t o = r * cols;  // first element of row r
    for (std::uint32_t c = c0; c < cols; c += c_stride) {
      y[o + c] = from_float<T>(to_float(x[o + c]) + to_float(bias[c]));
    }
  }
}

// v1, kernel 2: y = gelu(y) in place.
template <class T>
__global__ void gelu_kernel(T* y, std::uint64_t n) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    y[i] = from_float<T>(gelu(to_float(y[i])));
  }
}

// v2: one pass, y = gelu(x + b); the sum stays in a register. The same 2D loops as v1's bias add.
template <class T>
__global__ void fused_kernel(const T* x, const T* __restrict__ bias, T* y, std::uint64_t rows,
                             std::uint32_t cols) {
  const std::uint32_t c0 = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t c_stride = gridDim.x * blockDim.x;
  for (std::uint64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const std::uint64_t o = r * cols;  // first element of row r
    for (std::uint32_t c = c0; c < cols; c += c_stride) {
      y[o + c] = from_float<T>(gelu(to_float(x[o + c]) + to_float(bias[c])));
    }
  }
}

// v3: v2 on 128-bit packs with the fast GELU. Item p covers elements [p * P, p * P + P) of one row
// (cols is a multiple of P = Pack128<T>::size, so a pack never straddles two rows and its bias is
// contiguous too).
template <class T>
__global__ void fused_vec_kernel(const T* x, const T* __restrict__ bias, T* y, std::uint64_t packs,
                                 std::uint64_t cols) {
  using Pack = device::Pack128<T>;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t p = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       p < packs; p += stride) {
    const std::uint64_t first = p * Pack::size;
    const Pack xv = device::load128(x + first);
    const Pack bv = device::load128(bias + first % cols);
    Pack out;
#pragma unroll
    for (int k = 0; k < Pack::size; ++k) {
      out.v[k] = from_float<T>(gelu_fast(to_float(xv.v[k]) + to_float(bv.v[k])));
    }
    device::store128(y + first, out);
  }
}

}  // namespace

int launch(Version v, Precision precision, const void* x, const void* bias, void* y,
           std::uint64_t rows, std::uint64_t cols, CUstream_st* stream) {
  if (!version_supports(v, precision, cols) || cols == 0) return cudaErrorInvalidValue;
  const std::uint64_t n = rows * cols;
  if (n == 0) return cudaSuccess;
  return static_cast<int>(device::dispatch(precision, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    const T* xt = static_cast<const T*>(x);
    const T* bt = static_cast<const T*>(bias);
    T* yt = static_cast<T*>(y);
    constexpr int threads = device::k_block_threads;
    // v1/v2: version_supports() has checked cols <= k_max_cols_2d, so it fits 32 bits.
    const device::Grid2d g2 = device::grid_2d_for(rows, cols);
    const dim3 grid2(g2.x, g2.y);
    const auto cols32 = static_cast<std::uint32_t>(cols);
    switch (v) {
      case Version::v1:
        bias_add_kernel<T><<<grid2, threads, 0, stream>>>(xt, bt, yt, rows, cols32);
        if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
        gelu_kernel<T><<<device::grid_for(n), threads, 0, stream>>>(yt, n);
        return cudaGetLastError();
      case Version::v2:
        fused_kernel<T><<<grid2, threads, 0, stream>>>(xt, bt, yt, rows, cols32);
        return cudaGetLastError();
      case Version::v3: {
        if (!device::aligned16(x) || !device::aligned16(bias) || !device::aligned16(y))
          return cudaErrorInvalidValue;
        const std::uint64_t packs = n / device::Pack128<T>::size;
        fused_vec_kernel<T>
            <<<device::grid_for(packs), threads, 0, stream>>>(xt, bt, yt, packs, cols);
        return cudaGetLastError();
      }
    }
    return cudaErrorInvalidValue;
  }));
}

}  // namespace gpubench::kernels::bias_gelu
