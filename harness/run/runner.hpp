// `gpubench run`: one run = environment probe + every selected suite as a child process, each
// suite's Google Benchmark JSON ingested into the store as it finishes.
//
// A suite that exits non-zero, dies from a signal, hangs past its timeout, or writes no/invalid
// JSON is recorded with that status and reason (valid JSON it wrote is still ingested) and the
// next suite runs. SIGINT/SIGTERM/SIGHUP stop the current suite's process group, record it as
// interrupted, skip the rest, and mark the run interrupted; finished suites stay stored.
// A run_id of 0 in the outcome: interrupted while waiting for the database lock at the start,
// nothing stored.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/probe/telemetry.hpp"
#include "harness/run/discovery.hpp"
#include "harness/run/progress.hpp"
#include "harness/run/settle.hpp"
#include "results/doctor_store.hpp"
#include "results/store.hpp"

namespace gpubench::harness {

struct ProfileDefaults {
  int repetitions;    // samples per benchmark, over all its executions
  double min_time_s;  // --benchmark_min_time for benchmarks that do not set their own
  // Separate processes per suite (issue 35): the profile's repetitions are spread over them, so
  // the spread between processes, which repetitions inside one process cannot see, is measured
  // by every run (compare/stats/executions.hpp).
  int executions;
  // Repetitions inside each execution: the profile's repetitions spread over its executions.
  int repetitions_per_execution() const { return (repetitions + executions - 1) / executions; }
};
// quick: 3 x 0.05 s in 3 executions, standard: 5 x 0.2 s in 5, full: 10 x 0.5 s in 10. Throws
// Error(bad_input) otherwise.
ProfileDefaults profile_defaults(const std::string& profile);

// The fewest executions a run may have: one leaves no between-execution variance.
inline constexpr int k_min_executions = 2;
// The most: a bound against typos (--executions 1000 would run every suite 1000 times).
inline constexpr int k_max_executions = 100;

// Cheap suites get more executions (Kalibera & Jones 2013: repeat where it is cheap and the
// variance is): with the profile's executions (not an explicit --executions), a suite whose
// execution takes d seconds gets floor(k_cheap_suite_budget_s / d) executions, at least the
// profile's and at most k_cheap_suite_max_executions. A calibration run of ~1 s per execution
// gets 10 instead of 3, its interval a third as wide, for seconds of run time; a suite of a
// minute per execution keeps the profile's.
inline constexpr double k_cheap_suite_budget_s = 10.0;
inline constexpr int k_cheap_suite_max_executions = 10;
// Executions of a suite whose one execution takes `execution_s`, the profile giving `executions`.
int executions_for_cost(int executions, double execution_s);

struct SuiteRunOptions {
  std::string profile = "standard";
  int repetitions = 5;  // inside each execution (--benchmark_repetitions)
  // Executions of every suite: separate processes, interleaved across the suites (calibration,
  // memory, ..., then again), each stored as its own suite run under the run.
  int executions = 1;
  // The profile's executions (not --executions): cheap suites get more (executions_for_cost,
  // from how long their first execution took).
  bool more_when_cheap = false;
  double min_time_s = 0.2;
  std::string filter;       // --benchmark_filter regex; empty = all
  double timeout_s = 1800;  // per suite, wall clock
  double kill_grace_s = 5;  // SIGTERM -> SIGKILL
  std::size_t stderr_tail_bytes = 8192;
  std::filesystem::path work_dir;  // where the suite's JSON goes (must exist)
  // Launcher words (`--launcher "mpirun -np 2"`, harness/process/launcher.hpp): the suite runs
  // under it. Empty: the suite runs directly.
  std::vector<std::string> launcher;
  // Called about once a second while the suite runs with the cases its console output has
  // reported so far (progress.hpp, issue 39). Null: the output is not watched.
  std::function<void(int cases)> on_cases;
};

struct SuiteOutcome {
  results::SuiteRunInfo info;
  int execution = 0;  // 0-based, among its suite's executions in the run
  int planned_executions = 1;  // of its suite in this run, as known when it finished
  results::IngestSummary summary;
  int64_t suite_run_id = 0;
  bool ingested = false;  // its JSON was stored
  int64_t telemetry_samples = 0;    // NVML samples stored for this suite run (all GPUs)
  int64_t telemetry_throttled = 0;  // of those, samples with a thermal/HW slowdown reason
  int64_t telemetry_power_limited = 0;  // of those, samples with the power cap reason
  // What NVML sampled while the suite ran; execute_run classifies the sample states with it.
  std::vector<results::TelemetrySample> telemetry;
  // Nonempty: the database refused the suite's results (locked past the busy timeout, disk
  // full); the suite is then recorded `failed` with this reason when the database allows.
  std::string store_error;
};

// Runs one suite (sampling telemetry with `sampler` when given) and stores its row, samples and
// telemetry under `run_id` in one transaction. A store failure is recorded in the outcome
// (store_error), not thrown; only OS failures (no fork, no pipe) throw.
// `execution` (0-based) names its scratch files; with more than one execution of the run, Google
// Benchmark's random interleaving shuffles the repetitions inside the process too (not under a
// multi-rank launcher, where every rank must run the same order). `note` (the settle step that
// came before it, settle.hpp) is stored in the suite run's reason, after any failure's reason.
SuiteOutcome run_suite(results::Store& store, int64_t run_id, const SuiteExecutable& suite,
                       const SuiteRunOptions& options, TelemetrySampler* sampler = nullptr,
                       int execution = 0, const std::string& note = {});

struct RunOptions {
  // Already selected; they run in run_order.hpp's order (order_suites), whatever the order here.
  std::vector<SuiteExecutable> suites;
  SuiteRunOptions suite_options;
  std::vector<std::pair<std::string, std::string>> tags;
  std::string note;
  std::vector<std::string> argv;  // of gpubench, recorded with the run
  // GPU telemetry while each suite runs (harness/probe/telemetry.hpp); 0 switches it off.
  int telemetry_interval_ms = k_default_telemetry_interval_ms;
  // Test hook: sample this source instead of NVML (tests pass a labelled fake). Null: NVML. The
  // settle step reads the same source.
  std::shared_ptr<TelemetrySource> telemetry_source;
  // The settle step after power-heavy suites (settle.hpp). Tests shorten it and pass a clock.
  SettlePolicy settle;
  std::optional<SettleClock> settle_clock;  // nullopt: real_settle_clock()
  // Readiness checks run before the run (harness/doctor/doctor.hpp), stored with it.
  std::vector<results::DoctorCheck> doctor;
  // Called with the run's id and scratch directory (the suites' GPUBENCH_RUN_SCRATCH) once the run
  // is stored, before its first suite, and after its last one (also when a signal stopped it),
  // before it is closed: `gpubench run` seeds and keeps gemm's cuBLASLt choices there
  // (harness/run/algorithm_seed.hpp). Null: nothing. What they throw fails the run.
  std::function<void(int64_t run_id, const std::filesystem::path& scratch)> before_suites;
  std::function<void(int64_t run_id, const std::filesystem::path& scratch)> after_suites;
  // How `progress` is written (progress.hpp): live on a terminal, lines in a log.
  ProgressStyle progress_style = ProgressStyle::live;
};

struct RunOutcome {
  int64_t run_id = 0;
  std::string uuid;
  results::RunStatus status = results::RunStatus::running;
  std::vector<SuiteOutcome> suites;  // in the order run
  // Suites with executions not run because of an interrupt, in the order they would have run,
  // one entry per suite; executions_not_run counts the executions.
  std::vector<std::string> not_run;
  int executions_not_run = 0;
  int executions = 1;  // planned per suite (cheap suites may get more: planned_executions)
  int interrupt_signal = 0;          // nonzero: SIGINT/SIGTERM/SIGHUP stopped the run
  // Nonempty: some suites' results could not be stored (see SuiteOutcome::store_error).
  std::string store_error;
  double duration_s = 0;
  // "sampled every 100 ms on 8 GPUs", or "unavailable: <reason>" / "disabled: <why>" (then also
  // recorded in the run's configuration env as gpubench.telemetry).
  std::string telemetry;
  bool telemetry_active = false;
  // The settle steps taken, in run order; each is also in the reason of the suite run it came
  // before.
  std::vector<SettleRecord> settles;
  // Nonempty when the order needs a settle (a power-heavy suite followed by a device suite) and
  // none can be done: "unavailable: <why>; no settle after gemm" (also recorded in the run's
  // configuration env as gpubench.settle).
  std::string settle_unavailable;
};

// Key of the run's Configuration::env entry that says why telemetry was not recorded.
inline constexpr const char* k_telemetry_env_key = "gpubench.telemetry";
// Key of the run's Configuration::env entry that says why the settle step could not be done.
inline constexpr const char* k_settle_env_key = "gpubench.settle";

// The whole run: every suite's executions, interleaved (execution 1 of every suite, then
// execution 2, ...), each round in run_order.hpp's order, with the settle step (settle.hpp)
// before a device suite that follows a power-heavy one. A suite that fails, crashes or times out in
// one execution is not run again in this run (its later executions would cost the same and say the
// same); nor is one whose filter matched nothing. `progress` (nullable) gets each execution's
// start, its cases as they are reported and its end (progress.hpp, options.progress_style), with
// the cases and seconds of the suite's own plan (run_plan.hpp), asked right before its first
// execution.
RunOutcome execute_run(results::Store& store, const RunOptions& options, std::ostream* progress);

// Short human reason for a finished child ("exited with code 2: <last stderr line>").
std::string last_line(const std::string& text);

}  // namespace gpubench::harness
