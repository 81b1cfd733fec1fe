// STREAM (McCalpin) operations shared by the host and device halves of the `memory` suite.
//
// This header includes no CUDA header: host code, the CPU reference and the kernels all use it.
//
// Variants (each one pass over arrays of n doubles; scalar q):
//   copy   c[i] = a[i]              2 arrays moved per pass (read a, write c)
//   scale  b[i] = q * c[i]          2 arrays
//   add    c[i] = a[i] + b[i]       3 arrays
//   triad  a[i] = b[i] + q * c[i]   3 arrays
// Byte counting follows STREAM: bytes per pass = arrays moved x n x sizeof(double); write-allocate
// traffic is not counted. GB/s is decimal (1e9 bytes per second).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#if defined(__CUDACC__)
#define GPUBENCH_HOST_DEVICE __host__ __device__
#else
#define GPUBENCH_HOST_DEVICE
#endif

// cudaStream_t is `struct CUstream_st*`; naming the struct keeps this header free of CUDA.
struct CUstream_st;

namespace gpubench::kernels::memory {

enum class StreamOp { copy, scale, add, triad };

inline constexpr StreamOp k_stream_ops[] = {StreamOp::copy, StreamOp::scale, StreamOp::add,
                                            StreamOp::triad};

// STREAM's scalar.
inline constexpr double k_stream_scalar = 3.0;

// "copy", "scale", "add", "triad".
const char* to_string(StreamOp op);
std::optional<StreamOp> stream_op_from_string(std::string_view text);

// Arrays touched per pass in STREAM's counting: 2 for copy/scale, 3 for add/triad.
constexpr int stream_arrays_moved(StreamOp op) {
  return (op == StreamOp::copy || op == StreamOp::scale) ? 2 : 3;
}

// Bytes one pass moves when each array holds `array_bytes` bytes (STREAM counting).
constexpr std::uint64_t stream_bytes_per_pass(StreamOp op, std::uint64_t array_bytes) {
  return static_cast<std::uint64_t>(stream_arrays_moved(op)) * array_bytes;
}

// The three values of one element position (a[i], b[i], c[i]).
struct StreamValues {
  double a = 0;
  double b = 0;
  double c = 0;
};

// Inputs repeat with this period so a misplaced or skipped chunk is visible in validation, while
// the expected results need only k_stream_pattern_period reference values.
inline constexpr std::uint64_t k_stream_pattern_period = 1024;

// Initial values of element i. Small multiples of a quarter: every operation above is exact in
// double precision, so a correct run matches the reference bit for bit. a and b are positive and
// c negative, so each operation's output differs from its destination's initial content (with
// q = 3: c = a > 0, b = 3c < 0, c = a + b > 0, a = b + 3c = 0.5 - 0.25k < 1 + k), and a pass that
// did not run is detected.
GPUBENCH_HOST_DEVICE constexpr StreamValues stream_initial_values(std::uint64_t i) {
  const double k = static_cast<double>(i % k_stream_pattern_period);
  return StreamValues{1.0 + k, 2.0 + 0.5 * k, -(0.25 * k + 0.5)};
}

// One pass of `op` on one element position (the scalar recurrence).
GPUBENCH_HOST_DEVICE constexpr StreamValues stream_apply(StreamOp op, StreamValues v, double q) {
  switch (op) {
    case StreamOp::copy:
      v.c = v.a;
      break;
    case StreamOp::scale:
      v.b = q * v.c;
      break;
    case StreamOp::add:
      v.c = v.a + v.b;
      break;
    case StreamOp::triad:
      v.a = v.b + q * v.c;
      break;
  }
  return v;
}

// --- the kernels' tiling (stream_kernels.cu), here so a host test can check it --------------------
// A one-double grid-stride loop keeps 8 bytes of loads per array in flight per thread: too little
// to cover HBM latency at 4.8 TB/s (issue 36: triad at 84% of peak alone, 59% after gemm). Each
// thread instead moves 16-byte vectors (two doubles: one 128-bit load or store) and
// k_stream_unroll of them per round, every load of a round issued before any store, so a round
// keeps 16 x 4 = 64 bytes per array in flight per thread. In each slot k of a round consecutive
// threads take consecutive vectors, so a warp's slot is 512 contiguous bytes (coalesced). The last
// double of an odd n is done by thread 0 alone. Pointers must be 16-byte aligned (cudaMalloc's
// are); the launcher falls back to the one-double kernels otherwise.
inline constexpr std::size_t k_stream_vector_doubles = 2;
inline constexpr std::size_t k_stream_unroll = 4;

// Vectors (pairs of doubles) of an array of n doubles.
GPUBENCH_HOST_DEVICE constexpr std::size_t stream_vectors(std::size_t n) {
  return n / k_stream_vector_doubles;
}

// The vector thread `thread` of `threads` moves in slot k (< k_stream_unroll) of round `round`.
// Every vector index v is reached exactly once: v = (round * unroll + k) * threads + thread.
GPUBENCH_HOST_DEVICE constexpr std::size_t stream_vector_index(std::size_t thread,
                                                               std::size_t threads,
                                                               std::size_t round, std::size_t k) {
  return (round * k_stream_unroll + k) * threads + thread;
}

// --- device launchers (defined in stream_kernels.cu; only built with CUDA) ----------------------
// All pointers are device pointers to n doubles; the launch is asynchronous on `stream` (nullptr =
// the legacy default stream). Returns the launch's cudaError_t as an int (0 = success), so callers
// go through their own checking macro without this header including CUDA.

// Writes stream_initial_values(i) into a, b, c.
int launch_stream_init(double* a, double* b, double* c, std::size_t n, CUstream_st* stream);
// One pass of `op`. `blocks` = 0 picks a grid of a few blocks per SM, fewer for small arrays
// (the vector tiling above; the one-double grid-stride loop for pointers not 16-byte aligned).
int launch_stream_op(StreamOp op, double* a, double* b, double* c, double scalar, std::size_t n,
                     int blocks, CUstream_st* stream);

}  // namespace gpubench::kernels::memory
