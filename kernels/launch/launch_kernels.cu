#include <cuda_runtime_api.h>

#include "kernels/launch/launch.hpp"

namespace gpubench::kernels::launch {

namespace {

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void empty_kernel() {}

__global__ void stamp_start_kernel(std::uint64_t* out) {
  *out = global_timer_ns();
  __threadfence_system();
}

__global__ void add_one_kernel(unsigned long long* counter) {
  *counter += 1;
}

// Polls the ping word without sleeping (the host waits on the pong, so the round trip is what we
// measure; a sleep would add its own granularity to it).
__global__ void clock_sync_kernel(ClockSync* sync, int rounds, std::uint64_t timeout_ns) {
  for (int k = 1; k <= rounds; ++k) {
    const std::uint64_t start = global_timer_ns();
    std::uint64_t now = start;
    while (sync->ping != static_cast<std::uint32_t>(k)) {
      now = global_timer_ns();
      if (now - start > timeout_ns) {
        sync->timed_out = 1;
        __threadfence_system();
        return;
      }
    }
    sync->gpu_ns[k - 1] = global_timer_ns();
    __threadfence_system();
    sync->pong = static_cast<std::uint32_t>(k);
    __threadfence_system();
  }
}

}  // namespace

int launch_empty(CUstream_st* stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  return static_cast<int>(cudaGetLastError());
}

int launch_stamp_start(std::uint64_t* out, CUstream_st* stream) {
  stamp_start_kernel<<<1, 1, 0, stream>>>(out);
  return static_cast<int>(cudaGetLastError());
}

int launch_add_one(unsigned long long* counter, CUstream_st* stream) {
  add_one_kernel<<<1, 1, 0, stream>>>(counter);
  return static_cast<int>(cudaGetLastError());
}

int launch_clock_sync(ClockSync* sync, int rounds, std::uint64_t timeout_ns, CUstream_st* stream) {
  if (rounds > k_max_clock_sync_rounds) rounds = k_max_clock_sync_rounds;
  clock_sync_kernel<<<1, 1, 0, stream>>>(sync, rounds, timeout_ns);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace gpubench::kernels::launch
