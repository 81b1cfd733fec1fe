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

// out: device address (device or mapped host memory) receiving the probe.
cudaError_t launch_clock_probe(std::uint64_t duration_ns, ClockProbe* out, cudaStream_t stream);

}  // namespace gpubench::kernels
