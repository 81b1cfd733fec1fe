// Peer-to-peer cases of the transfer suite: GPU src -> GPU dst with cudaMemcpyPeerAsync issued on
// the source GPU (nvbandwidth's "write" direction), with peer access enabled (the copy goes over
// NVLink or PCIe directly) or disabled (the driver stages it through host memory). Bidirectional:
// dst -> src runs at the same time, issued by the dst GPU on its own stream (each direction is a
// write by its own source GPU, as nvbandwidth's bidirectional write tests); each direction's
// timed copies are followed by as many untimed ones, so neither runs alone while timed. Staged
// copies (peer access off) are timed with the host clock instead of behind the spin kernel, both
// directions issued at once from two threads (see below). Peer access is set both ways
// (cudaDeviceEnablePeerAccess is one-directional) and restored when the case ends
// (peer_access.hpp), so no case depends on the ones before it and a GPU never holds more peer
// connections than the pair it measures.
#include <cuda_runtime_api.h>

#include <chrono>
#include <optional>
#include <tuple>

#include "kernels/copy/copy.hpp"
#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/timing.hpp"
#include "suites/transfer/concurrent_issue.hpp"
#include "suites/transfer/concurrent_pair_timer.hpp"
#include "suites/transfer/peer_access.hpp"
#include "suites/transfer/transfer_cuda.hpp"

namespace gpubench::transfer {

namespace cu = suite::cuda;

namespace {

constexpr std::uint32_t k_seed_forward = 0x2468u;
constexpr std::uint32_t k_seed_reverse = 0x1357u;

// Sets whether `device` maps `peer`'s memory (cudaDeviceEnablePeerAccess and
// cudaDeviceDisablePeerAccess act for the current device only) for ScopedPeerAccess.
PeerCall set_peer_access(int device, int peer, PeerAccess want) {
  const ScopedDevice on(device);
  if (want == PeerAccess::off) {
    // No copy or kernel that may use the mapping may still run when it goes: both GPUs idle.
    GPUBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    const ScopedDevice on_peer(peer);
    GPUBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  }
  const cudaError_t status = want == PeerAccess::on ? cudaDeviceEnablePeerAccess(peer, 0)
                                                    : cudaDeviceDisablePeerAccess(peer);
  switch (status) {
    case cudaSuccess:
      return PeerCall::changed;
    case cudaErrorPeerAccessAlreadyEnabled:
    case cudaErrorPeerAccessNotEnabled:
      (void)cudaGetLastError();  // not sticky; clear it so no later check reports it
      return PeerCall::unchanged;
    case cudaErrorTooManyPeers:
      (void)cudaGetLastError();
      return PeerCall::too_many_peers;
    default:
      GPUBENCH_CUDA_CHECK(status);
      return PeerCall::unchanged;
  }
}

// The link between the pair: NVLink when NVML reports one, else PCIe (peer access over the
// source GPU's PCIe link) or through host memory (the same link, crossed twice).
LinkRate pair_link(const cu::DeviceInfo& src, const cu::DeviceInfo& dst, bool can_access,
                   PeerAccess peer) {
  const TransferEnvironment& env = transfer_environment();
  const NvlinkPair nv =
      nvlink_pair(env.links->nvlinks(src.pci_bus_id), env.links->nvlinks(dst.pci_bus_id),
                  dst.pci_bus_id, ComputeCapability{src.cc_major, src.cc_minor});
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
  int can_access = 0, can_access_back = 0;
  GPUBENCH_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, c.src, c.dst));
  GPUBENCH_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access_back, c.dst, c.src));
  const LinkRate rate = pair_link(src_info, dst_info, can_access != 0, c.peer);
  if (c.peer == PeerAccess::on && (!can_access || (c.bidirectional && !can_access_back))) {
    const bool forward_ok = can_access != 0;
    throw suite::SkipCase("GPU " + std::to_string(forward_ok ? c.dst : c.src) + " (" +
                          (forward_ok ? dst_info.uuid : src_info.uuid) + ") cannot access GPU " +
                          std::to_string(forward_ok ? c.src : c.dst) + " (" +
                          (forward_ok ? src_info.uuid : dst_info.uuid) +
                          ") as a peer (cudaDeviceCanAccessPeer = 0; " + rate.description + ")");
  }
  int rank = -1;
  if (can_access && cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, c.src, c.dst) !=
                        cudaSuccess) {
    (void)cudaGetLastError();
    rank = -1;
  }
  // Both ways, so the reverse direction (issued by dst) is peer-to-peer or staged like the forward;
  // undone when the case ends (peer_access.hpp), after the buffers and streams below are gone.
  ScopedPeerAccess peers(set_peer_access);
  for (const auto& [device, peer, possible] : {std::tuple{c.src, c.dst, can_access != 0},
                                               std::tuple{c.dst, c.src, can_access_back != 0}}) {
    if (!possible) continue;
    if (auto reason = peers.set(device, peer, c.peer)) throw suite::SkipCase(*reason);
  }
  // The SM copy kernels on every GPU that launches one (the reverse direction's on dst): loaded
  // before the first gated batch, where a first launch is refused (launch_ledger.hpp).
  for (int device : sm_copy_devices(c)) {
    const ScopedDevice on(device);
    preload_copy_kernels(device == c.src ? src_info.sm_count : dst_info.sm_count);
  }

  const std::uint64_t bytes = c.bytes;
  const bool staged = c.peer == PeerAccess::off;
  // Concurrent bidirectional samples: timed copies, then as many untimed (see the header).
  const std::uint64_t copies =
      c.bidirectional && !staged ? bidir_copies_per_sample(bytes) : copies_per_sample(bytes);
  GPUBENCH_CUDA_CHECK(cudaSetDevice(c.dst));
  cu::DeviceBuffer<unsigned char> dst_in(bytes), dst_out(bytes);
  cu::Stream reverse = cu::Stream::create();  // on dst: issues dst -> src
  fill_device_pattern(dst_out.data(), bytes, k_seed_reverse, reverse.get());
  clear_device(dst_in.data(), bytes, reverse.get());

  GPUBENCH_CUDA_CHECK(cudaSetDevice(c.src));
  cu::DeviceBuffer<unsigned char> src_out(bytes), src_in(bytes);
  cu::Stream forward = cu::Stream::create();  // on src: issues src -> dst
  fill_device_pattern(src_out.data(), bytes, k_seed_forward, forward.get());
  clear_device(src_in.data(), bytes, forward.get());

  // CE: cudaMemcpyPeerAsync on the issuing GPU's stream. SM: the copy kernel on the issuing GPU
  // writes the peer's memory through the peer mapping (peer access is on for every SM case).
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
    const ScopedDevice on_dst(c.dst);
    if (c.engine == Engine::sm) {
      enqueue_copies(Engine::sm, src_in.data(), dst_out.data(), bytes, copies, dst_info.sm_count,
                     reverse.get());
      return;
    }
    for (std::uint64_t k = 0; k < copies; ++k) {
      GPUBENCH_CUDA_CHECK(
          cudaMemcpyPeerAsync(src_in.data(), c.src, dst_out.data(), c.dst, bytes, reverse.get()));
    }
  };
  // Every sample: fresh words in the sources before, the destinations checked after.
  std::uint32_t fwd_seed = k_seed_forward, rev_seed = k_seed_reverse;
  std::uint64_t next = 0;
  auto stamp = [&] {
    fwd_seed = sample_seed(k_seed_forward, next);
    rev_seed = sample_seed(k_seed_reverse, next);
    ++next;
    stamp_sample(src_out.data(), SourceSide::device, bytes, fwd_seed, forward.get());
    if (c.bidirectional) {
      const ScopedDevice on_dst(c.dst);
      stamp_sample(dst_out.data(), SourceSide::device, bytes, rev_seed, reverse.get());
    }
  };
  auto check = [&]() -> std::string {
    forward.synchronize();
    reverse.synchronize();
    std::string problem = validate_copy(dst_in.data(), bytes, fwd_seed);
    if (problem.empty() && c.bidirectional) problem = validate_copy(src_in.data(), bytes, rev_seed);
    return problem;
  };

  std::vector<double> fwd_s, rev_s;
  SampleSet samples;
  cu::BatchTimer timer(forward.get(), src_info.clock_khz,
                       static_cast<std::size_t>(src_info.l2_bytes));
  std::optional<ConcurrentPairTimer> pair;
  if (c.bidirectional && !staged) pair.emplace(c.src, forward.get(), c.dst, reverse.get());
  // One sample; returns its seconds (the state's iteration time).
  auto one = [&](bool timed) {
    stamp();
    if (staged) {
      // Without peer access the driver stages the copy through host memory and may need the
      // host to drive it, so it is not queued behind a spin kernel (it could wait on a GPU the
      // spin kernel holds): host clock from the first call until the streams are done. Both
      // directions are issued at once, each from its own thread (concurrent_issue.hpp): issued
      // one after the other from one thread, a host-driven staged copy would run one direction
      // at a time.
      double seconds = 0;
      if (c.bidirectional) {
        seconds = time_concurrently(
            [&] {
              fwd();
              forward.synchronize();
            },
            [&] {
              rev();
              reverse.synchronize();
            });
      } else {
        const auto t0 = std::chrono::steady_clock::now();
        fwd();
        forward.synchronize();
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      if (timed) samples.add(seconds);
      return seconds;
    }
    if (pair) {
      const cu::PairSample s = pair->time_pair(fwd, fwd, rev, rev);
      if (timed) {
        fwd_s.push_back(s.first_ms / 1e3);
        rev_s.push_back(s.second_ms / 1e3);
        samples.add_window(s.span_ms / 1e3, timer.probe_clock_mhz(), pair->released_at_s());
      }
      return s.span_ms / 1e3;
    }
    const cu::BatchSample s = timer.time_batch(fwd, cu::CacheState::hot);
    if (timed) samples.add(s);
    return s.elapsed_ms / 1e3;
  };
  (void)one(false);  // warm-up
  if (std::string problem = check(); !problem.empty()) {
    suite::fail(state, problem);
    return;
  }
  for (auto _ : state) {
    state.SetIterationTime(one(true));
    if (std::string problem = check(); !problem.empty()) {
      suite::fail(state, problem);
      return;
    }
  }
  if (c.bidirectional) {
    BidirTimes t;
    t.forward_s = median(fwd_s);
    t.reverse_s = median(rev_s);
    t.span_s = median(samples.seconds);
    const BidirRates r = bidir_rates(bytes, copies, t);
    state.counters["GB_per_s"] = r.total_gb_per_s;
    if (!fwd_s.empty()) {  // staged copies have one span, no per-direction times
      state.counters["GB_per_s_forward"] = r.forward_gb_per_s;
      state.counters["GB_per_s_reverse"] = r.reverse_gb_per_s;
    }
    if (const auto pct = pct_of_rate(r.total_gb_per_s, rate, 2.0)) {
      state.counters["pct_of_link"] = *pct;
    }
    samples.states.write(state);
  } else {
    report_one_way(state, bytes, copies, samples, &rate);
  }
  state.SetLabel("GPU " + std::to_string(c.src) + " " + src_info.uuid + " -> GPU " +
                 std::to_string(c.dst) + " " + dst_info.uuid + "; " + describe_link(rate) +
                 (rank >= 0 ? "; CUDA performance rank " + std::to_string(rank) : ""));
}

}  // namespace gpubench::transfer
