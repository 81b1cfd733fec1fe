#include "kernels/common/spin.hpp"

namespace gpubench::kernels {

namespace {

__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread. Polls the host-mapped flag (each volatile read crosses PCIe/C2C, so sleep briefly
// between polls to keep the traffic negligible).
__global__ void spin_wait_kernel(const volatile int* flag, unsigned long long timeout_ns,
                                 volatile int* timed_out) {
  const unsigned long long start = global_timer_ns();
  while (*flag == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      __threadfence_system();
      return;
    }
    __nanosleep(200);
  }
}

// One thread. Both end points are taken at a tick of the global timer (whose update interval can
// be as coarse as 1 us on some GPUs), so the timer's resolution does not bias the ratio. A cycle
// budget (~2 s at 2 GHz) ends the loop even if the timer never advanced; ns is then 0.
__global__ void clock_probe_kernel(unsigned long long duration_ns, ClockProbe* out) {
  constexpr long long k_cycle_budget = 4'000'000'000ll;
  const long long start_cycles = clock64();
  const unsigned long long first = global_timer_ns();
  unsigned long long t0 = first;
  while (t0 == first && clock64() - start_cycles < k_cycle_budget) t0 = global_timer_ns();
  const long long c0 = clock64();
  unsigned long long t1 = t0;
  long long c1 = c0;
  while (t1 - t0 < duration_ns && c1 - start_cycles < k_cycle_budget) {
    const unsigned long long t = global_timer_ns();
    const long long c = clock64();
    if (t != t1) {  // a tick: record the pair read at it
      t1 = t;
      c1 = c;
    } else if (c - start_cycles >= k_cycle_budget) {
      break;
    }
  }
  out->cycles = static_cast<unsigned long long>(c1 - c0);
  out->ns = t1 - t0;
  __threadfence_system();
}

}  // namespace

cudaError_t launch_spin_wait(const volatile int* flag, std::uint64_t timeout_ns,
                             volatile int* timed_out, cudaStream_t stream) {
  spin_wait_kernel<<<1, 1, 0, stream>>>(flag, timeout_ns, timed_out);
  return cudaGetLastError();
}

cudaError_t launch_clock_probe(std::uint64_t duration_ns, ClockProbe* out, cudaStream_t stream) {
  clock_probe_kernel<<<1, 1, 0, stream>>>(duration_ns, out);
  return cudaGetLastError();
}

}  // namespace gpubench::kernels
