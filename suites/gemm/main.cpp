// gpubench-gemm: cuBLASLt / cuBLAS matrix multiply throughput (DESIGN.md "Suites", METHODOLOGY
// 1-9; suites/gemm/README.md).
//
// Every case: operands filled on the device with seeded random-normal values; for cuBLASLt the
// heuristic's candidates (up to 16) are each timed 5 times and the fastest median is kept unless
// better-ranked candidates are within 2% of it (choose_candidate: near-ties go to the heuristic's
// rank, so noise does not flip the kernel between runs; recorded in the label). Then per
// repetition (issue 36), queued behind a spin kernel and timed with events:
//   hot   batches of back-to-back calls of about the profile's batch target
//         (suite::sampling_policy); warm-up until the SM clock is steady (suite::ClockSettle),
//         then samples until the noise target or the time budget (suite::SampleSeries); samples
//         off the steady clock are left out of the median and counted.
//   cold  batches of (L2 flush, call) pairs, each call alone between its own events
//         (BatchTimer::time_flushed_calls); the same warm-up, then hundreds of flushed calls
//         (cold_pairs_per_repetition); batches off the steady clock are left out; the value is
//         the trimmed mean of the single calls (ColdSeries).
// The SM clock is probed after every batch and reported with the repetition's time window as
// sample state (suites/README.md "Sample states"); the output is validated against the CPU
// reference on a sampled subset after every repetition, and the label prints the counts.
// A case this GPU cannot run is skipped with the reason, and so is a case that would take more
// than k_max_case_seconds at this GPU's peak for its data type (FP64 16384^3 on a GPU with
// 1/64-rate FP64), and fp64 while CUBLAS_EMULATE_DOUBLE_PRECISION asks cuBLAS to emulate it.
//
// Flags besides Google Benchmark's: --device N | all (or GPUBENCH_DEVICE), --gpubench_info.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/cuda/libraries.hpp"
#include "suites/common/cuda/pinning.hpp"
#include "suites/common/device_flag.hpp"
#include "suites/common/peak.hpp"
#include "suites/common/sample_state_counters.hpp"
#include "suites/common/sampling.hpp"
#include "suites/common/suite_support.hpp"
#include "suites/gemm/gemm_cases.hpp"
#include "suites/gemm/gemm_plan.hpp"
#include "suites/gemm/gemm_runner.hpp"
#include "util/error.hpp"

namespace gpubench::gemm {
namespace {

using suite::cuda::CacheState;

struct SuiteState {
  suite::cuda::DeviceProbe probe;
  std::vector<int> devices;
  suite::Profile profile = suite::Profile::standard;
  // Device contexts and the one prepared case are deliberately never destroyed: tearing down
  // cuBLAS handles from static destructors, after the CUDA runtime has unloaded, can crash.
  std::map<int, DeviceContext*> contexts;
  std::string prepared_name;
  std::unique_ptr<PreparedGemm> prepared;
  // Dense peak per (device, dtype), from the device query at start: sizes the sweep per GPU.
  std::map<std::pair<int, suite::DType>, std::optional<double>> peaks;
  // Per device, the steady SM clock of the case before (MHz): a warm-up that finds the GPU there
  // ends at once (suite::ClockSettle).
  std::map<int, double> last_steady_mhz;
};

SuiteState& state_of_suite() {
  static auto* s = new SuiteState();
  return *s;
}

DeviceContext& context_for(int device) {
  auto& s = state_of_suite();
  auto it = s.contexts.find(device);
  if (it != s.contexts.end()) return *it->second;
  auto* ctx = new DeviceContext(device);
  s.contexts.emplace(device, ctx);
  return *ctx;
}

// Repetitions of one benchmark run back to back: keep its prepared GEMM (operands, chosen
// algorithm) between them, and free it before the next case allocates.
PreparedGemm& prepared_for(const GemmCase& c, const std::string& name) {
  auto& s = state_of_suite();
  if (s.prepared && s.prepared_name == name) return *s.prepared;
  s.prepared.reset();
  s.prepared_name.clear();
  DeviceContext& dev = context_for(c.device);
  s.prepared = std::make_unique<PreparedGemm>(c, dev);
  s.prepared_name = name;
  return *s.prepared;
}

std::string describe_sizes(const GemmCase& c) {
  const double gib = static_cast<double>(operand_bytes(c)) / (1024.0 * 1024.0 * 1024.0);
  char text[64];
  std::snprintf(text, sizeof text, "%.2f GiB of operands", gib);
  return "m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) +
         " " + suite::to_string(c.dtype) + ", " + text;
}

// What one repetition measured.
struct Measured {
  double call_s = 0;     // the case's value: the time of one call
  std::string sampling;  // the series' summary and the batch size, for the label
};

// The repetition's sample state: its whole window, with the lowest clock of the samples kept.
struct Window {
  double start_s = 0;
  double end_s = 0;
  bool any = false;
  void add(double start, double end) {
    if (!any) start_s = start;
    end_s = end;
    any = true;
  }
};

Measured measure_hot(benchmark::State& state, PreparedGemm& g, DeviceContext& dev,
                     suite::SampleStateRecorder& states, double& last_steady_mhz) {
  const auto& s = state_of_suite();
  const double call_s = g.algorithm().median_call_ms * 1e-3;
  const int calls = hot_calls_per_batch(call_s, suite::sampling_policy(s.profile).batch_target_s,
                                        g.kernels_per_call(), suite::cuda::k_max_queued_kernels);
  const suite::SamplingPolicy policy = hot_policy(s.profile, calls * call_s);
  const auto batch = [&] {
    return dev.timer.time_batch([&] { g.enqueue(calls); }, CacheState::hot);
  };
  suite::ClockSettle warm(policy, last_steady_mhz);
  while (!warm.done()) {
    const auto b = batch();
    warm.add(b.sm_clock_mhz, b.elapsed_ms * 1e-3);
  }
  suite::SampleSeries series(policy);
  Window window;
  while (!series.done()) {
    const double start_s = suite::SampleStateRecorder::now_s();
    const auto b = batch();
    window.add(start_s, suite::SampleStateRecorder::now_s());
    series.add(b.elapsed_ms * 1e-3 / calls, b.sm_clock_mhz, b.elapsed_ms * 1e-3);
  }
  states.add(series.min_kept_clock_mhz(), window.start_s, window.end_s);
  if (series.steady_clock_mhz() > 0) last_steady_mhz = series.steady_clock_mhz();
  suite::write_sampling_counters(state, series);
  return {series.median_s(), series.summary() + " calls_per_sample=" + std::to_string(calls)};
}

Measured measure_cold(benchmark::State& state, PreparedGemm& g, DeviceContext& dev,
                      suite::SampleStateRecorder& states, double& last_steady_mhz) {
  const auto& s = state_of_suite();
  const int pairs = cold_pairs_per_batch(g.kernels_per_call(), suite::cuda::k_max_queued_kernels);
  // The profile's clock rules (steadiness, off-clock tolerance, warm-up budget); the pair count
  // replaces its sample count and noise stop.
  const suite::SamplingPolicy policy = suite::sampling_policy(s.profile);
  const auto batch = [&] { return dev.timer.time_flushed_calls([&] { g.enqueue(1); }, pairs); };
  suite::ClockSettle warm(policy, last_steady_mhz);
  while (!warm.done()) {
    const auto b = batch();
    warm.add(b.sm_clock_mhz, b.elapsed_ms * 1e-3);
  }
  ColdSeries series(policy, cold_pairs_per_repetition(s.profile));
  Window window;
  std::vector<double> call_s;
  while (!series.done()) {
    const double start_s = suite::SampleStateRecorder::now_s();
    const auto b = batch();
    window.add(start_s, suite::SampleStateRecorder::now_s());
    call_s.clear();
    for (double ms : b.call_ms) call_s.push_back(ms * 1e-3);
    series.add_batch(call_s, b.sm_clock_mhz, b.elapsed_ms * 1e-3);
  }
  states.add(series.min_kept_clock_mhz(), window.start_s, window.end_s);
  if (series.steady_clock_mhz() > 0) last_steady_mhz = series.steady_clock_mhz();
  state.counters[suite::k_samples_counter] = static_cast<double>(series.kept().size());
  state.counters[suite::k_off_clock_counter] = series.off_clock();
  state.counters[suite::k_noise_counter] = 100.0 * series.noise();
  return {series.value_s(), series.summary()};
}

void run_case(benchmark::State& state, const GemmCase& c, const std::string& name) {
  auto& s = state_of_suite();
  if (!s.probe.reason.empty()) {
    suite::skip(state, s.probe.reason);
    return;
  }
  if (c.dtype == suite::DType::fp64) {
    if (const auto why = fp64_emulation_reason(std::getenv("CUBLAS_EMULATE_DOUBLE_PRECISION"))) {
      suite::skip(state, *why);
      return;
    }
  }
  if (const auto it = s.peaks.find({c.device, c.dtype}); it != s.peaks.end()) {
    if (const auto why = too_slow_reason(c, s.profile, it->second)) {
      suite::skip(state, *why);
      return;
    }
  }
  suite::run_guarded(state, describe_sizes(c), [&] {
    GPUBENCH_CUDA_CHECK(cudaSetDevice(c.device));
    PreparedGemm& g = [&]() -> PreparedGemm& {
      try {
        return prepared_for(c, name);
      } catch (...) {
        s.prepared.reset();
        s.prepared_name.clear();
        throw;
      }
    }();
    DeviceContext& dev = context_for(c.device);
    Measured measured;
    suite::SampleStateRecorder states;  // clock and time window: the harness judges the state
    double& last_steady = s.last_steady_mhz[c.device];
    // One Google Benchmark iteration per repetition: the series takes its own samples.
    for (auto _ : state) {
      measured = c.cache == Cache::cold ? measure_cold(state, g, dev, states, last_steady)
                                        : measure_hot(state, g, dev, states, last_steady);
      state.SetIterationTime(measured.call_s);
    }
    // Validate what the timed calls produced before reporting anything.
    const suite::ValidationReport report = g.validate();
    if (!report.passed()) {
      suite::fail(state, "validation failed: " + report.summary());
      return;
    }
    const double tflops = gemm_flops(c.m, c.n, c.k) / measured.call_s / 1e12;
    state.counters["TFLOP_per_s"] = tflops;
    state.counters["time_per_call_us"] = measured.call_s * 1e6;
    states.write(state);
    const suite::GpuSpec spec{dev.info.cc_major, dev.info.cc_minor, dev.info.sm_count,
                              dev.info.clock_khz / 1000.0, dev.info.name};
    const suite::PeakEstimate peak = suite::dense_peak(spec, c.dtype);
    char worst[32];
    std::snprintf(worst, sizeof worst, "%.1e", report.worst_error());
    std::string label =
        compute_label(c) + " " + g.algorithm().description + " " + measured.sampling +
        " validated=" + std::to_string(report.checked() - report.failed()) + "/" +
        std::to_string(report.checked()) + "_sampled_elements(worst_rel_err=" + worst + ")";
    if (peak.tflops) {
      state.counters["pct_of_peak"] = 100.0 * tflops / *peak.tflops;
      char text[48];
      std::snprintf(text, sizeof text, " peak_TFLOP_per_s=%.1f", *peak.tflops);
      label += text;
    } else {
      label += " peak=unknown";
    }
    if (!peak.note.empty()) label += " (" + peak.note + ")";
    state.SetLabel(label);
  });
}

std::vector<suite::MetricSpec> metrics() {
  using suite::Direction;
  std::vector<suite::MetricSpec> out = {
      {"TFLOP_per_s", "TFLOP/s", Direction::higher,
       "2*m*n*k per call / time_per_call_us (TOP/s for int8)"},
      {"pct_of_peak", "%", Direction::higher,
       "TFLOP_per_s as a share of the computed dense peak of this GPU", suite::Role::secondary},
      {"time_per_call_us", "us", Direction::lower,
       "time of one GEMM call, event-timed: hot, the median over the kept batches of a batch's "
       "time per call; cold, the 10%-trimmed mean of single calls each right after an L2 flush",
       suite::Role::secondary},
  };
  // samples, samples_off_clock, noise_pct (cold: single flushed calls, not batches).
  for (suite::MetricSpec& m : suite::sampling_metrics()) out.push_back(std::move(m));
  return out;
}

void register_all() {
  auto& s = state_of_suite();
  for (const GemmCase& c : gemm_cases(s.profile, s.devices)) {
    const std::string name = benchmark_name(c);
    suite::register_measured(name, [c, name](benchmark::State& st) { run_case(st, c, name); });
  }
}

int gemm_main(int argc, char** argv) {
  auto& s = state_of_suite();
  s.probe = suite::cuda::probe_devices();
  // cuBLAS and cuBLASLt are loaded at run time: without them every case is skipped with the
  // library's reason (which soname, where it was looked for).
  using suite::cuda::Library;
  if (s.probe.reason.empty()) {
    s.probe.reason = suite::cuda::unavailable_reason({Library::cublasLt, Library::cublas});
  }
  suite::cuda::add_libraries_context({Library::cublasLt, Library::cublas});
  s.profile = suite::profile_from_env();
  try {
    s.devices = suite::take_devices(argc, argv, [&s] { return s.probe.count; });
  } catch (const gpubench::Error& e) {
    return suite::report_error("gpubench-gemm", e);
  }
  // Before any CUDA context: each case runs on one CPU of its GPU's NUMA node.
  suite::cuda::pin_before_each_case(s.devices);
  std::vector<suite::cuda::DeviceInfo> infos;
  if (s.probe.count > 0) {
    try {
      for (int d : s.devices) infos.push_back(suite::cuda::query_device(d));
    } catch (const std::exception& e) {
      s.probe.reason = std::string("cannot query the CUDA device: ") + e.what();
    }
  }
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const auto& d = infos[i];
    const suite::GpuSpec spec{d.cc_major, d.cc_minor, d.sm_count, d.clock_khz / 1000.0, d.name};
    for (suite::DType dtype : suite::k_all_dtypes)
      s.peaks[{s.devices[i], dtype}] = suite::dense_peak(spec, dtype).tflops;
  }
  benchmark::AddCustomContext("gpubench.devices", suite::cuda::devices_json(infos));
  benchmark::AddCustomContext(
      "gpubench.gemm.inputs",
      "seeded normal(0,1) (A seed 1, B seed 2, splitmix64 + Box-Muller on the device); "
      "int8: round(normal(0,32)) clamped to +-127; fp8 A/B scales 1.0, output bf16");
  suite::SuiteInfo info;
  info.name = "gemm";
  info.description = "cuBLASLt/cuBLAS matrix multiply: FP64, FP32, TF32, FP16, BF16, FP8, INT8";
  info.metrics = metrics();
  info.availability = [&s] {
    suite::Availability a = suite::available_unless(s.probe.reason);
    a.notes.push_back(suite::cuda::library_note(Library::cublasLt));
    a.notes.push_back(suite::cuda::library_note(Library::cublas));
    return a;
  };
  info.plan = plan_gemm;
  info.register_benchmarks = register_all;
  return suite::suite_main(argc, argv, info);
}

}  // namespace
}  // namespace gpubench::gemm

int main(int argc, char** argv) {
  return gpubench::gemm::gemm_main(argc, argv);
}
