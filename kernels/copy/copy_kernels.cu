#include <cuda_runtime_api.h>

#include "kernels/copy/copy.hpp"

namespace gpubench::kernels::copy {

namespace {

// Grid-stride copy of 16-byte words. Loads are issued before stores for 4 words per thread
// (k_copy_words_per_thread) so a thread has several requests in flight over the (long-latency)
// link.
__device__ __forceinline__ void copy_words(uint4* dst, const uint4* src, std::size_t n,
                                           std::size_t first, std::size_t stride) {
  std::size_t i = first;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 v0 = src[i];
    const uint4 v1 = src[i + stride];
    const uint4 v2 = src[i + 2 * stride];
    const uint4 v3 = src[i + 3 * stride];
    dst[i] = v0;
    dst[i + stride] = v1;
    dst[i + 2 * stride] = v2;
    dst[i + 3 * stride] = v3;
  }
  for (; i < n; i += stride) dst[i] = src[i];
}

__global__ void sm_copy_kernel(uint4* dst, const uint4* src, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  copy_words(dst, src, n, static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x, stride);
}

// Even warps copy a, odd warps copy b; each half strides over its own warps only.
__global__ void sm_copy_bidir_kernel(uint4* dst_a, const uint4* src_a, uint4* dst_b,
                                     const uint4* src_b, std::size_t n) {
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  const std::size_t half_threads = static_cast<std::size_t>(gridDim.x) * blockDim.x / 2;
  const std::size_t first = static_cast<std::size_t>(warp / 2) * 32 + lane;
  if (warp % 2 == 0) {
    copy_words(dst_a, src_a, n, first, half_threads);
  } else {
    copy_words(dst_b, src_b, n, first, half_threads);
  }
}

__global__ void fill_pattern_kernel(std::uint32_t* data, std::uint64_t words, std::uint32_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < words; i += stride) {
    data[i] = pattern_word(seed, i);
  }
}

}  // namespace

int launch_sm_copy(void* dst, const void* src, std::size_t bytes, int sm_count,
                   CUstream_st* stream) {
  sm_copy_kernel<<<sm_copy_grid(bytes, sm_count), k_copy_threads_per_block, 0, stream>>>(
      static_cast<uint4*>(dst), static_cast<const uint4*>(src), bytes / sizeof(uint4));
  return static_cast<int>(cudaGetLastError());
}

int launch_sm_copy_bidir(void* dst_a, const void* src_a, void* dst_b, const void* src_b,
                         std::size_t bytes, int sm_count, CUstream_st* stream) {
  sm_copy_bidir_kernel<<<sm_copy_bidir_grid(bytes, sm_count), k_copy_threads_per_block, 0,
                         stream>>>(static_cast<uint4*>(dst_a), static_cast<const uint4*>(src_a),
                                   static_cast<uint4*>(dst_b), static_cast<const uint4*>(src_b),
                                   bytes / sizeof(uint4));
  return static_cast<int>(cudaGetLastError());
}

int launch_fill_pattern(std::uint32_t* data, std::uint64_t words, std::uint32_t seed,
                        CUstream_st* stream) {
  fill_pattern_kernel<<<1024, 256, 0, stream>>>(data, words, seed);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace gpubench::kernels::copy
