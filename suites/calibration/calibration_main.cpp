// gpubench-calibration: a CPU workload whose amount is scaled by GPUBENCH_CALIBRATION_SCALE, so
// compare/accept can be checked against a known effect on real measurements (calibration_work.hpp).
//
// Names: calibration/<workload>/base_units:<units per call at scale 1>; Google Benchmark appends
// /iterations:<calls per repetition>/manual_time. The name carries the base amount, not the scaled
// one, so runs at different scales line up as the same benchmark and the scale shows as an effect.
//
// Timing: the thread's CPU time per call (see thread_cpu_seconds), reported as manual time.
// Counters per benchmark: ms_per_call (lower is better), calls_per_s (higher is better), and
// work_units (units per call after scaling; deliberately not declared as a metric: it is the
// experiment's setting, with no better or worse).
#include <benchmark/benchmark.h>

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "suites/calibration/calibration_plan.hpp"
#include "suites/calibration/calibration_work.hpp"
#include "suites/common/suite_support.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace {

using gpubench::suites::calibration::Workload;

using gpubench::suites::calibration::CalibrationCase;
using gpubench::suites::calibration::k_cases;
using gpubench::suites::calibration::k_units_per_repetition;

// CPU time of the calling thread, in seconds. The workload never blocks or touches memory beyond
// registers, so on an idle machine its CPU time equals its wall time; on a shared one (this
// project's 2-core CI box runs several builds at once) wall time also counts the time the thread
// waited for a CPU, which is noise about the machine, not about the work. CPU time keeps the A/A
// spread at ~1-2% where wall time spreads by tens of percent under load.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void calibration_benchmark(benchmark::State& state, CalibrationCase c, double scale) {
  namespace cal = gpubench::suites::calibration;
  const std::uint64_t units = cal::scaled_work_units(c.base_units, scale);
  std::uint64_t seed = 0x243F6A8885A308D3ull;
  benchmark::DoNotOptimize(cal::run_work(c.workload, units, seed));  // warm-up call
  double timed_s = 0;
  for (auto _ : state) {
    const double t0 = thread_cpu_seconds();
    const std::uint64_t result = cal::run_work(c.workload, units, seed);
    benchmark::DoNotOptimize(result);
    const double s = thread_cpu_seconds() - t0;
    state.SetIterationTime(s);
    timed_s += s;
    seed = result;  // each call starts where the last ended: nothing to hoist out of the loop
  }
  const double calls = static_cast<double>(state.iterations());
  state.counters["ms_per_call"] = calls > 0 ? timed_s * 1e3 / calls : 0.0;
  state.counters["calls_per_s"] = timed_s > 0 ? calls / timed_s : 0.0;
  state.counters["work_units"] = static_cast<double>(units);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpubench::suite;
  namespace cal = gpubench::suites::calibration;

  const bool info_only =
      has_arg(argc, argv, "--gpubench_info") || has_arg(argc, argv, "--gpubench_plan");
  double scale = 1.0;
  std::string scale_error;
  try {
    scale = cal::calibration_scale_from_env();
  } catch (const gpubench::Error& e) {
    if (!info_only) return report_error("gpubench-calibration", e);
    scale_error = e.what();
  }

  SuiteInfo info;
  info.name = "calibration";
  info.description =
      "Steady single-threaded CPU workload (dependent integer and floating-point chains) whose "
      "amount is scaled by GPUBENCH_CALIBRATION_SCALE, for checking compare against a known effect";
  info.metrics = {
      {"calls_per_s", "calls/s", Direction::higher, "Calls of the workload completed per second"},
      {"ms_per_call", "ms", Direction::lower,
       "CPU time of one call of the workload (thread CPU clock; equals wall time when the CPU "
       "is not shared)",
       Role::secondary},
      {"work_units", "units", Direction::higher,
       "Work units per call after scaling: describes the case, not a measurement", Role::parameter},
  };
  info.availability = [scale_error] { return available_unless(scale_error); };
  info.plan = [scale](const PlanRequest& request) { return cal::plan_calibration(request, scale); };
  info.register_benchmarks = [scale] {
    for (const CalibrationCase& c : k_cases) {
      const std::string name = cal::case_name(c);
      const auto calls = static_cast<benchmark::IterationCount>(
          std::max<std::uint64_t>(1, k_units_per_repetition / c.base_units));
      register_timed(
          name, calls,
          [c, scale](benchmark::State& state) { calibration_benchmark(state, c, scale); },
          benchmark::kMillisecond);
    }
  };
  benchmark::AddCustomContext("gpubench.calibration_scale", gpubench::format_significant(scale, 6));
  return suite_main(argc, argv, info);
}
