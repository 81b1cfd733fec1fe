// What every suite executable shares: how it declares its metrics, how it skips, which profile
// it runs, its main(), and the small steps every suite's own main() repeats around it.
//
// A suite is a standard Google Benchmark binary. On top of Google Benchmark's flags it accepts
//   --gpubench_info   print one JSON object (suite, metrics, availability; "mpi" from a suite
//                     whose ranks join through MPI) to stdout and exit 0
//   --gpubench_plan [--gpubench_plan_gpus=N] [--gpubench_plan_repetitions=N]
//                     print the suite's run plan (suites/common/plan.hpp) as one JSON object and
//                     exit 0: its cases for N GPUs (default 0) and the estimated seconds; runs
//                     nothing
// and it reads the environment variable GPUBENCH_PROFILE (quick|standard|full, default standard)
// to size its sweeps. `gpubench run` sets both up; run alone, a suite behaves like any Google
// Benchmark binary.
#pragma once

#include <benchmark/benchmark.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpubench {
class Error;
}

namespace gpubench::suite {

enum class Direction { higher, lower };

// What a metric is for (results/metric_roles.hpp): the primary metric(s) give a benchmark its one
// verdict (counted, gated on); secondary ones are shown, not counted; a parameter describes the
// case (e.g. work_units) and is never compared or charted. real_time and cpu_time become
// secondary when a suite declares a primary metric.
enum class Role { primary, secondary, parameter };

// A metric a suite reports as a Google Benchmark user counter of the same name.
struct MetricSpec {
  std::string name;  // counter name, e.g. "GB_per_s"
  std::string unit;  // e.g. "GB/s" (decimal), "TFLOP/s", "us", "%"
  Direction direction = Direction::higher;
  std::string description;
  Role role = Role::primary;
};

// Whether the suite (or part of it) can run on this machine, and why not.
struct Availability {
  bool runnable = true;            // false: every benchmark will be skipped
  std::string reason;              // empty when fully available
  std::vector<std::string> notes;  // e.g. "device cases: skipped: no CUDA device"
  // A multi-rank suite: whether it was built with MPI ("mpi" in --gpubench_info). Without MPI
  // every task a launcher starts is a world of one, so `gpubench run --launcher` refuses it
  // before launching. Unset for suites that do not run as ranks.
  std::optional<bool> mpi;
};

struct PlanRequest;
struct SuitePlan;

struct SuiteInfo {
  std::string name;  // "memory": benchmarks are named "memory/<case>/<k>:<v>/..."
  std::string description;
  std::vector<MetricSpec> metrics;
  std::function<Availability()> availability;  // may be empty: always available
  // Registers the suite's benchmarks for the given profile. Called once, before running.
  std::function<void()> register_benchmarks;
  // Optional: replaces Google Benchmark's JSON file reporter (only used with --benchmark_out;
  // not owned). The allreduce suite uses one that adds context learned during the run.
  benchmark::BenchmarkReporter* file_reporter = nullptr;
  // Optional: the suite's run plan for a (possibly hypothetical) server, from the same case
  // enumeration that register_benchmarks uses (suites/<suite>/<suite>_plan.cpp). Answers
  // --gpubench_plan; without it the plan lists no cases.
  std::function<SuitePlan(const PlanRequest&)> plan;
};

enum class Profile { quick, standard, full };
// From GPUBENCH_PROFILE; unknown values fall back to standard with a warning on stderr.
Profile profile_from_env();
const char* to_string(Profile profile);

// The JSON array stored under the context key "gpubench.metrics" (also part of --gpubench_info).
std::string metrics_json(const std::vector<MetricSpec>& metrics);

// Skips a benchmark with a reason that names the cause. Google Benchmark 1.7 has no skip state,
// so this reports an error whose message starts with "skipped: "; the results store records it as
// a skip, not a failure.
void skip(benchmark::State& state, std::string_view reason);
// Reports a failure (wrong result, API error): the run of this benchmark is an error.
void fail(benchmark::State& state, std::string_view reason);

// What runs before the body of every case registered with register_timed, given the case's
// name: a suite main sets it (pinning.hpp: the measuring thread moves to a CPU of the case's
// GPU's NUMA node). Empty by default. Set it before the benchmarks run; not thread-safe.
void set_before_each_case(std::function<void(const std::string& name)> hook);
void run_before_each_case(const std::string& name);

// `run` preceded by run_before_each_case(name): what register_timed registers. (Generic in the
// argument so tests can call it without a Google Benchmark state.)
template <class Run>
auto with_before_each_case(std::string name, Run run) {
  return [name = std::move(name), run = std::move(run)](auto& state) mutable {
    run_before_each_case(name);
    run(state);
  };
}

// Registers a benchmark that times its own samples (State::SetIterationTime, e.g. CUDA events or
// a thread's CPU clock): exactly `samples` iterations per repetition, so every repetition measures
// the same amount of work, reported in `unit`. `run(state)` is the benchmark's body, run after
// the before-each-case hook. Returns the benchmark for further settings.
template <class Run>
benchmark::internal::Benchmark* register_timed(const std::string& name,
                                               benchmark::IterationCount samples, Run run,
                                               benchmark::TimeUnit unit = benchmark::kMicrosecond) {
  return benchmark::RegisterBenchmark(name.c_str(), with_before_each_case(name, std::move(run)))
      ->UseManualTime()
      ->Iterations(samples)
      ->Unit(unit);
}

// Runnable unless `reason` (why no case can run: no device, a bad setting) is non-empty; then
// every benchmark will be skipped and --gpubench_info says why.
Availability available_unless(std::string reason);

// The --gpubench_info note on a suite's device cases, for suites that also have host cases:
// "device cases: available", or "device cases: skipped: <unavailable_reason>".
std::string device_cases_note(const std::string& unavailable_reason);
// The same note in a build without CUDA, where the device cases do not exist.
inline constexpr const char* k_device_cases_not_built =
    "device cases: not built (gpubench was built without CUDA)";

// Whether argv (argv[0] aside) holds `flag` exactly, e.g. "--gpubench_info": mains look before
// suite_main() does, to skip work that listing and planning do not need.
bool has_arg(int argc, char** argv, std::string_view flag);

// Prints `e` on stderr as "<program>: error: <what> (<why>; <fix>)", the CLI's format, and returns
// the exit code it carries: what a suite's main returns for a bad flag or setting, before any
// benchmark runs. `program` is e.g. "gpubench-launch".
int report_error(std::string_view program, const Error& e);

// The whole main() of a suite: handles --gpubench_info, declares metrics in the custom context,
// registers benchmarks, runs them. Returns the process exit code.
int suite_main(int argc, char** argv, const SuiteInfo& info);

}  // namespace gpubench::suite
