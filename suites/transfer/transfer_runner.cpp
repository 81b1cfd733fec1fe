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
#include "suites/common/cuda/pair_timing.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/timing.hpp"
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

LinkRate host_link_rate(const cu::DeviceInfo& info) {
  const TransferEnvironment& env = transfer_environment();
  return pcie_rate(env.links->pcie(info.pci_bus_id));
}

void run_bidirectional(benchmark::State& state, const TransferCase& c, const cu::DeviceInfo& info,
                       const Placement& plan) {
  const std::uint64_t bytes = c.bytes;
  const std::uint64_t copies = copies_per_sample(bytes);
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

  const LinkRate rate = host_link_rate(info);
  std::vector<double> fwd_s, rev_s, span_s;
  if (c.engine == Engine::ce) {
    cu::StreamPairTimer timer(forward.get(), reverse.get());
    auto h2d = [&] {
      enqueue_copies(Engine::ce, dev_dst.data(), host_src.host(), bytes, copies, 0, forward.get());
    };
    auto d2h = [&] {
      enqueue_copies(Engine::ce, host_dst.host(), dev_src.data(), bytes, copies, 0, reverse.get());
    };
    (void)timer.time_pair(h2d, d2h);  // warm-up
    for (auto _ : state) {
      const cu::PairSample s = timer.time_pair(h2d, d2h);
      state.SetIterationTime(s.span_ms / 1e3);
      fwd_s.push_back(s.first_ms / 1e3);
      rev_s.push_back(s.second_ms / 1e3);
      span_s.push_back(s.span_ms / 1e3);
    }
  } else {
    // One kernel, even warps h2d and odd warps d2h: only the total time exists.
    cu::BatchTimer timer(forward.get(), info.clock_khz, static_cast<std::size_t>(info.l2_bytes));
    auto both = [&] {
      for (std::uint64_t k = 0; k < copies; ++k) {
        GPUBENCH_CUDA_CHECK(static_cast<cudaError_t>(kernels::copy::launch_sm_copy_bidir(
            dev_dst.data(), host_src.device(), host_dst.device(), dev_src.data(), bytes,
            info.sm_count, forward.get())));
      }
    };
    (void)timer.time_batch(both, cu::CacheState::hot);
    for (auto _ : state) {
      const cu::BatchSample s = timer.time_batch(both, cu::CacheState::hot);
      state.SetIterationTime(s.elapsed_ms / 1e3);
      span_s.push_back(s.elapsed_ms / 1e3);
    }
  }
  GPUBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  for (const auto& [dst, seed] : {std::pair<const void*, std::uint32_t>{dev_dst.data(), k_seed_h2d},
                                  {host_dst.host(), k_seed_d2h}}) {
    const std::string problem = validate_copy(dst, bytes, seed);
    if (!problem.empty()) {
      suite::fail(state, problem);
      return;
    }
  }
  BidirTimes t;
  t.forward_s = median(fwd_s);
  t.reverse_s = median(rev_s);
  t.span_s = median(span_s);
  const BidirRates r = bidir_rates(bytes, copies, t);
  if (reports_latency(bytes)) {
    state.counters["latency_us"] = t.span_s / static_cast<double>(copies) * 1e6;
  }
  if (reports_bandwidth(bytes)) {
    state.counters["GB_per_s"] = r.total_gb_per_s;
    if (c.engine == Engine::ce) {
      state.counters["GB_per_s_h2d"] = r.forward_gb_per_s;
      state.counters["GB_per_s_d2h"] = r.reverse_gb_per_s;
    }
    if (const auto pct = pct_of_rate(r.total_gb_per_s, rate, 2.0)) {
      state.counters["pct_of_link"] = *pct;
    }
  }
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

  SampleSet samples;
  if (c.memory == Memory::pageable) {
    (void)time_host_batch(enqueue, stream.get());  // warm-up
    for (auto _ : state) {
      const double s = time_host_batch(enqueue, stream.get());
      state.SetIterationTime(s);
      samples.add(s);
    }
  } else {
    cu::BatchTimer timer(stream.get(), info.clock_khz, static_cast<std::size_t>(info.l2_bytes));
    (void)timer.time_batch(enqueue, cu::CacheState::hot);  // warm-up
    for (auto _ : state) {
      const cu::BatchSample s = timer.time_batch(enqueue, cu::CacheState::hot);
      state.SetIterationTime(s.elapsed_ms / 1e3);
      samples.add(s);
    }
  }
  stream.synchronize();
  const std::string problem = validate_copy(h2d ? dev.data() : host.host(), bytes, seed);
  if (!problem.empty()) {
    suite::fail(state, problem);
    return;
  }
  const LinkRate rate = host_link_rate(info);
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
  (void)timer.time_batch(enqueue, cu::CacheState::hot);
  SampleSet samples;
  for (auto _ : state) {
    const cu::BatchSample s = timer.time_batch(enqueue, cu::CacheState::hot);
    state.SetIterationTime(s.elapsed_ms / 1e3);
    samples.add(s);
  }
  stream.synchronize();
  const std::string problem = validate_copy(dst.data(), bytes, k_seed_d2d);
  if (!problem.empty()) {
    suite::fail(state, problem);
    return;
  }
  // No link: a device-local copy is bounded by DRAM (each byte read once and written once).
  report_one_way(state, bytes, copies, samples, nullptr);
  state.SetLabel("device memory on GPU " + std::to_string(c.device) +
                 "; bytes counted once per copy (read + write traffic is twice that)");
}

}  // namespace gpubench::transfer
