// Timing helpers that run on the device (spin.cu):
//   spin_wait    one thread that holds a stream until the host sets a flag in mapped host memory,
//                so a whole batch of work can be queued behind it and launch latency stays out of
//                the timed interval (METHODOLOGY rule 1). It gives up after `timeout_ns` and says
//                so, so a host-side bug can never hang the GPU.
//   clock_probe  one thread that counts SM clock cycles (clock64) against the global nanosecond
//                timer (%globaltimer) for `duration_ns`: cycles / ns = the SM clock it ran at.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpubench::kernels {

// Written by clock_probe (device or mapped host memory).
struct ClockProbe {
  unsigned long long cycles;  // SM clock cycles elapsed
  unsigned long long ns;      // global timer nanoseconds elapsed
};

// flag: device address of a mapped host int; the kernel returns once it reads non-zero.
// timed_out: device address of a mapped host int set to 1 if the timeout ended the wait.
cudaError_t launch_spin_wait(const volatile int* flag, std::uint64_t timeout_ns,
                             volatile int* timed_out, cudaStream_t stream);

// How long the suites' clock probe counts (ns). Each end point is taken at a tick of the global
// timer, but a tick is seen up to one poll late and ticks are as coarse as 1 us on some GPUs: an
// end-point error of 1 us is 1% of 100 us (2% of the 50 us used before), below the 1.5% by which
// the warm-up judges the clock steady and the 2% by which a sample is off the steady clock
// (suites/common/sampling.hpp). The probe runs after a batch's stop event, outside every timed
// interval; it costs 100 us of GPU time per batch.
inline constexpr std::uint64_t k_clock_probe_ns = 100'000;

// out: device address (device or mapped host memory) receiving the probe.
cudaError_t launch_clock_probe(std::uint64_t duration_ns, ClockProbe* out, cudaStream_t stream);

}  // namespace gpubench::kernels
