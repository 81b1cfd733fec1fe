#include "suites/fusion/device_fusion.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/graph.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/cuda/libraries.hpp"
#include "suites/common/cuda/memory_bandwidth.hpp"
#include "suites/common/cuda/preload.hpp"
#include "suites/common/l2_placement.hpp"
#include "suites/common/launch_ledger.hpp"
#include "suites/common/sample_state_counters.hpp"
#include "suites/common/sampled_batches.hpp"
#include "suites/common/sampling.hpp"
#include "suites/common/suite_support.hpp"
#include "suites/fusion/device_runner.hpp"
#include "suites/fusion/fusion_preload.hpp"
#include "suites/fusion/speedup.hpp"
#include "suites/gemm/gemm_cases.hpp"

namespace gpubench::fusion {

namespace cu = suite::cuda;

DeviceContext::DeviceContext(int device)
    : info(cu::query_device(device)),
      stream(cu::Stream::create()),
      timer(stream.get(), info.clock_khz, static_cast<std::size_t>(info.l2_bytes)),
      peak_gb_per_s(cu::peak_dram_gb_per_s(device)) {}

cu::CublasLtHandle& DeviceContext::cublaslt() {
  if (!m_cublaslt) m_cublaslt.emplace(cu::CublasLtHandle::create());
  return *m_cublaslt;
}

std::uint64_t PreparedCase::next_id() {
  static std::atomic<std::uint64_t> id{0};
  return ++id;
}

std::string PreparedCase::launch_key(Variant v) const {
  return "fusion::case" + std::to_string(m_id) + "/" + to_string(kernels_of(v));
}

void PreparedCase::preload(Variant v) {
  auto& ledger = suite::LaunchLedger::process();
  const int device = cu::current_device();
  const std::string key = launch_key(v);
  if (ledger.launched(device, key)) return;
  if (suite::LaunchLedger::current_scope() != suite::LaunchScope::open)
    throw std::logic_error("preload of " + key + " inside a gated batch or capture");
  enqueue(kernels_of(v));
  m_dev.stream.synchronize();
  ledger.record(device, key);
}

void PreparedCase::note_queued(Variant v) const {
  suite::LaunchLedger::process().note(cu::current_device(), launch_key(v));
}

void PreparedCase::prepare(Variant v) {
  if (v != Variant::graph || m_graph) return;
  preload(Variant::v1);  // the capture records v1's kernels; they must be loaded already
  m_dev.stream.synchronize();
  m_graph = cu::CapturedGraph::capture(m_dev.stream.get(), [this] {
    note_queued(Variant::v1);
    enqueue(Variant::v1);
  });
}

std::size_t PreparedCase::enqueued_nodes(Variant v) {
  if (v == Variant::graph) return m_graph.node_count();
  if (auto it = m_enqueued_nodes.find(v); it != m_enqueued_nodes.end()) return it->second;
  preload(v);
  m_dev.stream.synchronize();
  std::size_t nodes = 0;  // unknown: the case's listed kernels are counted instead
  try {
    const cu::Graph one_call = cu::Graph::capture(m_dev.stream.get(), [&] {
      note_queued(v);
      enqueue(v);
    });
    nodes = one_call.node_count();
  } catch (const suite::CudaError&) {
    (void)cudaGetLastError();
  }
  m_enqueued_nodes.emplace(v, nodes);
  return nodes;
}

void PreparedCase::call(Variant v) {
  if (v == Variant::graph) {
    m_graph.launch(m_dev.stream.get());
  } else {
    enqueue(v);
  }
}

Validation PreparedCase::validate(Variant v) {
  prepare(v);
  poison_outputs();
  call(v);
  m_dev.stream.synchronize();
  return check_outputs();
}

std::size_t device_bytes(const FusionCase& c, const cu::DeviceInfo& info) {
  const std::size_t e = kernels::element_bytes(c.dtype);
  const std::size_t n = c.tokens * c.hidden;
  switch (c.family) {
    case Family::bias_gelu:
      return (2 * n + c.hidden) * e;
    case Family::layernorm:
      return (4 * n + 2 * c.hidden) * e;
    case Family::softmax:
      return 2 * n * e + 2 * c.tokens * sizeof(float);
    case Family::gemm_bias_gelu:
      return static_cast<std::size_t>(fused_bytes(c)) + gemm::workspace_bytes(info.cc_major);
  }
  return 0;
}

namespace {

constexpr std::size_t k_headroom_bytes = std::size_t{256} << 20;  // timer, context, cuBLASLt
static_assert(k_max_kernels_per_batch == cu::k_max_queued_kernels,
              "the run plan sizes batches with the timer's queue limit");

struct SuiteState {
  std::map<int, DeviceContext*> contexts;  // never destroyed: see suites/gemm/main.cpp
  // The steady SM clock of the last variant measured per device: a GPU already at its clock ends
  // the next warm-up after one batch (suite::ClockSettle).
  std::map<int, double> last_steady_clock_mhz;
  std::string prepared_key;
  std::unique_ptr<PreparedCase> prepared;
};

SuiteState& state_of_suite() {
  static auto* s = new SuiteState();
  return *s;
}

DeviceContext& context_for(int device) {
  auto& s = state_of_suite();
  if (auto it = s.contexts.find(device); it != s.contexts.end()) return *it->second;
  auto* ctx = new DeviceContext(device);
  s.contexts.emplace(device, ctx);
  return *ctx;
}

// The variants of one family, dtype, shape and device run one after another: keep their inputs,
// free them before the next shape allocates.
PreparedCase& prepared_for(const FusionCase& c, DeviceContext& dev) {
  auto& s = state_of_suite();
  const std::string key = baseline_key(c);
  if (s.prepared && s.prepared_key == key) return *s.prepared;
  s.prepared.reset();
  s.prepared_key.clear();
  const cu::MemoryInfo mem = cu::memory_info();
  const std::size_t needed = device_bytes(c, dev.info) + k_headroom_bytes;
  if (mem.free_bytes < needed) {
    throw suite::SkipCase("not enough free device memory for " + baseline_key(c) + ": needs " +
                          std::to_string(needed >> 20) + " MiB, " +
                          std::to_string(mem.free_bytes >> 20) + " MiB free");
  }
  s.prepared = c.family == Family::gemm_bias_gelu ? prepare_gemm_bias_gelu(c, dev)
                                                  : prepare_elementwise(c, dev);
  s.prepared_key = key;
  return *s.prepared;
}

// The sampled measurement of one variant (suites/common/sampled_batches.hpp), sized by the kernels
// a call really enqueues (a graph replay: all its nodes; a cuBLASLt call: its own kernels) so the
// queue behind the spin kernel stays below its limit, with warm-up until the SM clock is steady,
// starting from the device's last steady clock. Hot (device_cache_mode): batches of back-to-back
// calls of at least the profile's batch target, samples until the noise stop, the time budget or
// max_samples. Cold (the shape's working set straddles the L2): batches of (L2 flush, call) pairs,
// only the call between events, cold_pairs_per_repetition calls.
suite::SampledBatches time_variant(PreparedCase& p, const FusionCase& c, DeviceContext& dev,
                                   suite::Profile profile) {
  const suite::SamplingPolicy policy = suite::sampling_policy(profile);
  const int kernels = enqueued_kernels_per_call(c, p.enqueued_nodes(c.variant));
  double& last_steady = state_of_suite().last_steady_clock_mhz[c.device];
  const auto l2 = static_cast<std::uint64_t>(std::max(dev.info.l2_bytes, 0));
  std::optional<suite::SampledBatches> m;
  if (device_cache_mode(c, l2) == suite::CacheMode::cold) {
    m.emplace(suite::measure_flushed_calls(
        policy, last_steady, suite::cold_pairs_per_batch(kernels, k_max_kernels_per_batch),
        suite::cold_pairs_per_repetition(profile), [&](int pairs) {
          const cu::FlushedCallsSample sample = dev.timer.time_flushed_calls(
              [&] {
                p.note_queued(c.variant);
                p.call(c.variant);
              },
              pairs);
          suite::FlushedBatch batch;
          for (double ms : sample.call_ms) batch.call_s.push_back(ms / 1e3);
          batch.elapsed_s = sample.elapsed_ms / 1e3;
          batch.sm_clock_mhz = sample.sm_clock_mhz;
          batch.end_s = suite::SampleStateRecorder::now_s();
          return batch;
        }));
  } else {
    const int max_calls = std::max(1, k_max_kernels_per_batch / std::max(kernels, 1));
    m.emplace(suite::measure_batches(policy, last_steady, max_calls, [&](int calls) {
      const cu::BatchSample sample = dev.timer.time_batch(
          [&] {
            p.note_queued(c.variant);
            for (int i = 0; i < calls; ++i) p.call(c.variant);
          },
          cu::CacheState::hot);
      // The batch's GPU work ended just before time_batch returned.
      return suite::TimedBatch{sample.elapsed_ms / 1e3, sample.sm_clock_mhz,
                               suite::SampleStateRecorder::now_s()};
    }));
  }
  if (m->steady_clock_mhz() > 0) last_steady = m->steady_clock_mhz();
  return std::move(*m);
}

std::string describe_sizes(const FusionCase& c) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f MiB",
                static_cast<double>(device_bytes(c, cu::DeviceInfo{})) / (1024.0 * 1024.0));
  return baseline_key(c) + ", " + text;
}

void run_device_case(benchmark::State& state, const FusionCase& c, suite::Profile profile,
                     const std::string& reason) {
  if (!reason.empty()) {
    suite::skip(state, reason);
    return;
  }
  // GEMM + epilogue runs on cuBLASLt, loaded at run time: without it, skipped with its reason.
  // No other case touches the library (DeviceContext::cublaslt is created at first use).
  if (needs_cublaslt(c)) {
    if (const std::string why = cu::unavailable_reason({cu::Library::cublasLt}); !why.empty()) {
      suite::skip(state, why);
      return;
    }
  }
  suite::run_guarded(state, describe_sizes(c), [&] {
    GPUBENCH_CUDA_CHECK(cudaSetDevice(c.device));
    DeviceContext& dev = context_for(c.device);
    PreparedCase& p = [&]() -> PreparedCase& {
      try {
        return prepared_for(c, dev);
      } catch (...) {
        state_of_suite().prepared.reset();
        state_of_suite().prepared_key.clear();
        throw;
      }
    }();
    // Every kernel the case may time, launched once before any batch or capture (the v1
    // baseline too: it is timed below when v1's own case did not run).
    for (const Variant pv : preload_variants(c)) p.preload(pv);
    // Validate before timing: a wrong answer is a failure, not a fast result.
    const Validation v = p.validate(c.variant);
    if (!v.passed) {
      suite::fail(state, "validation failed: " + v.summary);
      return;
    }
    std::optional<suite::SampledBatches> t;
    for (auto _ : state) {
      t.emplace(time_variant(p, c, dev, profile));
      state.SetIterationTime(t->call_s());
    }
    if (!t) return;
    const double call_ms = t->call_s() * 1e3;
    // v1 is measured the way this variant is (device_cache_mode decides per shape).
    const std::optional<double> speedup = speedup_over_v1(c, call_ms, [&](const FusionCase& v1) {
      p.prepare(Variant::v1);
      return time_variant(p, v1, dev, profile).call_s() * 1e3;
    });
    const double gb_per_s =
        call_ms > 0 ? static_cast<double>(fused_bytes(c)) / (call_ms * 1e-3) / 1e9 : 0.0;
    state.counters["time_per_call_us"] = call_ms * 1e3;
    state.counters["GB_per_s"] = gb_per_s;
    // Only hot calls over a working set that streams from DRAM measure DRAM: no share of its peak
    // for one in (or partly in) L2, nor for cold calls over a straddling one (l2_placement.hpp).
    const auto l2 = static_cast<std::uint64_t>(std::max(dev.info.l2_bytes, 0));
    const suite::L2Placement placement = suite::l2_placement(working_set_bytes(c), l2);
    state.counters[suite::k_l2_resident_counter] =
        placement == suite::L2Placement::resident ? 1 : 0;
    if (dev.peak_gb_per_s > 0 && reports_dram_pct_of_peak(c) &&
        suite::is_dram_bandwidth(placement, t->cache()))
      state.counters["pct_of_peak"] = 100.0 * gb_per_s / dev.peak_gb_per_s;
    if (speedup) state.counters["speedup_over_v1"] = *speedup;
    state.counters["launches_per_call"] = launches_per_call(c);
    if (c.family == Family::gemm_bias_gelu && call_ms > 0)
      state.counters["TFLOP_per_s"] = gemm_flops(c) / (call_ms * 1e-3) / 1e12;
    // Launch-bound shapes: the time at the GPU's maximum SM clock (cudaDevAttrClockRate), from
    // the median and the samples' steady clock, so a run at a lower clock compares with one at
    // the maximum (fusion_cases.hpp launch_bound).
    const double at_max_s =
        suite::time_at_clock_s(t->call_s(), t->steady_clock_mhz(), dev.info.clock_khz / 1000.0);
    if (launch_bound(c) && at_max_s > 0)
      state.counters[k_time_at_max_clock_counter] = at_max_s * 1e6;
    t->write_counters(state);
    // Sample state (METHODOLOGY rule 5), stored with the samples, not as metrics: the kept
    // samples' lowest clock and their time window.
    suite::SampleStateRecorder states;
    t->record_kept(states);
    states.write(state);
    std::string label = std::string(kernels::to_string(c.dtype)) +
                        " kernels_per_call=" + std::to_string(kernels_per_call(c));
    if (c.variant == Variant::graph)
      label += " (one graph of " + std::to_string(p.graph_nodes()) + " nodes)";
    label += " " + t->summary() + " " + suite::describe_l2_placement(working_set_bytes(c), l2) +
             " fused_bytes=" + std::to_string(fused_bytes(c)) +
             " variant_bytes=" + std::to_string(variant_bytes(c));
    if (dev.peak_gb_per_s > 0) {
      char text[48];
      std::snprintf(text, sizeof text, " peak_GB_per_s=%.0f", dev.peak_gb_per_s);
      label += text;
    }
    const std::string more = p.describe();
    if (!more.empty()) label += " " + more;
    label += "; validated: " + v.summary;
    state.SetLabel(label);
  });
}

}  // namespace

void add_device_context(const std::vector<int>& devices, const std::string& reason) {
  std::vector<cu::DeviceInfo> infos;
  if (reason.empty()) {
    try {
      for (int d : devices) infos.push_back(cu::query_device(d));
    } catch (const std::exception&) {
      infos.clear();  // the cases will fail with the error when they query the device
    }
  }
  benchmark::AddCustomContext("gpubench.devices", cu::devices_json(infos));
}

void register_device_benchmarks(suite::Profile profile, const std::vector<int>& devices,
                                const std::string& reason) {
  for (const FusionCase& c : device_cases(profile, devices)) {
    suite::register_measured(benchmark_name(c), [c, profile, reason](benchmark::State& st) {
      run_device_case(st, c, profile, reason);
    });
  }
}

}  // namespace gpubench::fusion
