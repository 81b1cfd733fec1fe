// Peer-to-peer cases of the transfer suite: GPU src -> GPU dst with cudaMemcpyPeerAsync issued on
// the source GPU (nvbandwidth's "write" direction), with peer access enabled (the copy goes over
// NVLink or PCIe directly) or disabled (the driver stages it through host memory). Bidirectional:
// dst -> src runs at the same time on a second stream of the source GPU, so both directions share
// one clock and the sum is both directions' bytes over the span both took. Staged copies (peer
// access off) are timed with the host clock instead of behind the spin kernel (see below).
#include <cuda_runtime_api.h>

#include <chrono>

#include "kernels/copy/copy.hpp"
#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/cuda/pair_timing.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/timing.hpp"
#include "suites/transfer/transfer_cuda.hpp"

namespace gpubench::transfer {

namespace cu = suite::cuda;

namespace {

constexpr std::uint32_t k_seed_forward = 0x2468u;
constexpr std::uint32_t k_seed_reverse = 0x1357u;

// Sets whether the current device (src) maps dst's memory. Already in that state is fine.
void set_peer_access(int dst, PeerAccess want) {
  const cudaError_t status = want == PeerAccess::on ? cudaDeviceEnablePeerAccess(dst, 0)
                                                    : cudaDeviceDisablePeerAccess(dst);
  if (status == cudaErrorPeerAccessAlreadyEnabled || status == cudaErrorPeerAccessNotEnabled) {
    (void)cudaGetLastError();
    return;
  }
  GPUBENCH_CUDA_CHECK(status);
}

// The link between the pair: NVLink when NVML reports one, else PCIe (peer access over the
// source GPU's PCIe link) or through host memory (the same link, crossed twice).
LinkRate pair_link(const cu::DeviceInfo& src, const cu::DeviceInfo& dst, bool can_access,
                   PeerAccess peer) {
  const TransferEnvironment& env = transfer_environment();
  const NvlinkPair nv = nvlink_pair(env.links->nvlinks(src.pci_bus_id),
                                    env.links->nvlinks(dst.pci_bus_id), dst.pci_bus_id);
  if (nv.links > 0 && peer == PeerAccess::on) return nv.rate;
  LinkRate rate = pcie_rate(env.links->pcie(src.pci_bus_id));
  if (peer == PeerAccess::off || !can_access) {
    rate.description = "through host memory over " + rate.description;
  } else {
    rate.description = "PCIe peer-to-peer over " + rate.description;
  }
  return rate;
}

}  // namespace

void run_p2p_case(benchmark::State& state, const TransferCase& c) {
  const TransferEnvironment& env = transfer_environment();
  if (env.device_count < 2) {
    throw suite::SkipCase("peer-to-peer needs two GPUs; this host has " +
                          std::to_string(env.device_count));
  }
  if (c.src >= env.device_count || c.dst >= env.device_count) {
    throw suite::SkipCase("GPU pair " + std::to_string(c.src) + "->" + std::to_string(c.dst) +
                          " does not exist (" + std::to_string(env.device_count) + " GPUs)");
  }
  const cu::DeviceInfo src_info = cu::query_device(c.src);
  const cu::DeviceInfo dst_info = cu::query_device(c.dst);
  int can_access = 0;
  GPUBENCH_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, c.src, c.dst));
  const LinkRate rate = pair_link(src_info, dst_info, can_access != 0, c.peer);
  if (c.peer == PeerAccess::on && !can_access) {
    throw suite::SkipCase("GPU " + std::to_string(c.src) + " (" + src_info.uuid +
                          ") cannot access GPU " + std::to_string(c.dst) + " (" + dst_info.uuid +
                          ") as a peer (cudaDeviceCanAccessPeer = 0; " + rate.description + ")");
  }
  int rank = -1;
  if (can_access && cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, c.src, c.dst) !=
                        cudaSuccess) {
    (void)cudaGetLastError();
    rank = -1;
  }

  const std::uint64_t bytes = c.bytes;
  const std::uint64_t copies = copies_per_sample(bytes);
  GPUBENCH_CUDA_CHECK(cudaSetDevice(c.dst));
  cu::DeviceBuffer<unsigned char> dst_in(bytes), dst_out(bytes);
  cu::Stream dst_stream = cu::Stream::create();
  fill_device_pattern(dst_out.data(), bytes, k_seed_reverse, dst_stream.get());
  clear_device(dst_in.data(), bytes, dst_stream.get());
  GPUBENCH_CUDA_CHECK(cudaDeviceSynchronize());

  GPUBENCH_CUDA_CHECK(cudaSetDevice(c.src));
  set_peer_access(c.dst, c.peer);
  cu::DeviceBuffer<unsigned char> src_out(bytes), src_in(bytes);
  cu::Stream forward = cu::Stream::create();
  cu::Stream reverse = cu::Stream::create();
  fill_device_pattern(src_out.data(), bytes, k_seed_forward, forward.get());
  clear_device(src_in.data(), bytes, forward.get());

  // CE: cudaMemcpyPeerAsync. SM: the copy kernel on the source GPU reads/writes the peer's memory
  // through the peer mapping (peer access is on for every SM case).
  auto fwd = [&] {
    if (c.engine == Engine::sm) {
      enqueue_copies(Engine::sm, dst_in.data(), src_out.data(), bytes, copies, src_info.sm_count,
                     forward.get());
      return;
    }
    for (std::uint64_t k = 0; k < copies; ++k) {
      GPUBENCH_CUDA_CHECK(
          cudaMemcpyPeerAsync(dst_in.data(), c.dst, src_out.data(), c.src, bytes, forward.get()));
    }
  };
  auto rev = [&] {
    if (c.engine == Engine::sm) {
      enqueue_copies(Engine::sm, src_in.data(), dst_out.data(), bytes, copies, src_info.sm_count,
                     reverse.get());
      return;
    }
    for (std::uint64_t k = 0; k < copies; ++k) {
      GPUBENCH_CUDA_CHECK(
          cudaMemcpyPeerAsync(src_in.data(), c.src, dst_out.data(), c.dst, bytes, reverse.get()));
    }
  };

  std::vector<double> fwd_s, rev_s, span_s;
  SampleSet samples;
  const bool staged = c.peer == PeerAccess::off;
  if (staged) {
    // Without peer access the driver stages the copy through host memory and may need the host
    // to drive it, so it is not queued behind a spin kernel (it could wait on a GPU the spin
    // kernel holds): host clock from the first call until both streams are done.
    auto batch = [&] {
      const auto t0 = std::chrono::steady_clock::now();
      fwd();
      if (c.bidirectional) rev();
      forward.synchronize();
      reverse.synchronize();
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    (void)batch();  // warm-up
    for (auto _ : state) {
      const double seconds = batch();
      state.SetIterationTime(seconds);
      samples.add(seconds);
      span_s.push_back(seconds);
    }
  } else if (c.bidirectional && c.engine == Engine::sm) {
    // One kernel, even warps src->dst and odd warps dst->src (two grid-filling kernels on two
    // streams would mostly run one after the other): only the span exists.
    cu::BatchTimer timer(forward.get(), src_info.clock_khz,
                         static_cast<std::size_t>(src_info.l2_bytes));
    auto both = [&] {
      for (std::uint64_t k = 0; k < copies; ++k) {
        GPUBENCH_CUDA_CHECK(static_cast<cudaError_t>(kernels::copy::launch_sm_copy_bidir(
            dst_in.data(), src_out.data(), src_in.data(), dst_out.data(), bytes, src_info.sm_count,
            forward.get())));
      }
    };
    (void)timer.time_batch(both, cu::CacheState::hot);
    for (auto _ : state) {
      const cu::BatchSample s = timer.time_batch(both, cu::CacheState::hot);
      state.SetIterationTime(s.elapsed_ms / 1e3);
      samples.add(s);
      span_s.push_back(s.elapsed_ms / 1e3);
    }
  } else if (c.bidirectional) {
    cu::StreamPairTimer timer(forward.get(), reverse.get());
    (void)timer.time_pair(fwd, rev);
    for (auto _ : state) {
      const cu::PairSample s = timer.time_pair(fwd, rev);
      state.SetIterationTime(s.span_ms / 1e3);
      fwd_s.push_back(s.first_ms / 1e3);
      rev_s.push_back(s.second_ms / 1e3);
      span_s.push_back(s.span_ms / 1e3);
    }
  } else {
    cu::BatchTimer timer(forward.get(), src_info.clock_khz,
                         static_cast<std::size_t>(src_info.l2_bytes));
    (void)timer.time_batch(fwd, cu::CacheState::hot);
    for (auto _ : state) {
      const cu::BatchSample s = timer.time_batch(fwd, cu::CacheState::hot);
      state.SetIterationTime(s.elapsed_ms / 1e3);
      samples.add(s);
    }
  }
  GPUBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  std::string problem = validate_copy(dst_in.data(), bytes, k_seed_forward);
  if (problem.empty() && c.bidirectional)
    problem = validate_copy(src_in.data(), bytes, k_seed_reverse);
  if (!problem.empty()) {
    suite::fail(state, problem);
    return;
  }
  if (c.bidirectional) {
    BidirTimes t;
    t.forward_s = median(fwd_s);
    t.reverse_s = median(rev_s);
    t.span_s = median(span_s);
    const BidirRates r = bidir_rates(bytes, copies, t);
    state.counters["GB_per_s"] = r.total_gb_per_s;
    if (!fwd_s.empty()) {  // staged and SM copies have one span, no per-direction times
      state.counters["GB_per_s_forward"] = r.forward_gb_per_s;
      state.counters["GB_per_s_reverse"] = r.reverse_gb_per_s;
    }
    if (const auto pct = pct_of_rate(r.total_gb_per_s, rate, 2.0)) {
      state.counters["pct_of_link"] = *pct;
    }
  } else {
    report_one_way(state, bytes, copies, samples, &rate);
  }
  state.SetLabel("GPU " + std::to_string(c.src) + " " + src_info.uuid + " -> GPU " +
                 std::to_string(c.dst) + " " + dst_info.uuid + "; " + describe_link(rate) +
                 (rank >= 0 ? "; CUDA performance rank " + std::to_string(rank) : ""));
}

}  // namespace gpubench::transfer
