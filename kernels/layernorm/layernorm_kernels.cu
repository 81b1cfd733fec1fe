// Residual add + LayerNorm kernels, v1..v3 (see layernorm.hpp for what each version adds and its
// byte count). Matrices are rows x cols, row-major; all statistics in FP32.
#include <cuda_runtime.h>

#include <type_traits>

#include "kernels/common/fusion_device.cuh"
#include "kernels/layernorm/layernorm.hpp"

namespace gpubench::kernels::layernorm {
namespace {

using device::from_float;
using device::to_float;

constexpr float k_eps = static_cast<float>(k_epsilon);

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

// Sum over the `team` threads that share a row (team a power of two, 32..1024, the same for the
// whole block; teams are aligned to warps). Every thread of the block must call it, in the same
// order, because teams wider than a warp meet in `scratch` (one float per warp of the block)
// between two barriers. Every thread of the team gets the same sum, added in the same order.
__device__ __forceinline__ float team_sum(float v, unsigned team, float* scratch) {
  v = device::warp_sum(v);
  if (team <= 32) return v;
  const unsigned warp = threadIdx.x / 32;
  const unsigned first = warp / (team / 32) * (team / 32);
  __syncthreads();  // scratch may still be read by the previous team_sum
  if (threadIdx.x % 32 == 0) scratch[warp] = v;
  __syncthreads();
  float total = 0.0f;
  for (unsigned w = first; w < first + team / 32; ++w) total += scratch[w];
  return total;
}

// v3: a team of `team` threads per row (v3_row_threads(); blockDim.x / team rows per block), the
// row held in registers. Thread t of a team handles packs t, t + team, ... (at most MaxPacks).
// Pass 1 loads its packs of x and res (all loads issued before any use), adds, stores s and keeps
// the FP32 sums in `v`; the mean and then the variance about it (two-pass, as exact as v2) come
// from `v` through two team sums; pass 2 writes y from `v`. x and res are read once. Threads of a
// row past the end still take part in the barriers of team_sum, and store nothing.
// The body is a device function so that only the fp32 kernel carries a launch bound (below).
template <class T, int MaxPacks>
__device__ __forceinline__ void fused_register_rows(const T* __restrict__ x,
                                                    const T* __restrict__ res,
                                                    const T* __restrict__ gamma,
                                                    const T* __restrict__ beta, T* __restrict__ s,
                                                    T* __restrict__ y, std::uint64_t rows,
                                                    std::uint64_t cols, unsigned team) {
  using Pack = device::Pack128<T>;
  constexpr int P = Pack::size;
  __shared__ float scratch[32];
  const unsigned rows_per_block = blockDim.x / team;
  const std::uint64_t r =
      static_cast<std::uint64_t>(blockIdx.x) * rows_per_block + threadIdx.x / team;
  const unsigned t = threadIdx.x % team;
  const bool active = r < rows;
  const std::uint64_t o = active ? r * cols : 0;
  const std::uint64_t packs = active ? cols / P : 0;
  Pack xv[MaxPacks];
  Pack rv[MaxPacks];
#pragma unroll
  for (int i = 0; i < MaxPacks; ++i) {
    const std::uint64_t j = t + static_cast<std::uint64_t>(i) * team;
    if (j < packs) {
      xv[i] = device::load128(x + o + j * P);
      rv[i] = device::load128(res + o + j * P);
    }
  }
  float v[MaxPacks][P];
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < MaxPacks; ++i) {
    const std::uint64_t j = t + static_cast<std::uint64_t>(i) * team;
    Pack sv;
#pragma unroll
    for (int k = 0; k < P; ++k) {
      v[i][k] = j < packs ? to_float(xv[i].v[k]) + to_float(rv[i].v[k]) : 0.0f;
      sv.v[k] = from_float<T>(v[i][k]);
      sum += v[i][k];
    }
    if (j < packs) device::store128(s + o + j * P, sv);
  }
  const float mean = team_sum(sum, team, scratch) / static_cast<float>(cols);
  float sq = 0.0f;
#pragma unroll
  for (int i = 0; i < MaxPacks; ++i) {
    const std::uint64_t j = t + static_cast<std::uint64_t>(i) * team;
#pragma unroll
    for (int k = 0; k < P; ++k) {
      const float d = j < packs ? v[i][k] - mean : 0.0f;
      sq += d * d;
    }
  }
  const float rstd = rsqrtf(team_sum(sq, team, scratch) / static_cast<float>(cols) + k_eps);
#pragma unroll
  for (int i = 0; i < MaxPacks; ++i) {
    const std::uint64_t j = t + static_cast<std::uint64_t>(i) * team;
    if (j >= packs) continue;
    const Pack gv = device::load128(gamma + j * P);
    const Pack bv = device::load128(beta + j * P);
    Pack out;
#pragma unroll
    for (int k = 0; k < P; ++k)
      out.v[k] = from_float<T>((v[i][k] - mean) * rstd * to_float(gv.v[k]) + to_float(bv.v[k]));
    device::store128(y + o + j * P, out);
  }
}

// v3 for fp16/bf16: no launch bound. ptxas gives them 63-94 registers on sm_80..sm_120 (CUDA 13),
// so a 512-thread block fits the 65,536 registers of a block without one, and any bound changes
// ptxas's allocation (bf16 on sm_90: 80 registers unbounded, 86-96 bounded, one block fewer per
// SM).
template <class T, int MaxPacks>
__global__ void fused_register_kernel(const T* __restrict__ x, const T* __restrict__ res,
                                      const T* __restrict__ gamma, const T* __restrict__ beta,
                                      T* __restrict__ s, T* __restrict__ y, std::uint64_t rows,
                                      std::uint64_t cols, unsigned team) {
  fused_register_rows<T, MaxPacks>(x, res, gamma, beta, s, y, rows, cols, team);
}

// v3 for fp32, bounded: its 8 packs of 4 values take 122 registers unbounded on sm_90, and
// a 512-thread block (rows of 8193-12288 columns) may use at most 65,536 / 512 = 128, so one more
// register from a compiler update would make those rows fail with cudaErrorLaunchOutOfResources.
// __launch_bounds__(k_v3_max_block_threads) makes ptxas keep to 128 (v3_block_threads() never
// exceeds it, layernorm.hpp). CUDA 13.0 ptxas, bounded: sm_80/86/89 122, sm_90 102, sm_100 85,
// sm_120 106 registers, no spills.
template <int MaxPacks>
__global__ void __launch_bounds__(k_v3_max_block_threads)
    fused_register_kernel_fp32(const float* __restrict__ x, const float* __restrict__ res,
                               const float* __restrict__ gamma, const float* __restrict__ beta,
                               float* __restrict__ s, float* __restrict__ y, std::uint64_t rows,
                               std::uint64_t cols, unsigned team) {
  fused_register_rows<float, MaxPacks>(x, res, gamma, beta, s, y, rows, cols, team);
}

}  // namespace

int launch(Version v, Precision precision, const void* x, const void* res, const void* gamma,
           const void* beta, void* s, void* y, std::uint64_t rows, std::uint64_t cols,
           CUstream_st* stream) {
  const auto launch_typed = [&](auto tag) -> cudaError_t {
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
        constexpr int max_packs = k_v3_values_per_thread / device::Pack128<T>::size;
        const unsigned team = v3_row_threads(cols);
        const unsigned block = v3_block_threads(cols);  // <= the kernel's launch bound
        const unsigned rows_per_block = block / team;
        const auto blocks = static_cast<unsigned int>((rows + rows_per_block - 1) / rows_per_block);
        if constexpr (std::is_same_v<T, float>) {
          fused_register_kernel_fp32<max_packs>
              <<<blocks, block, 0, stream>>>(xt, rt, gt, bt, st, yt, rows, cols, team);
        } else {
          fused_register_kernel<T, max_packs>
              <<<blocks, block, 0, stream>>>(xt, rt, gt, bt, st, yt, rows, cols, team);
        }
        return cudaGetLastError();
      }
    }
    return cudaErrorInvalidValue;
  };
  return static_cast<int>(
      device::dispatch_rows(version_supports(v, precision, cols), precision, rows, launch_typed));
}

}  // namespace gpubench::kernels::layernorm
