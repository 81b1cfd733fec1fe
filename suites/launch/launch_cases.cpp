#include "suites/launch/launch_cases.hpp"

#include <algorithm>
#include <numeric>

namespace gpubench::launch {

std::string case_name(const LaunchCase& c) {
  std::string name = "launch/";
  switch (c.kind) {
    case LaunchCaseKind::back_to_back:
      name += "back_to_back/kernels:" + std::to_string(c.kernels);
      break;
    case LaunchCaseKind::launch_to_start:
      name += "launch_to_start";
      break;
    case LaunchCaseKind::stream_synchronize:
      name += "stream_synchronize";
      break;
    case LaunchCaseKind::launch_synchronize:
      name += "launch_synchronize";
      break;
    case LaunchCaseKind::event_record_synchronize:
      name += "event_record_synchronize";
      break;
    case LaunchCaseKind::memcpy_h2d_4_bytes:
      name += "memcpy_4_bytes/dir:h2d";
      break;
    case LaunchCaseKind::memcpy_d2h_4_bytes:
      name += "memcpy_4_bytes/dir:d2h";
      break;
    case LaunchCaseKind::kernel_chain:
      name += "kernel_chain/kernels:" + std::to_string(c.kernels);
      break;
  }
  return name + "/sched:" + k_scheduling + "/device:" + std::to_string(c.device);
}

std::vector<int> chain_lengths(suite::Profile) {
  return {1, 10, 100, 1000};
}

std::vector<LaunchCase> all_cases(suite::Profile profile, const std::vector<int>& devices) {
  std::vector<LaunchCase> out;
  for (int d : devices) {
    out.push_back({LaunchCaseKind::back_to_back, k_back_to_back_kernels, d});
    for (LaunchCaseKind k :
         {LaunchCaseKind::launch_to_start, LaunchCaseKind::stream_synchronize,
          LaunchCaseKind::launch_synchronize, LaunchCaseKind::event_record_synchronize,
          LaunchCaseKind::memcpy_h2d_4_bytes, LaunchCaseKind::memcpy_d2h_4_bytes}) {
      out.push_back({k, 0, d});
    }
    for (int n : chain_lengths(profile)) out.push_back({LaunchCaseKind::kernel_chain, n, d});
  }
  return out;
}

const char* kernel_name(LaunchKernel k) {
  switch (k) {
    case LaunchKernel::empty:
      return "launch::empty";
    case LaunchKernel::stamp_start:
      return "launch::stamp_start";
    case LaunchKernel::add_one:
      return "launch::add_one";
    case LaunchKernel::clock_sync:
      return "launch::clock_sync";
  }
  return "launch::?";
}

std::vector<LaunchKernel> gated_kernels(const LaunchCase& c) {
  switch (c.kind) {
    case LaunchCaseKind::back_to_back:
      return {LaunchKernel::empty};  // queued behind the spin kernel
    case LaunchCaseKind::kernel_chain:
      return {LaunchKernel::add_one};  // captured into the graph
    case LaunchCaseKind::launch_to_start:
    case LaunchCaseKind::stream_synchronize:
    case LaunchCaseKind::launch_synchronize:
    case LaunchCaseKind::event_record_synchronize:
    case LaunchCaseKind::memcpy_h2d_4_bytes:
    case LaunchCaseKind::memcpy_d2h_4_bytes:
      return {};  // host-timed on an idle stream
  }
  return {};
}

std::vector<LaunchKernel> preload_kernels(const LaunchCase&) {
  return {LaunchKernel::empty, LaunchKernel::stamp_start, LaunchKernel::add_one,
          LaunchKernel::clock_sync};
}

std::optional<ClockOffset> estimate_clock_offset(const std::vector<ClockPing>& pings) {
  const ClockPing* best = nullptr;
  for (const auto& p : pings) {
    const std::int64_t rtt = p.host_receive_ns - p.host_send_ns;
    if (rtt < 0) continue;
    if (!best || rtt < best->host_receive_ns - best->host_send_ns) best = &p;
  }
  if (!best) return std::nullopt;
  ClockOffset o;
  const std::int64_t rtt = best->host_receive_ns - best->host_send_ns;
  // The GPU saw the ping somewhere inside the round trip; the middle is the best guess.
  o.offset_ns = best->gpu_ns - (best->host_send_ns + rtt / 2);
  std::vector<std::int64_t> stamps;
  for (const auto& p : pings) {
    if (p.host_receive_ns >= p.host_send_ns) stamps.push_back(p.gpu_ns);
  }
  o.timer_tick_ns = globaltimer_tick_ns(stamps);
  o.uncertainty_ns = (rtt + 1) / 2 + o.timer_tick_ns;
  return o;
}

std::int64_t globaltimer_tick_ns(const std::vector<std::int64_t>& gpu_stamps_ns) {
  std::int64_t tick = 0;
  for (std::size_t i = 1; i < gpu_stamps_ns.size(); ++i) {
    const std::int64_t d = gpu_stamps_ns[i] - gpu_stamps_ns[i - 1];
    tick = std::gcd(tick, d < 0 ? -d : d);
  }
  return tick == 0 ? k_max_globaltimer_tick_ns : std::min(tick, k_max_globaltimer_tick_ns);
}

double launch_to_start_us(std::int64_t host_before_launch_ns, std::int64_t gpu_start_ns,
                          const ClockOffset& offset) {
  const std::int64_t start_in_host_time = gpu_start_ns - offset.offset_ns;
  return static_cast<double>(start_in_host_time - host_before_launch_ns) / 1e3;
}

double graph_speedup(double us_per_kernel_stream, double us_per_kernel_graph) {
  return us_per_kernel_graph > 0 ? us_per_kernel_stream / us_per_kernel_graph : 0.0;
}

}  // namespace gpubench::launch
