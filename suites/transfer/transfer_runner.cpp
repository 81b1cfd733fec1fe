// Host<->device and device-local cases of the transfer suite (METHODOLOGY rule 10).
//
// Every timed sample is a batch of `copies_per_sample` copies queued behind the spin kernel and
// timed with events (pinned, write-combined, mapped/SM, device-local). Pageable copies cannot be
// queued behind a spin kernel: the driver stages them through its own pinned buffer and the call
// returns only when the data is staged, so the host would wait on a GPU held by the spin kernel.
// They are timed with the host clock from the first call to the end of cudaStreamSynchronize,
// which is what an application calling cudaMemcpy on pageable memory waits for.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstring>
#include <optional>

#include "kernels/copy/copy.hpp"
#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/cuda/preload.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/timing.hpp"
#include "suites/transfer/concurrent_pair_timer.hpp"
#include "suites/transfer/host_buffer.hpp"
#include "suites/transfer/numa.hpp"
#include "suites/transfer/transfer_cuda.hpp"

namespace gpubench::transfer {

namespace cu = suite::cuda;

namespace {

// Seeds of the pattern per direction, so a buffer holding the other direction's data fails.
constexpr std::uint32_t k_seed_h2d = 0x1234u;
constexpr std::uint32_t k_seed_d2h = 0x5678u;
constexpr std::uint32_t k_seed_d2d = 0x9abcu;

// Host-clock sample of a pageable batch: enqueue, then wait for the stream.
double time_host_batch(const std::function<void()>& enqueue, cudaStream_t stream) {
  const auto t0 = std::chrono::steady_clock::now();
  enqueue();
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

LinkRate host_rate_of(const cu::DeviceInfo& info) {
  const TransferEnvironment& env = transfer_environment();
  int uses_host_tables = 0;
  if (cudaDeviceGetAttribute(&uses_host_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables,
                             info.index) != cudaSuccess) {
    (void)cudaGetLastError();
    uses_host_tables = 0;
  }
  return host_link_rate(env.links->pcie(info.pci_bus_id),
                        uses_host_tables ? HostPath::host_page_tables : HostPath::pcie);
}

// Before each sample: a fresh seed written into the sampled words of each source; after it, each
// destination checked against that seed (METHODOLOGY rule 7, every sample). Empty when correct.
struct SampleCheck {
  std::uint32_t base = 0;
  std::uint64_t next = 0;
  std::uint32_t seed = 0;
  void stamp(void* source, SourceSide side, std::uint64_t bytes, cudaStream_t stream) {
    seed = sample_seed(base, next++);
    stamp_sample(source, side, bytes, seed, stream);
  }
};

void run_bidirectional(benchmark::State& state, const TransferCase& c, const cu::DeviceInfo& info,
                       const Placement& plan) {
  const std::uint64_t bytes = c.bytes;
  const bool ce = c.engine == Engine::ce;
  // CE: timed copies, then as many untimed ones per direction (each direction measured while the
  // other still runs). SM: one kernel does both directions, all of it timed.
  const std::uint64_t copies = ce ? bidir_copies_per_sample(bytes) : copies_per_sample(bytes);
  // h2d: host_src -> dev_dst; d2h: dev_src -> host_dst. Both host buffers placed alike.
  HostBuffer host_src(c.memory, bytes, plan, c.numa);
  HostBuffer host_dst(c.memory, bytes, plan, c.numa);
  cu::DeviceBuffer<unsigned char> dev_dst(bytes), dev_src(bytes);
  cu::Stream forward = cu::Stream::create();
  cu::Stream reverse = cu::Stream::create();
  kernels::copy::fill_pattern_host(static_cast<std::uint32_t*>(host_src.host()), bytes / 4,
                                   k_seed_h2d);
  fill_device_pattern(dev_src.data(), bytes, k_seed_d2h, forward.get());
  clear_device(dev_dst.data(), bytes, forward.get());
  std::memset(host_dst.host(), 0, bytes);

  const LinkRate rate = host_rate_of(info);
  SampleCheck h2d_check{k_seed_h2d}, d2h_check{k_seed_d2h};
  auto stamp = [&] {
    h2d_check.stamp(host_src.host(), SourceSide::host, bytes, forward.get());
    d2h_check.stamp(dev_src.data(), SourceSide::device, bytes, reverse.get());
  };
  auto check = [&]() -> std::string {
    forward.synchronize();
    reverse.synchronize();
    std::string problem = validate_copy(dev_dst.data(), bytes, h2d_check.seed);
    if (problem.empty()) problem = validate_copy(host_dst.host(), bytes, d2h_check.seed);
    return problem;
  };
  // The clock after each sample (the pair timer has no probe of its own).
  cu::BatchTimer timer(forward.get(), info.clock_khz, static_cast<std::size_t>(info.l2_bytes));
  std::vector<double> fwd_s, rev_s;
  SampleSet samples;
  if (ce) {
    ConcurrentPairTimer pair(c.device, forward.get(), c.device, reverse.get());
    auto h2d = [&] {
      enqueue_copies(Engine::ce, dev_dst.data(), host_src.host(), bytes, copies, 0, forward.get());
    };
    auto d2h = [&] {
      enqueue_copies(Engine::ce, host_dst.host(), dev_src.data(), bytes, copies, 0, reverse.get());
    };
    stamp();
    (void)pair.time_pair(h2d, h2d, d2h, d2h);  // warm-up
    if (std::string problem = check(); !problem.empty()) {
      suite::fail(state, problem);
      return;
    }
    for (auto _ : state) {
      stamp();
      const cu::PairSample s = pair.time_pair(h2d, h2d, d2h, d2h);
      state.SetIterationTime(s.span_ms / 1e3);
      fwd_s.push_back(s.first_ms / 1e3);
      rev_s.push_back(s.second_ms / 1e3);
      samples.add_window(s.span_ms / 1e3, timer.probe_clock_mhz(), pair.released_at_s());
      if (std::string problem = check(); !problem.empty()) {
        suite::fail(state, problem);
        return;
      }
    }
  } else {
    // One kernel, even warps h2d and odd warps d2h: only the total time exists.
    auto both = [&] {
      // Noted once per batch (the ledger refuses it here if it was never preloaded).
      suite::LaunchLedger::process().note(cu::current_device(), k_sm_copy_bidir);
      for (std::uint64_t k = 0; k < copies; ++k) {
        GPUBENCH_CUDA_CHECK(static_cast<cudaError_t>(kernels::copy::launch_sm_copy_bidir(
            dev_dst.data(), host_src.device(), host_dst.device(), dev_src.data(), bytes,
            info.sm_count, forward.get())));
      }
    };
    stamp();
    (void)timer.time_batch(both, cu::CacheState::hot);
    if (std::string problem = check(); !problem.empty()) {
      suite::fail(state, problem);
      return;
    }
    for (auto _ : state) {
      stamp();
      const cu::BatchSample s = timer.time_batch(both, cu::CacheState::hot);
      state.SetIterationTime(s.elapsed_ms / 1e3);
      samples.add(s);
      if (std::string problem = check(); !problem.empty()) {
        suite::fail(state, problem);
        return;
      }
    }
  }
  BidirTimes t;
  t.forward_s = median(fwd_s);
  t.reverse_s = median(rev_s);
  t.span_s = median(samples.seconds);
  const BidirRates r = bidir_rates(bytes, copies, t);
  if (reports_latency(bytes)) {
    state.counters["us_per_copy"] = t.span_s / static_cast<double>(copies) * 1e6;
  }
  if (reports_bandwidth(bytes)) {
    state.counters["GB_per_s"] = r.total_gb_per_s;
    if (ce) {
      state.counters["GB_per_s_h2d"] = r.forward_gb_per_s;
      state.counters["GB_per_s_d2h"] = r.reverse_gb_per_s;
    }
    if (const auto pct = pct_of_rate(r.total_gb_per_s, rate, 2.0)) {
      state.counters["pct_of_link"] = *pct;
    }
  }
  samples.states.write(state);
  state.SetLabel(host_src.note() + "; " + describe_link(rate));
}

}  // namespace

void run_host_case(benchmark::State& state, const TransferCase& c) {
  const TransferEnvironment& env = transfer_environment();
  const cu::DeviceInfo info = cu::query_device(c.device);
  const Placement plan = plan_placement(c.numa, read_gpu_node(env.sysfs_root, info.pci_bus_id),
                                        read_numa_topology(env.sysfs_root));
  if (!plan.skip_reason.empty()) throw suite::SkipCase(plan.skip_reason);
  // The calling thread runs on the buffer's node (pageable staging copies are CPU work).
  const ScopedAffinity affinity(plan.bind_node ? read_node_cpus(env.sysfs_root, *plan.bind_node)
                                               : std::vector<int>{});
  if (c.dir == Dir::bidir) {
    run_bidirectional(state, c, info, plan);
    return;
  }
  const std::uint64_t bytes = c.bytes;
  const std::uint64_t copies = copies_per_sample(bytes);
  HostBuffer host(c.memory, bytes, plan, c.numa);
  cu::DeviceBuffer<unsigned char> dev(bytes);
  cu::Stream stream = cu::Stream::create();
  const bool h2d = c.dir == Dir::h2d;
  const std::uint32_t seed = h2d ? k_seed_h2d : k_seed_d2h;
  // The engine's view of the host buffer: kernels need the mapped device address.
  void* host_side = c.engine == Engine::sm ? host.device() : host.host();
  if (h2d) {
    kernels::copy::fill_pattern_host(static_cast<std::uint32_t*>(host.host()), bytes / 4, seed);
    clear_device(dev.data(), bytes, stream.get());
  } else {
    fill_device_pattern(dev.data(), bytes, seed, stream.get());
    std::memset(host.host(), 0, bytes);
  }
  void* dst = h2d ? static_cast<void*>(dev.data()) : host_side;
  const void* src = h2d ? host_side : static_cast<const void*>(dev.data());
  auto enqueue = [&] {
    enqueue_copies(c.engine, dst, src, bytes, copies, info.sm_count, stream.get());
  };

  SampleCheck sample_check{seed};
  // The source as the CPU sees it (h2d) or the device buffer (d2h); the destination to check.
  void* stamp_at = h2d ? host.host() : static_cast<void*>(dev.data());
  const SourceSide side = h2d ? SourceSide::host : SourceSide::device;
  const void* check_at = h2d ? static_cast<const void*>(dev.data()) : host.host();
  auto check = [&]() -> std::string {
    stream.synchronize();
    return validate_copy(check_at, bytes, sample_check.seed);
  };

  SampleSet samples;
  std::optional<cu::BatchTimer> timer;
  if (c.memory != Memory::pageable) {
    timer.emplace(stream.get(), info.clock_khz, static_cast<std::size_t>(info.l2_bytes));
  }
  // One sample (warm-up or timed): pageable copies on the host clock, the rest behind the spin
  // kernel.
  auto one = [&](bool timed) {
    sample_check.stamp(stamp_at, side, bytes, stream.get());
    if (!timer) {
      const double s = time_host_batch(enqueue, stream.get());
      if (timed) {
        state.SetIterationTime(s);
        samples.add(s);
      }
      return;
    }
    const cu::BatchSample s = timer->time_batch(enqueue, cu::CacheState::hot);
    if (timed) {
      state.SetIterationTime(s.elapsed_ms / 1e3);
      samples.add(s);
    }
  };
  one(false);  // warm-up
  if (std::string problem = check(); !problem.empty()) {
    suite::fail(state, problem);
    return;
  }
  for (auto _ : state) {
    one(true);
    if (std::string problem = check(); !problem.empty()) {
      suite::fail(state, problem);
      return;
    }
  }
  const LinkRate rate = host_rate_of(info);
  report_one_way(state, bytes, copies, samples, &rate);
  state.SetLabel(host.note() + "; " + describe_link(rate));
}

void run_device_local_case(benchmark::State& state, const TransferCase& c) {
  const cu::DeviceInfo info = cu::query_device(c.device);
  const std::uint64_t bytes = c.bytes;
  const std::uint64_t copies = copies_per_sample(bytes);
  cu::DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  cu::Stream stream = cu::Stream::create();
  fill_device_pattern(src.data(), bytes, k_seed_d2d, stream.get());
  clear_device(dst.data(), bytes, stream.get());
  auto enqueue = [&] {
    enqueue_copies(c.engine, dst.data(), src.data(), bytes, copies, info.sm_count, stream.get());
  };
  cu::BatchTimer timer(stream.get(), info.clock_khz, static_cast<std::size_t>(info.l2_bytes));
  SampleCheck sample_check{k_seed_d2d};
  auto one = [&]() -> cu::BatchSample {
    sample_check.stamp(src.data(), SourceSide::device, bytes, stream.get());
    return timer.time_batch(enqueue, cu::CacheState::hot);
  };
  auto check = [&]() -> std::string {
    stream.synchronize();
    return validate_copy(dst.data(), bytes, sample_check.seed);
  };
  (void)one();  // warm-up
  if (std::string problem = check(); !problem.empty()) {
    suite::fail(state, problem);
    return;
  }
  SampleSet samples;
  for (auto _ : state) {
    const cu::BatchSample s = one();
    state.SetIterationTime(s.elapsed_ms / 1e3);
    samples.add(s);
    if (std::string problem = check(); !problem.empty()) {
      suite::fail(state, problem);
      return;
    }
  }
  // No link: a device-local copy is bounded by device memory (each byte read once and written
  // once), unless source and destination together sit in L2: then it is its own metric.
  const Residency residency = device_local_residency(bytes, info.l2_bytes);
  report_one_way(
      state, bytes, copies, samples, nullptr,
      residency == Residency::cached ? BandwidthMetric::cached : BandwidthMetric::link_or_dram);
  state.SetLabel(std::string(residency == Residency::cached
                                 ? "L2-resident or partly (source + destination < 4x the " +
                                       std::to_string(info.l2_bytes >> 20) + " MiB L2)"
                                 : "device memory") +
                 " on GPU " + std::to_string(c.device) +
                 "; bytes counted once per copy (read + write traffic is twice that)");
}

}  // namespace gpubench::transfer
