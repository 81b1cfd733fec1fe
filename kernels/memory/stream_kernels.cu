// STREAM kernels on the GPU (see stream.hpp for the operations and their byte counting).
//
//   stream_init      writes the initial pattern (the first touch happens on the device)
//   stream_copy      c = a
//   stream_scale     b = q c
//   stream_add       c = a + b
//   stream_triad     a = b + q c
// Each is a grid-stride loop over n doubles: thread t of the grid handles elements t, t + G,
// t + 2G, ... (G = total threads), so consecutive threads touch consecutive doubles and every
// warp's accesses coalesce into full 32-byte sectors. No synchronisation between threads is needed:
// every element is read and written by exactly one thread.
#include <cuda_runtime.h>

#include "kernels/memory/stream.hpp"

namespace gpubench::kernels::memory {
namespace {

constexpr int k_threads_per_block = 256;
// Blocks per SM when the caller does not choose: enough resident warps to hide DRAM latency.
constexpr int k_default_blocks_per_sm = 8;

__global__ void stream_init(double* __restrict__ a, double* __restrict__ b, double* __restrict__ c,
                            std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const StreamValues v = stream_initial_values(i);
    a[i] = v.a;
    b[i] = v.b;
    c[i] = v.c;
  }
}

__global__ void stream_copy(const double* __restrict__ a, double* __restrict__ c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    c[i] = a[i];
  }
}

__global__ void stream_scale(double* __restrict__ b, const double* __restrict__ c, double q,
                             std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    b[i] = q * c[i];
  }
}

__global__ void stream_add(const double* __restrict__ a, const double* __restrict__ b,
                           double* __restrict__ c, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    c[i] = a[i] + b[i];
  }
}

__global__ void stream_triad(double* __restrict__ a, const double* __restrict__ b,
                             const double* __restrict__ c, double q, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    a[i] = b[i] + q * c[i];
  }
}

int default_blocks(std::size_t n) {
  int device = 0;
  int sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      sms <= 0) {
    sms = 1;
  }
  const std::size_t needed = (n + k_threads_per_block - 1) / k_threads_per_block;
  const std::size_t wanted = static_cast<std::size_t>(sms) * k_default_blocks_per_sm;
  const std::size_t blocks = needed < wanted ? needed : wanted;
  return blocks == 0 ? 1 : static_cast<int>(blocks);
}

}  // namespace

int launch_stream_init(double* a, double* b, double* c, std::size_t n, CUstream_st* stream) {
  stream_init<<<default_blocks(n), k_threads_per_block, 0, stream>>>(a, b, c, n);
  return static_cast<int>(cudaGetLastError());
}

int launch_stream_op(StreamOp op, double* a, double* b, double* c, double scalar, std::size_t n,
                     int blocks, CUstream_st* stream) {
  const int grid = blocks > 0 ? blocks : default_blocks(n);
  switch (op) {
    case StreamOp::copy:
      stream_copy<<<grid, k_threads_per_block, 0, stream>>>(a, c, n);
      break;
    case StreamOp::scale:
      stream_scale<<<grid, k_threads_per_block, 0, stream>>>(b, c, scalar, n);
      break;
    case StreamOp::add:
      stream_add<<<grid, k_threads_per_block, 0, stream>>>(a, b, c, n);
      break;
    case StreamOp::triad:
      stream_triad<<<grid, k_threads_per_block, 0, stream>>>(a, b, c, scalar, n);
      break;
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace gpubench::kernels::memory
