// Row softmax kernels, v1 and v2 (see softmax.hpp for what each version adds and its byte count).
// Matrices are rows x cols, row-major; all arithmetic in FP32 with expf (not the fast __expf).
#include <cuda_runtime.h>

#include "kernels/common/fusion_device.cuh"
#include "kernels/softmax/softmax.hpp"

namespace gpubench::kernels::softmax {
namespace {

using device::from_float;
using device::to_float;

constexpr int k_warps_per_block = device::k_block_threads / 32;

// v1, kernel 1: block b reduces row b to its maximum (thread t visits columns t, t + blockDim,
// ...).
template <class T>
__global__ void row_max_kernel(const T* __restrict__ x, float* __restrict__ row_max,
                               std::uint64_t cols) {
  __shared__ float scratch[32];
  const std::uint64_t o = static_cast<std::uint64_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (std::uint64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, to_float(x[o + c]));
  m = device::block_reduce<true>(m, scratch);
  if (threadIdx.x == 0) row_max[blockIdx.x] = m;
}

// v1, kernel 2: block b sums exp(x - max) over row b.
template <class T>
__global__ void row_sum_kernel(const T* __restrict__ x, const float* __restrict__ row_max,
                               float* __restrict__ row_sum, std::uint64_t cols) {
  __shared__ float scratch[32];
  const std::uint64_t o = static_cast<std::uint64_t>(blockIdx.x) * cols;
  const float m = row_max[blockIdx.x];
  float s = 0.0f;
  for (std::uint64_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(to_float(x[o + c]) - m);
  s = device::block_reduce<false>(s, scratch);
  if (threadIdx.x == 0) row_sum[blockIdx.x] = s;
}

// v1, kernel 3: elementwise normalisation on a 2D grid (fusion_grid.hpp, grid_2d_for): block row
// blockIdx.y takes rows blockIdx.y, + gridDim.y, ... and reads their statistics once; within a row
// thread (blockIdx.x, threadIdx.x) takes columns c0, c0 + gridDim.x * blockDim.x, ... So the row
// of an element is the loop counter, not a 64-bit i / cols per element.
template <class T>
__global__ void normalise_kernel(const T* __restrict__ x, const float* __restrict__ row_max,
                                 const float* __restrict__ row_sum, T* __restrict__ y,
                                 std::uint64_t rows, std::uint32_t cols) {
  const std::uint32_t c0 = blockIdx.x * blockDim.x + threadIdx.x;
  const std::uint32_t c_stride = gridDim.x * blockDim.x;
  for (std::uint64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const std::uint64_t o = r * cols;  // first element of row r
    const float m = row_max[r];
    const float sum = row_sum[r];
    for (std::uint32_t c = c0; c < cols; c += c_stride) {
      y[o + c] = from_float<T>(expf(to_float(x[o + c]) - m) / sum);
    }
  }
}

// Merges the online statistics (m_b, s_b) into (m, s): both sums are rescaled to the larger max.
__device__ __forceinline__ void merge_online(float& m, float& s, float m_b, float s_b) {
  const float m_new = fmaxf(m, m_b);
  if (m_new == -INFINITY) return;  // both empty
  s = s * expf(m - m_new) + s_b * expf(m_b - m_new);
  m = m_new;
}

// v2: one warp per row. Lane l reads columns l, l + 32, ... once, keeping its running maximum m and
// the sum s of exp(x - m), rescaled by exp(m_old - m_new) whenever m grows. A butterfly of merges
// gives every lane the row's (max, sum); the second loop reads the row again and writes y (from
// DRAM at the sizes that matter: softmax.hpp counts x twice). Rows past the end leave as a whole
// warp before any shuffle.
template <class T>
__global__ void online_kernel(const T* __restrict__ x, T* __restrict__ y, std::uint64_t rows,
                              std::uint64_t cols) {
  const int lane = threadIdx.x % 32;
  const std::uint64_t r =
      static_cast<std::uint64_t>(blockIdx.x) * k_warps_per_block + threadIdx.x / 32;
  if (r >= rows) return;
  const std::uint64_t o = r * cols;
  float m = -INFINITY;
  float s = 0.0f;
  for (std::uint64_t c = lane; c < cols; c += 32) {
    const float v = to_float(x[o + c]);
    if (v > m) {
      s = s * expf(m - v) + 1.0f;  // expf(-inf) = 0 on the first element
      m = v;
    } else {
      s += expf(v - m);
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float m_b = __shfl_xor_sync(0xffffffffu, m, offset);
    const float s_b = __shfl_xor_sync(0xffffffffu, s, offset);
    merge_online(m, s, m_b, s_b);
  }
  const float inv = 1.0f / s;
  for (std::uint64_t c = lane; c < cols; c += 32) {
    y[o + c] = from_float<T>(expf(to_float(x[o + c]) - m) * inv);
  }
}

}  // namespace

int launch(Version v, Precision precision, const void* x, void* y, float* scratch,
           std::uint64_t rows, std::uint64_t cols, CUstream_st* stream) {
  const auto launch_typed = [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    const T* xt = static_cast<const T*>(x);
    T* yt = static_cast<T*>(y);
    constexpr int threads = device::k_block_threads;
    if (v == Version::v1) {
      if (scratch == nullptr) return cudaErrorInvalidValue;
      float* row_max = scratch;
      float* row_sum = scratch + rows;
      const auto row_blocks = static_cast<unsigned int>(rows);
      row_max_kernel<T><<<row_blocks, threads, 0, stream>>>(xt, row_max, cols);
      if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
      row_sum_kernel<T><<<row_blocks, threads, 0, stream>>>(xt, row_max, row_sum, cols);
      if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
      // version_supports() has checked cols <= k_max_cols_2d, so it fits 32 bits.
      const device::Grid2d g2 = device::grid_2d_for(rows, cols);
      normalise_kernel<T><<<dim3(g2.x, g2.y), threads, 0, stream>>>(
          xt, row_max, row_sum, yt, rows, static_cast<std::uint32_t>(cols));
      return cudaGetLastError();
    }
    const auto blocks =
        static_cast<unsigned int>((rows + k_warps_per_block - 1) / k_warps_per_block);
    online_kernel<T><<<blocks, threads, 0, stream>>>(xt, yt, rows, cols);
    return cudaGetLastError();
  };
  return static_cast<int>(
      device::dispatch_rows(version_supports(v, precision, cols), precision, rows, launch_typed));
}

}  // namespace gpubench::kernels::softmax
