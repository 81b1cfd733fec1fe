// The launch suite's case list, names and clock arithmetic. CUDA-free: unit-tested everywhere.
//
// Names: launch/<case>[/<param>:<value>...]/device:<d>
//   back_to_back/kernels:256          empty kernels queued behind the spin kernel: host cost of
//                                     each launch call (enqueue_us) and GPU time per kernel when
//                                     the queue is full (us_per_kernel)
//   launch_to_start                   from the host's launch call to the kernel's first
//                                     instruction (%globaltimer, host clock related to it
//                                     NTP-style)
//   stream_synchronize                cudaStreamSynchronize on an idle stream
//   launch_synchronize                one empty kernel + cudaStreamSynchronize (a synchronous
//   launch) event_record_synchronize          cudaEventRecord + cudaEventSynchronize on an idle
//   stream memcpy_4_bytes/dir:h2d|d2h        cudaMemcpyAsync of 4 bytes (pinned) +
//   cudaStreamSynchronize kernel_chain/kernels:N            N small kernels launched one by one vs
//   the same chain
//                                     captured once as a CUDA Graph and replayed
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "suites/common/suite_support.hpp"

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

// Chain lengths of kernel_chain (every profile: they are cheap).
std::vector<int> chain_lengths(suite::Profile profile);
// Kernels per back-to-back batch: below the timer's ~500-launch limit on one batch.
inline constexpr int k_back_to_back_kernels = 256;
// Host-timed calls per sample of the synchronisation cases.
inline constexpr int k_calls_per_sample = 200;

std::vector<LaunchCase> all_cases(suite::Profile profile, const std::vector<int>& devices);

// One host <-> GPU ping: the host's clock (ns) when it wrote the ping and when it saw the answer,
// and the GPU's %globaltimer (ns) when the GPU saw the ping.
struct ClockPing {
  std::int64_t host_send_ns = 0;
  std::int64_t host_receive_ns = 0;
  std::int64_t gpu_ns = 0;
};
// gpu_time = host_time + offset_ns, within +- uncertainty_ns (half the round trip of the ping
// used: the one with the shortest round trip, as NTP does).
struct ClockOffset {
  std::int64_t offset_ns = 0;
  std::int64_t uncertainty_ns = 0;
};
// nullopt when no ping has a non-negative round trip.
std::optional<ClockOffset> estimate_clock_offset(const std::vector<ClockPing>& pings);

// Launch-to-start in microseconds: the GPU's start stamp mapped to host time, minus the host time
// just before the launch call.
double launch_to_start_us(std::int64_t host_before_launch_ns, std::int64_t gpu_start_ns,
                          const ClockOffset& offset);

// Graph speed-up: time per kernel launched one by one over time per kernel replayed from a graph.
double graph_speedup(double us_per_kernel_stream, double us_per_kernel_graph);

double median(std::vector<double> values);

}  // namespace gpubench::launch
