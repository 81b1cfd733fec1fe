// STREAM kernels on the GPU (see stream.hpp for the operations, their byte counting and the
// tiling of the vector kernels).
//
//   stream_init      writes the initial pattern (the first touch happens on the device)
//   stream_vector<op>  the four operations on 16-byte vectors, k_stream_unroll per thread and round,
//                    all loads of a round before its stores (stream.hpp "tiling"): the default
//   stream_copy      c = a          one double per thread and step: a grid-stride loop over n
//   stream_scale     b = q c        doubles, thread t handling t, t + G, t + 2G, ... (G = total
//   stream_add       c = a + b      threads); used only for pointers that are not 16-byte aligned
//   stream_triad     a = b + q c
// Consecutive threads touch consecutive doubles (or vectors), so every warp's accesses coalesce
// into full 32-byte sectors. No synchronisation between threads is needed: every element is read
// and written by exactly one thread.
#include <cuda_runtime.h>

#include <cstdint>

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

// One pass of `Op` on 16-byte vectors (stream.hpp "tiling"). In each round a thread first loads
// the vectors of its k_stream_unroll slots (indices past the end are skipped), then computes and
// stores them: the loads of a round are independent, so the memory system sees all of them at once.
template <StreamOp Op>
__global__ void stream_vector(double* __restrict__ a, double* __restrict__ b,
                              double* __restrict__ c, double q, std::size_t n) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t vectors = stream_vectors(n);
  double2* a2 = reinterpret_cast<double2*>(a);
  double2* b2 = reinterpret_cast<double2*>(b);
  double2* c2 = reinterpret_cast<double2*>(c);
  for (std::size_t round = 0; stream_vector_index(thread, threads, round, 0) < vectors; ++round) {
    double2 x[k_stream_unroll];
    double2 y[k_stream_unroll];
#pragma unroll
    for (std::size_t k = 0; k < k_stream_unroll; ++k) {
      const std::size_t v = stream_vector_index(thread, threads, round, k);
      if (v >= vectors) continue;
      if constexpr (Op == StreamOp::copy) {
        x[k] = a2[v];
      } else if constexpr (Op == StreamOp::scale) {
        x[k] = c2[v];
      } else if constexpr (Op == StreamOp::add) {
        x[k] = a2[v];
        y[k] = b2[v];
      } else {
        x[k] = b2[v];
        y[k] = c2[v];
      }
    }
#pragma unroll
    for (std::size_t k = 0; k < k_stream_unroll; ++k) {
      const std::size_t v = stream_vector_index(thread, threads, round, k);
      if (v >= vectors) continue;
      if constexpr (Op == StreamOp::copy) {
        c2[v] = x[k];
      } else if constexpr (Op == StreamOp::scale) {
        b2[v] = make_double2(q * x[k].x, q * x[k].y);
      } else if constexpr (Op == StreamOp::add) {
        c2[v] = make_double2(x[k].x + y[k].x, x[k].y + y[k].y);
      } else {
        a2[v] = make_double2(x[k].x + q * y[k].x, x[k].y + q * y[k].y);
      }
    }
  }
  // The last double of an odd n: one thread, the scalar recurrence.
  if (thread == 0 && n % k_stream_vector_doubles != 0) {
    const std::size_t i = n - 1;
    if constexpr (Op == StreamOp::copy) {
      c[i] = a[i];
    } else if constexpr (Op == StreamOp::scale) {
      b[i] = q * c[i];
    } else if constexpr (Op == StreamOp::add) {
      c[i] = a[i] + b[i];
    } else {
      a[i] = b[i] + q * c[i];
    }
  }
}

int sm_count() {
  int device = 0;
  int sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      sms <= 0) {
    sms = 1;
  }
  return sms;
}

// A few blocks per SM, fewer when `work_items` (one per thread) would leave blocks idle.
int default_blocks(std::size_t work_items) {
  const std::size_t needed = (work_items + k_threads_per_block - 1) / k_threads_per_block;
  const std::size_t wanted = static_cast<std::size_t>(sm_count()) * k_default_blocks_per_sm;
  const std::size_t blocks = needed < wanted ? needed : wanted;
  return blocks == 0 ? 1 : static_cast<int>(blocks);
}

bool aligned_16(const double* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

int launch_stream_init(double* a, double* b, double* c, std::size_t n, CUstream_st* stream) {
  stream_init<<<default_blocks(n), k_threads_per_block, 0, stream>>>(a, b, c, n);
  return static_cast<int>(cudaGetLastError());
}

int launch_stream_op(StreamOp op, double* a, double* b, double* c, double scalar, std::size_t n,
                     int blocks, CUstream_st* stream) {
  if (aligned_16(a) && aligned_16(b) && aligned_16(c)) {
    // One thread per k_stream_unroll vectors of a round: enough threads for one round at most.
    const std::size_t per_thread = k_stream_vector_doubles * k_stream_unroll;
    const int grid = blocks > 0 ? blocks : default_blocks((n + per_thread - 1) / per_thread);
    switch (op) {
      case StreamOp::copy:
        stream_vector<StreamOp::copy><<<grid, k_threads_per_block, 0, stream>>>(a, b, c, scalar, n);
        break;
      case StreamOp::scale:
        stream_vector<StreamOp::scale><<<grid, k_threads_per_block, 0, stream>>>(a, b, c, scalar,
                                                                                 n);
        break;
      case StreamOp::add:
        stream_vector<StreamOp::add><<<grid, k_threads_per_block, 0, stream>>>(a, b, c, scalar, n);
        break;
      case StreamOp::triad:
        stream_vector<StreamOp::triad><<<grid, k_threads_per_block, 0, stream>>>(a, b, c, scalar,
                                                                                 n);
        break;
    }
    return static_cast<int>(cudaGetLastError());
  }
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
