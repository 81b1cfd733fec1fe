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
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/probe/telemetry.hpp"
#include "harness/run/discovery.hpp"
#include "results/doctor_store.hpp"
#include "results/store.hpp"

namespace gpubench::harness {

struct ProfileDefaults {
  int repetitions;    // samples per benchmark
  double min_time_s;  // --benchmark_min_time for benchmarks that do not set their own
};
// quick: 3 x 0.05 s, standard: 5 x 0.2 s, full: 10 x 0.5 s. Throws Error(bad_input) otherwise.
ProfileDefaults profile_defaults(const std::string& profile);

struct SuiteRunOptions {
  std::string profile = "standard";
  int repetitions = 5;
  double min_time_s = 0.2;
  std::string filter;       // --benchmark_filter regex; empty = all
  double timeout_s = 1800;  // per suite, wall clock
  double kill_grace_s = 5;  // SIGTERM -> SIGKILL
  std::size_t stderr_tail_bytes = 8192;
  std::filesystem::path work_dir;  // where the suite's JSON goes (must exist)
  // Launcher words (`--launcher "mpirun -np 2"`, harness/process/launcher.hpp): the suite runs
  // under it. Empty: the suite runs directly.
  std::vector<std::string> launcher;
};

struct SuiteOutcome {
  results::SuiteRunInfo info;
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
SuiteOutcome run_suite(results::Store& store, int64_t run_id, const SuiteExecutable& suite,
                       const SuiteRunOptions& options, TelemetrySampler* sampler = nullptr);

struct RunOptions {
  std::vector<SuiteExecutable> suites;  // already selected
  SuiteRunOptions suite_options;
  std::vector<std::pair<std::string, std::string>> tags;
  std::string note;
  std::vector<std::string> argv;  // of gpubench, recorded with the run
  // GPU telemetry while each suite runs (harness/probe/telemetry.hpp); 0 switches it off.
  int telemetry_interval_ms = k_default_telemetry_interval_ms;
  // Test hook: sample this source instead of NVML (tests pass a labelled fake). Null: NVML.
  std::shared_ptr<TelemetrySource> telemetry_source;
  // Readiness checks run before the run (harness/doctor/doctor.hpp), stored with it.
  std::vector<results::DoctorCheck> doctor;
};

struct RunOutcome {
  int64_t run_id = 0;
  std::string uuid;
  results::RunStatus status = results::RunStatus::running;
  std::vector<SuiteOutcome> suites;  // in the order run
  std::vector<std::string> not_run;  // suites skipped because of an interrupt
  int interrupt_signal = 0;          // nonzero: SIGINT/SIGTERM/SIGHUP stopped the run
  // Nonempty: some suites' results could not be stored (see SuiteOutcome::store_error).
  std::string store_error;
  double duration_s = 0;
  // "sampled every 100 ms on 8 GPUs", or "unavailable: <reason>" / "disabled: <why>" (then also
  // recorded in the run's configuration env as gpubench.telemetry).
  std::string telemetry;
  bool telemetry_active = false;
};

// Key of the run's Configuration::env entry that says why telemetry was not recorded.
inline constexpr const char* k_telemetry_env_key = "gpubench.telemetry";

// The whole run. `progress` (nullable) gets one line per suite as it finishes.
RunOutcome execute_run(results::Store& store, const RunOptions& options, std::ostream* progress);

// Short human reason for a finished child ("exited with code 2: <last stderr line>").
std::string last_line(const std::string& text);

}  // namespace gpubench::harness
