// Residual add + LayerNorm kernels, v1..v3 (see layernorm.hpp for what each version adds and its
// byte count). Matrices are rows x cols, row-major; all statistics in FP32.
#include <cuda_runtime.h>

#include "kernels/common/fusion_device.cuh"
#include "kernels/layernorm/layernorm.hpp"

namespace gpubench::kernels::layernorm {
namespace {

using device::from_float;
using device::to_float;

constexpr float k_eps = static_cast<float>(k_epsilon);
constexpr int k_warps_per_block = device::k_block_threads / 32;

// v1, kernel 1: s = x + res, elementwise grid-stride loop (one element per thread per step).
template <class T>
__global__ void add_kernel(const T* __restrict__ x, const T* __restrict__ res, T* __restrict__ s,
                           std::uint64_t n) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    s[i] = from_float<T>(to_float(x[i]) + to_float(res[i]));
  }
}

// v1, kernel 2: LayerNorm of s, block `blockIdx.x` handles row blockIdx.x. Thread t visits columns
// t, t + blockDim, ... in each of three passes over the row in global memory (mean, variance about
// the mean, normalise); the block reductions synchronise between passes.
template <class T>
__global__ void layernorm_block_kernel(const T* __restrict__ s, const T* __restrict__ gamma,
                                       const T* __restrict__ beta, T* __restrict__ y,
                                       std::uint64_t cols) {
  __shared__ float scratch[32];
  const std::uint64_t o = static_cast<std::uint64_t>(blockIdx.x) * cols;
  float sum = 0.0f;
  for (std::uint64_t c = threadIdx.x; c < cols; c += blockDim.x) sum += to_float(s[o + c]);
  const float mean = device::block_reduce<false>(sum, scratch) / static_cast<float>(cols);
  float sq = 0.0f;
  for (std::uint64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    const float d = to_float(s[o + c]) - mean;
    sq += d * d;
  }
  const float var = device::block_reduce<false>(sq, scratch) / static_cast<float>(cols);
  const float rstd = rsqrtf(var + k_eps);
  for (std::uint64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    const float n = (to_float(s[o + c]) - mean) * rstd;
    y[o + c] = from_float<T>(n * to_float(gamma[c]) + to_float(beta[c]));
  }
}

// v2: one block per row does the add and the LayerNorm. The FP32 sums go to dynamic shared memory
// (cols floats) as they are written out, so the two later passes read shared memory, not global.
// Each thread reads back only the columns it wrote, so no barrier is needed for `row` itself.
template <class T>
__global__ void fused_block_kernel(const T* __restrict__ x, const T* __restrict__ res,
                                   const T* __restrict__ gamma, const T* __restrict__ beta,
                                   T* __restrict__ s, T* __restrict__ y, std::uint64_t cols) {
  extern __shared__ float row[];
  __shared__ float scratch[32];
  const std::uint64_t o = static_cast<std::uint64_t>(blockIdx.x) * cols;
  float sum = 0.0f;
  for (std::uint64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = to_float(x[o + c]) + to_float(res[o + c]);
    s[o + c] = from_float<T>(v);
    row[c] = v;
    sum += v;
  }
  const float mean = device::block_reduce<false>(sum, scratch) / static_cast<float>(cols);
  float sq = 0.0f;
  for (std::uint64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    const float d = row[c] - mean;
    sq += d * d;
  }
  const float rstd =
      rsqrtf(device::block_reduce<false>(sq, scratch) / static_cast<float>(cols) + k_eps);
  for (std::uint64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    y[o + c] = from_float<T>((row[c] - mean) * rstd * to_float(gamma[c]) + to_float(beta[c]));
  }
}

// Running (count, mean, M2) of Welford's algorithm; merge() is Chan et al.'s pairwise update, so
// per-lane partial statistics combine exactly as if one thread had seen every value once.
struct Welford {
  float count = 0.0f;
  float mean = 0.0f;
  float m2 = 0.0f;
  __device__ void merge(float n_b, float mean_b, float m2_b) {
    if (n_b == 0.0f) return;
    const float n = count + n_b;
    const float delta = mean_b - mean;
    mean += delta * (n_b / n);
    m2 += m2_b + delta * delta * (count * n_b / n);
    count = n;
  }
};

// v3: one warp per row (k_warps_per_block rows per block), 128-bit packs. Lane l handles packs
// l, l + 32, ... of its row. Pass 1 adds, stores s and folds each pack into the lane's Welford
// statistics (the pack's own mean and M2 first, then one merge); a butterfly of merges gives every
// lane the row's mean and variance in one read of the inputs. Pass 2 re-reads x and res (now in
// L1/L2, not DRAM) and writes y.
template <class T>
__global__ void fused_warp_kernel(const T* __restrict__ x, const T* __restrict__ res,
                                  const T* __restrict__ gamma, const T* __restrict__ beta,
                                  T* __restrict__ s, T* __restrict__ y, std::uint64_t rows,
                                  std::uint64_t cols) {
  using Pack = device::Pack128<T>;
  constexpr int P = Pack::size;
  const int lane = threadIdx.x % 32;
  const std::uint64_t r =
      static_cast<std::uint64_t>(blockIdx.x) * k_warps_per_block + threadIdx.x / 32;
  if (r >= rows) return;  // the whole warp leaves together: no shuffle is left half-populated
  const std::uint64_t o = r * cols;
  const std::uint64_t packs = cols / P;
  Welford w;
  for (std::uint64_t j = lane; j < packs; j += 32) {
    const Pack xv = device::load128(x + o + j * P);
    const Pack rv = device::load128(res + o + j * P);
    float v[P];
    Pack sv;
    float pack_sum = 0.0f;
#pragma unroll
    for (int k = 0; k < P; ++k) {
      v[k] = to_float(xv.v[k]) + to_float(rv.v[k]);
      sv.v[k] = from_float<T>(v[k]);
      pack_sum += v[k];
    }
    device::store128(s + o + j * P, sv);
    const float pack_mean = pack_sum / P;
    float pack_m2 = 0.0f;
#pragma unroll
    for (int k = 0; k < P; ++k) pack_m2 += (v[k] - pack_mean) * (v[k] - pack_mean);
    w.merge(static_cast<float>(P), pack_mean, pack_m2);
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float n_b = __shfl_xor_sync(0xffffffffu, w.count, offset);
    const float mean_b = __shfl_xor_sync(0xffffffffu, w.mean, offset);
    const float m2_b = __shfl_xor_sync(0xffffffffu, w.m2, offset);
    w.merge(n_b, mean_b, m2_b);
  }
  const float mean = w.mean;
  const float rstd = rsqrtf(w.m2 / static_cast<float>(cols) + k_eps);
  for (std::uint64_t j = lane; j < packs; j += 32) {
    const Pack xv = device::load128(x + o + j * P);
    const Pack rv = device::load128(res + o + j * P);
    const Pack gv = device::load128(gamma + j * P);
    const Pack bv = device::load128(beta + j * P);
    Pack out;
#pragma unroll
    for (int k = 0; k < P; ++k) {
      const float v = to_float(xv.v[k]) + to_float(rv.v[k]);
      out.v[k] = from_float<T>((v - mean) * rstd * to_float(gv.v[k]) + to_float(bv.v[k]));
    }
    device::store128(y + o + j * P, out);
  }
}

}  // namespace

int launch(Version v, Precision precision, const void* x, const void* res, const void* gamma,
           const void* beta, void* s, void* y, std::uint64_t rows, std::uint64_t cols,
           CUstream_st* stream) {
  if (!version_supports(v, precision, cols)) return cudaErrorInvalidValue;
  if (rows == 0) return cudaSuccess;
  if (rows > 0x7fffffffull) return cudaErrorInvalidValue;
  return static_cast<int>(device::dispatch(precision, [&](auto tag) -> cudaError_t {
    using T = decltype(tag);
    const T* xt = static_cast<const T*>(x);
    const T* rt = static_cast<const T*>(res);
    const T* gt = static_cast<const T*>(gamma);
    const T* bt = static_cast<const T*>(beta);
    T* st = static_cast<T*>(s);
    T* yt = static_cast<T*>(y);
    constexpr int threads = device::k_block_threads;
    const auto row_blocks = static_cast<unsigned int>(rows);
    switch (v) {
      case Version::v1: {
        const std::uint64_t n = rows * cols;
        add_kernel<T><<<device::grid_for(n), threads, 0, stream>>>(xt, rt, st, n);
        if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
        layernorm_block_kernel<T><<<row_blocks, threads, 0, stream>>>(st, gt, bt, yt, cols);
        return cudaGetLastError();
      }
      case Version::v2: {
        const std::size_t shared = cols * sizeof(float);
        // Rows wider than 12032 floats need more than the default 48 KiB per block (with the
        // static reduction scratch); every supported GPU allows at least 99 KiB on request.
        if (shared > 47 * 1024) {
          const cudaError_t e = cudaFuncSetAttribute(fused_block_kernel<T>,
                                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     static_cast<int>(shared));
          if (e != cudaSuccess) return e;
        }
        fused_block_kernel<T>
            <<<row_blocks, threads, shared, stream>>>(xt, rt, gt, bt, st, yt, cols);
        return cudaGetLastError();
      }
      case Version::v3: {
        for (const void* p :
             {x, res, gamma, beta, static_cast<const void*>(s), static_cast<const void*>(y)}) {
          if (!device::aligned16(p)) return cudaErrorInvalidValue;
        }
        const auto blocks =
            static_cast<unsigned int>((rows + k_warps_per_block - 1) / k_warps_per_block);
        fused_warp_kernel<T><<<blocks, threads, 0, stream>>>(xt, rt, gt, bt, st, yt, rows, cols);
        return cudaGetLastError();
      }
    }
    return cudaErrorInvalidValue;
  }));
}

}  // namespace gpubench::kernels::layernorm
