// The launch suite's case list, names and clock arithmetic. CUDA-free: unit-tested everywhere.
//
// Names: launch/<case>[/<param>:<value>...]/sched:spin/device:<d>
//   back_to_back/kernels:256           empty kernels queued behind the spin kernel: host cost of
//                                      each launch call (enqueue_us) and GPU time per kernel when
//                                      the queue is full (us_per_kernel)
//   launch_to_start                    from the host's launch call to the kernel's first
//                                      instruction (%globaltimer, host clock related to it
//                                      NTP-style)
//   stream_synchronize                 cudaStreamSynchronize on an idle stream
//   launch_synchronize                 one empty kernel + cudaStreamSynchronize (a synchronous
//                                      launch)
//   event_record_synchronize           cudaEventRecord + cudaEventSynchronize on an idle stream
//   memcpy_4_bytes/dir:h2d|d2h         cudaMemcpyAsync of 4 bytes (pinned) +
//                                      cudaStreamSynchronize
//   kernel_chain/kernels:N             N small kernels launched one by one vs the same chain
//                                      captured once as a CUDA Graph and replayed
// sched:spin: how the host thread waits for the GPU (k_scheduling).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "suites/common/suite_support.hpp"
#include "util/median.hpp"  // median(), for the runners and their tests

namespace gpubench::launch {

enum class LaunchCaseKind {
  back_to_back,
  launch_to_start,
  stream_synchronize,
  launch_synchronize,
  event_record_synchronize,
  memcpy_h2d_4_bytes,
  memcpy_d2h_4_bytes,
  kernel_chain
};

struct LaunchCase {
  LaunchCaseKind kind = LaunchCaseKind::back_to_back;
  int kernels = 0;  // back_to_back and kernel_chain
  int device = 0;
};

std::string case_name(const LaunchCase& c);

// How the host thread waits for the GPU in every case, named in every case name ("sched:spin"):
// each device's context is created with cudaDeviceScheduleSpin (the thread spins in the
// synchronising calls rather than yielding or sleeping). One mode only: measuring the default
// (cudaDeviceScheduleAuto) as well would double the cases' time (about +12 s in quick and +20 s
// in standard on 8 GPUs, where the run plan allows +3 s and +2 s), and Auto is the driver's
// heuristic (spin while the process has no more contexts than the system has logical processors,
// else yield): on a server it spins too, but the documentation does not say which "logical
// processors" count for a thread pinned to one CPU. Spin is the same everywhere.
// suites/launch/README.md "Scheduling mode and pinning".
inline constexpr const char* k_scheduling = "spin";

// Chain lengths of kernel_chain (every profile: they are cheap).
std::vector<int> chain_lengths(suite::Profile profile);
// Kernels per back-to-back batch: below the timer's ~500-launch limit on one batch.
inline constexpr int k_back_to_back_kernels = 256;
// Host-timed calls per sample of the synchronisation cases.
inline constexpr int k_calls_per_sample = 200;

std::vector<LaunchCase> all_cases(suite::Profile profile, const std::vector<int>& devices);

// The suite's kernels (kernels/launch/launch.hpp).
enum class LaunchKernel { empty, stamp_start, add_one, clock_sync };
// Stable ledger name, e.g. "launch::empty" (suites/common/launch_ledger.hpp).
const char* kernel_name(LaunchKernel k);
// Kernels the case queues behind the spin kernel or inside stream capture: each must have been
// launched once before on the device (a first launch there can wait on a lazy module load that
// never finishes behind the spin kernel).
std::vector<LaunchKernel> gated_kernels(const LaunchCase& c);
// Kernels the case launches once, outside any batch or capture, before timing (its preload step):
// every kernel of the suite, so each case also starts with its modules loaded (a few microseconds).
std::vector<LaunchKernel> preload_kernels(const LaunchCase& c);

// One host <-> GPU ping: the host's clock (ns) when it wrote the ping and when it saw the answer,
// and the GPU's %globaltimer (ns) when the GPU saw the ping.
struct ClockPing {
  std::int64_t host_send_ns = 0;
  std::int64_t host_receive_ns = 0;
  std::int64_t gpu_ns = 0;
};
// gpu_time = host_time + offset_ns, within +- uncertainty_ns: half the round trip of the ping
// used (the one with the shortest round trip, as NTP does) plus one %globaltimer tick, since the
// ping's stamp and a later start stamp are each read from a timer that advances in ticks.
struct ClockOffset {
  std::int64_t offset_ns = 0;
  std::int64_t uncertainty_ns = 0;
  std::int64_t timer_tick_ns = 0;  // the tick included in uncertainty_ns
};
// %globaltimer advances in steps of up to 1 us on some GPUs (32 ns or finer on others).
inline constexpr std::int64_t k_max_globaltimer_tick_ns = 1'000;
// The timer's tick from stamps it gave: the greatest common divisor of their differences, at most
// k_max_globaltimer_tick_ns (which is also the answer when fewer than two stamps differ).
std::int64_t globaltimer_tick_ns(const std::vector<std::int64_t>& gpu_stamps_ns);
// nullopt when no ping has a non-negative round trip.
std::optional<ClockOffset> estimate_clock_offset(const std::vector<ClockPing>& pings);

// Launch-to-start in microseconds: the GPU's start stamp mapped to host time, minus the host time
// just before the launch call.
double launch_to_start_us(std::int64_t host_before_launch_ns, std::int64_t gpu_start_ns,
                          const ClockOffset& offset);

// Graph speed-up: time per kernel launched one by one over time per kernel replayed from a graph.
double graph_speedup(double us_per_kernel_stream, double us_per_kernel_graph);

}  // namespace gpubench::launch
