// Kernels of the `launch` suite. This header includes no CUDA header.
//
// Variants:
//   empty         does nothing: what a launch costs when the kernel itself costs nothing.
//   stamp_start   one thread writes %globaltimer (ns) when it starts: launch-to-start latency.
//   add_one       one thread adds 1 to a device counter: the "small kernel" of a chain; after a
//                 chain of N launches the counter has grown by exactly N (the validation).
//   clock_sync    one thread answers `rounds` pings from the host through mapped memory, stamping
//                 %globaltimer at each, so the host can relate its clock to the GPU's (NTP-style).
#pragma once

#include <cstdint>

struct CUstream_st;

namespace gpubench::kernels::launch {

// Mapped host memory shared by clock_sync and the host. The host writes ping = k (k = 1..rounds);
// the kernel stamps gpu_ns[k - 1] and writes pong = k.
struct ClockSync {
  volatile std::uint32_t ping;
  volatile std::uint32_t pong;
  volatile std::uint32_t timed_out;
  std::uint32_t padding;
  volatile std::uint64_t gpu_ns[64];
};
inline constexpr int k_max_clock_sync_rounds = 64;

// Launchers return the launch's cudaError_t as an int (0 = success) and only queue work.
int launch_empty(CUstream_st* stream);
// out: device or mapped host address receiving the start time in ns.
int launch_stamp_start(std::uint64_t* out, CUstream_st* stream);
int launch_add_one(unsigned long long* counter, CUstream_st* stream);
// sync: the device address of a mapped ClockSync; gives up after timeout_ns without a ping.
int launch_clock_sync(ClockSync* sync, int rounds, std::uint64_t timeout_ns, CUstream_st* stream);

}  // namespace gpubench::kernels::launch
