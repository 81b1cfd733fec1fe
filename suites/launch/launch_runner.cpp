// Launch overhead: what the seed's "cut kernel launches" advice rests on.
//
// Host-side costs (enqueue, synchronisation round trips, graph vs one-by-one launches) are timed
// with the host's steady clock: they are host waits by nature, and the GPU work inside them is
// empty or tiny. GPU-side back-to-back time uses the shared spin-kernel batch timer (events).
// Launch-to-start relates the host clock to %globaltimer NTP-style before every sample.
#include "suites/launch/launch_runner.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/launch/launch.hpp"
#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/graph.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/cuda/preload.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/timing.hpp"
#include "suites/common/launch_ledger.hpp"
#include "suites/common/pinning.hpp"
#include "suites/common/sample_state_counters.hpp"

namespace gpubench::launch {

namespace cu = suite::cuda;
namespace kl = kernels::launch;

namespace {

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void check(int status) {
  GPUBENCH_CUDA_CHECK(static_cast<cudaError_t>(status));
}

const cu::DeviceProbe& probe() {
  static const cu::DeviceProbe p = cu::probe_devices();
  return p;
}

// Makes `device` current with its context waiting in the mode every case name states (sched:spin,
// launch_cases.hpp k_scheduling). The flags only take effect when the context is created, so the
// first case on a device creates it with cudaInitDevice(cudaDeviceScheduleSpin) before
// cudaSetDevice; every case then reads the flags back (cudaGetDeviceFlags) and fails rather than
// measure another mode under this name. Returns the label text.
std::string use_device_spinning(int device) {
  static std::set<int> initialised;
  if (initialised.count(device) == 0) {
    GPUBENCH_CUDA_CHECK(
        cudaInitDevice(device, cudaDeviceScheduleSpin, cudaInitDeviceFlagsAreValid));
    initialised.insert(device);
  }
  GPUBENCH_CUDA_CHECK(cudaSetDevice(device));
  unsigned int flags = 0;
  GPUBENCH_CUDA_CHECK(cudaGetDeviceFlags(&flags));
  if ((flags & cudaDeviceScheduleMask) != cudaDeviceScheduleSpin) {
    char text[64];
    std::snprintf(text, sizeof text, "0x%x", flags & cudaDeviceScheduleMask);
    throw std::runtime_error("device " + std::to_string(device) +
                             "'s context waits with scheduling flags " + text +
                             ", not cudaDeviceScheduleSpin (0x1) as the case name says");
  }
  return "sched: cudaDeviceScheduleSpin (read back with cudaGetDeviceFlags)";
}

// Host-timed sample of `calls` repetitions of `call`: seconds per call.
template <class Call>
double time_calls(int calls, Call&& call) {
  const std::int64_t t0 = now_ns();
  for (int i = 0; i < calls; ++i) call();
  return static_cast<double>(now_ns() - t0) / 1e9 / calls;
}

// The preload step of every case (launch_cases.hpp preload_kernels): each kernel once, outside any
// batch or capture, waited for, so no timed batch or capture is a kernel's first launch.
void preload(const LaunchCase& c, cudaStream_t stream) {
  cu::DeviceBuffer<unsigned long long> counter(1);
  cu::DeviceBuffer<std::uint64_t> stamp(1);
  cu::DeviceBuffer<kl::ClockSync> sync(1);
  for (const LaunchKernel k : preload_kernels(c)) {
    cu::preload_kernel(kernel_name(k), stream, [&] {
      switch (k) {
        case LaunchKernel::empty:
          return kl::launch_empty(stream);
        case LaunchKernel::stamp_start:
          return kl::launch_stamp_start(stamp.data(), stream);
        case LaunchKernel::add_one:
          return kl::launch_add_one(counter.data(), stream);
        case LaunchKernel::clock_sync:
          return kl::launch_clock_sync(sync.data(), 0, 0, stream);  // 0 rounds: returns at once
      }
      return 0;
    });
  }
}

void run_back_to_back(benchmark::State& state, const LaunchCase& c, const cu::DeviceInfo& info,
                      cudaStream_t stream) {
  cu::BatchTimer timer(stream, info.clock_khz, static_cast<std::size_t>(info.l2_bytes));
  const int device = cu::current_device();
  double enqueue_s = 0;
  auto enqueue = [&] {
    // Noted once per batch, outside the host clock: enqueue_us is the launch calls alone.
    suite::LaunchLedger::process().note(device, kernel_name(LaunchKernel::empty));
    const std::int64_t t0 = now_ns();
    for (int k = 0; k < c.kernels; ++k) check(kl::launch_empty(stream));
    enqueue_s = static_cast<double>(now_ns() - t0) / 1e9;
  };
  (void)timer.time_batch(enqueue, cu::CacheState::hot);  // warm-up (the kernel is preloaded)
  std::vector<double> host_us, gpu_us;
  suite::SampleStateRecorder states;  // clock and time window; the harness judges the state
  for (auto _ : state) {
    const double start_s = suite::SampleStateRecorder::now_s();
    const cu::BatchSample s = timer.time_batch(enqueue, cu::CacheState::hot);
    states.add(s.sm_clock_mhz, start_s, suite::SampleStateRecorder::now_s());
    state.SetIterationTime(s.elapsed_ms / 1e3);
    host_us.push_back(enqueue_s / c.kernels * 1e6);
    gpu_us.push_back(s.elapsed_ms * 1e3 / c.kernels);
  }
  state.counters["enqueue_us"] = median(host_us);
  state.counters["us_per_kernel"] = median(gpu_us);
  states.write(state);
}

// Pings the clock_sync kernel `rounds` times; nullopt when the GPU never answered.
std::optional<ClockOffset> sync_clocks(cu::PinnedBuffer<kl::ClockSync>& sync, cudaStream_t stream) {
  constexpr int k_rounds = 32;
  constexpr std::int64_t k_host_timeout_ns = 2'000'000'000;
  kl::ClockSync* s = sync.data();
  s->ping = 0;
  s->pong = 0;
  s->timed_out = 0;
  check(kl::launch_clock_sync(sync.device_pointer(), k_rounds, 1'000'000'000ull, stream));
  std::vector<ClockPing> pings;
  for (int k = 1; k <= k_rounds; ++k) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const std::int64_t send = now_ns();
    s->ping = static_cast<std::uint32_t>(k);
    while (s->pong != static_cast<std::uint32_t>(k)) {
      if (s->timed_out != 0 || now_ns() - send > k_host_timeout_ns) break;
    }
    const std::int64_t receive = now_ns();
    if (s->pong != static_cast<std::uint32_t>(k)) break;
    pings.push_back({send, receive, static_cast<std::int64_t>(s->gpu_ns[k - 1])});
  }
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return estimate_clock_offset(pings);
}

void run_launch_to_start(benchmark::State& state, cudaStream_t stream,
                         const std::string& setup_label) {
  constexpr int k_launches_per_sample = 20;
  cu::PinnedBuffer<kl::ClockSync> sync(1, cu::HostMapping::mapped);
  cu::PinnedBuffer<std::uint64_t> stamp(1, cu::HostMapping::mapped);
  // Warm-up: the first launch after the preload, so the first sample times a warm path.
  check(kl::launch_stamp_start(stamp.device_pointer(), stream));
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> latencies_us, uncertainties_us;
  std::int64_t tick_ns = 0;  // the coarsest %globaltimer tick seen
  for (auto _ : state) {
    const auto offset = sync_clocks(sync, stream);
    if (!offset) {
      suite::fail(state, "the GPU did not answer the clock-sync pings (mapped memory polling)");
      return;
    }
    std::vector<double> sample;
    for (int i = 0; i < k_launches_per_sample; ++i) {
      *stamp.data() = 0;
      const std::int64_t before = now_ns();
      check(kl::launch_stamp_start(stamp.device_pointer(), stream));
      GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
      const auto gpu_start = static_cast<std::int64_t>(*stamp.data());
      const double us = launch_to_start_us(before, gpu_start, *offset);
      // A start before the call, beyond what the clock relation allows, means it is broken.
      if (gpu_start == 0 || us < -static_cast<double>(offset->uncertainty_ns) / 1e3) {
        suite::fail(state, "launch-to-start of " + std::to_string(us) +
                               " us is impossible (clock uncertainty " +
                               std::to_string(offset->uncertainty_ns / 1e3) + " us)");
        return;
      }
      sample.push_back(us);
    }
    const double m = median(sample);
    state.SetIterationTime(m / 1e6);
    latencies_us.push_back(m);
    uncertainties_us.push_back(static_cast<double>(offset->uncertainty_ns) / 1e3);
    tick_ns = std::max(tick_ns, offset->timer_tick_ns);
  }
  state.counters["launch_to_start_us"] = median(latencies_us);
  char label[160];
  std::snprintf(label, sizeof label,
                "host clock related to %%globaltimer within +-%.2f us (median of samples; "
                "includes the timer's %lld ns tick)",
                median(uncertainties_us), static_cast<long long>(tick_ns));
  state.SetLabel(std::string(label) + "; " + setup_label);
}

template <class Call>
void run_host_timed(benchmark::State& state, Call&& call) {
  (void)time_calls(k_calls_per_sample, call);  // warm-up
  std::vector<double> per_call_us;
  for (auto _ : state) {
    const double s = time_calls(k_calls_per_sample, call);
    state.SetIterationTime(s);
    per_call_us.push_back(s * 1e6);
  }
  state.counters["us_per_call"] = median(per_call_us);
}

void run_memcpy_4_bytes(benchmark::State& state, bool h2d, cudaStream_t stream) {
  cu::PinnedBuffer<std::uint32_t> host(1, cu::HostMapping::unmapped);
  cu::DeviceBuffer<std::uint32_t> dev(1);
  std::uint32_t value = 0x600dcafe;
  *host.data() = value;
  GPUBENCH_CUDA_CHECK(cudaMemcpy(dev.data(), host.data(), 4, cudaMemcpyHostToDevice));
  if (!h2d) *host.data() = 0;
  auto call = [&] {
    if (h2d) {
      GPUBENCH_CUDA_CHECK(
          cudaMemcpyAsync(dev.data(), host.data(), 4, cudaMemcpyHostToDevice, stream));
    } else {
      GPUBENCH_CUDA_CHECK(
          cudaMemcpyAsync(host.data(), dev.data(), 4, cudaMemcpyDeviceToHost, stream));
    }
    GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  };
  run_host_timed(state, call);
  std::uint32_t got = 0;
  if (h2d) {
    GPUBENCH_CUDA_CHECK(cudaMemcpy(&got, dev.data(), 4, cudaMemcpyDeviceToHost));
  } else {
    got = *host.data();
  }
  if (got != value) suite::fail(state, "validation failed: the 4 bytes copied differ");
}

void run_chain(benchmark::State& state, const LaunchCase& c, cudaStream_t stream) {
  cu::DeviceBuffer<unsigned long long> counter(1);
  GPUBENCH_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(unsigned long long), stream));
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  auto chain = [&] {
    for (int k = 0; k < c.kernels; ++k) check(kl::launch_add_one(counter.data(), stream));
  };
  const int device = cu::current_device();
  const cu::Graph graph = cu::Graph::capture(stream, [&] {
    suite::LaunchLedger::process().note(device, kernel_name(LaunchKernel::add_one));
    chain();
  });
  const cu::GraphExec exec = cu::GraphExec::instantiate(graph);
  unsigned long long expected = 0;
  auto one_by_one = [&] {
    const std::int64_t t0 = now_ns();
    chain();
    GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    expected += static_cast<unsigned long long>(c.kernels);
    return static_cast<double>(now_ns() - t0) / 1e9;
  };
  auto replay = [&] {
    const std::int64_t t0 = now_ns();
    exec.launch(stream);
    GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    expected += static_cast<unsigned long long>(c.kernels);
    return static_cast<double>(now_ns() - t0) / 1e9;
  };
  (void)one_by_one();  // warm-up both (the first graph launch uploads it)
  (void)replay();
  std::vector<double> stream_us, graph_us;
  for (auto _ : state) {
    const double s = one_by_one();
    const double g = replay();
    state.SetIterationTime(g);
    stream_us.push_back(s * 1e6 / c.kernels);
    graph_us.push_back(g * 1e6 / c.kernels);
  }
  unsigned long long got = 0;
  GPUBENCH_CUDA_CHECK(cudaMemcpy(&got, counter.data(), sizeof got, cudaMemcpyDeviceToHost));
  if (got != expected) {
    suite::fail(state, "validation failed: the chain's counter is " + std::to_string(got) +
                           ", expected " + std::to_string(expected));
    return;
  }
  const double s = median(stream_us), g = median(graph_us);
  state.counters["us_per_kernel_stream"] = s;
  state.counters["us_per_kernel_graph"] = g;
  state.counters["graph_speedup"] = graph_speedup(s, g);
}

}  // namespace

const std::string& device_unavailable_reason() {
  return probe().reason;
}

int device_count() {
  return probe().count;
}

void run_case(benchmark::State& state, const LaunchCase& c) {
  if (!probe().reason.empty()) {
    suite::skip(state, probe().reason);
    return;
  }
  suite::run_guarded(state, case_name(c), [&] {
    // The thread was moved to its CPU before this body ran (register_timed's before-each-case
    // hook, installed by main): before the context that use_device_spinning may create.
    std::string label = use_device_spinning(c.device);
    if (const suite::DevicePinning* pinning = suite::device_pinning()) {
      label += "; " + pinning->label(c.device);
    }
    state.SetLabel(label);
    const cu::DeviceInfo info = cu::query_device(c.device);
    cu::Stream stream = cu::Stream::create();
    preload(c, stream.get());
    switch (c.kind) {
      case LaunchCaseKind::back_to_back:
        run_back_to_back(state, c, info, stream.get());
        break;
      case LaunchCaseKind::launch_to_start:
        run_launch_to_start(state, stream.get(), label);
        break;
      case LaunchCaseKind::stream_synchronize:
        run_host_timed(state, [&] { GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream.get())); });
        break;
      case LaunchCaseKind::launch_synchronize:
        run_host_timed(state, [&] {
          check(kl::launch_empty(stream.get()));
          GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        });
        break;
      case LaunchCaseKind::event_record_synchronize: {
        cu::Event event = cu::Event::create();
        run_host_timed(state, [&] {
          event.record(stream.get());
          event.synchronize();
        });
        break;
      }
      case LaunchCaseKind::memcpy_h2d_4_bytes:
      case LaunchCaseKind::memcpy_d2h_4_bytes:
        run_memcpy_4_bytes(state, c.kind == LaunchCaseKind::memcpy_h2d_4_bytes, stream.get());
        break;
      case LaunchCaseKind::kernel_chain:
        run_chain(state, c, stream.get());
        break;
    }
  });
}

}  // namespace gpubench::launch
