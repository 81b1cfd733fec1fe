#include "harness/runner.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <ostream>

#include "harness/environment.hpp"
#include "harness/launcher.hpp"
#include "harness/nvml.hpp"
#include "harness/process.hpp"
#include "results/ingest.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace gpubench::harness {

namespace {

std::string current_user() {
  if (const char* u = std::getenv("USER"); u && *u) return u;
  if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_name) return pw->pw_name;
  return results::k_unknown;
}

// "0.5", "1800", "12.3": seconds for messages, without trailing zeros.
std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s >= 100 ? "%.0f" : "%.3g", s);
  return buf;
}

// Reads and checks the suite's JSON. Returns the document, or sets `problem`.
std::optional<nlohmann::json> load_suite_json(const fs::path& path, std::string& problem) {
  std::error_code ec;
  if (!fs::exists(path, ec) || fs::file_size(path, ec) == 0) {
    problem = "wrote no benchmark JSON";
    return std::nullopt;
  }
  std::string text;
  try {
    text = read_file(path);
  } catch (const Error& e) {
    problem = std::string("its JSON cannot be read: ") + e.what();
    return std::nullopt;
  }
  // Google Benchmark writes bare NaN (e.g. the cv of a constant counter): parse_benchmark_json
  // accepts that, plain JSON parsing would reject a good file.
  nlohmann::json doc;
  try {
    doc = results::parse_benchmark_json(text, path.filename().string());
  } catch (const Error&) {
    problem = "wrote output that is not valid JSON (truncated or garbage, " +
              std::to_string(text.size()) + " bytes)";
    return std::nullopt;
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    problem = "wrote JSON that is not Google Benchmark output (no \"benchmarks\" array)";
    return std::nullopt;
  }
  return doc;
}

}  // namespace

std::string last_line(const std::string& text) {
  const std::string t(trim(text));
  const auto nl = t.rfind('\n');
  std::string line = nl == std::string::npos ? t : t.substr(nl + 1);
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

ProfileDefaults profile_defaults(const std::string& profile) {
  if (profile == "quick") return {3, 0.05};
  if (profile == "standard") return {5, 0.2};
  if (profile == "full") return {10, 0.5};
  throw bad_input("unknown profile '" + profile + "'", "profiles are quick, standard and full",
                  "use --profile quick|standard|full");
}

SuiteOutcome run_suite(results::Store& store, int64_t run_id, const SuiteExecutable& suite,
                       const SuiteRunOptions& options) {
  SuiteOutcome out;
  results::SuiteRunInfo& info = out.info;
  info.suite = suite.name;
  info.executable = suite.path.string();
  const fs::path json_path = options.work_dir / (suite.name + ".json");
  info.argv = {suite.path.string(),
               "--benchmark_out=" + json_path.string(),
               "--benchmark_out_format=json",
               "--benchmark_format=console",
               "--benchmark_repetitions=" + std::to_string(options.repetitions),
               "--benchmark_min_time=" + seconds_text(options.min_time_s)};
  if (!options.filter.empty()) info.argv.push_back("--benchmark_filter=" + options.filter);
  const LaunchCommand launch = launch_command(
      runs_under_launcher(suite.name) ? options.launcher : std::vector<std::string>{}, info.argv);
  info.argv = launch.argv;  // stored as run: with the launcher in front

  ProcessSpec spec;
  spec.argv = info.argv;
  spec.env = {{"GPUBENCH_PROFILE", options.profile}, {"CUDA_DEVICE_ORDER", k_cuda_device_order}};
  spec.stdout_path = options.work_dir / (suite.name + ".console.txt");
  spec.stderr_tail_bytes = options.stderr_tail_bytes;
  spec.timeout_s = options.timeout_s;
  spec.kill_grace_s = options.kill_grace_s;

  info.started_at = now_iso8601_utc();
  ProcessResult r;
  if (launch.problem.empty()) {
    r = run_process(spec);
  } else {
    r.spawn_error = launch.problem;
  }
  info.finished_at = now_iso8601_utc();
  info.duration_s = r.duration_s;
  info.exit_code = r.exit_code;
  info.term_signal = r.term_signal;
  info.stderr_tail = r.stderr_truncated ? "[...]\n" + r.stderr_tail : r.stderr_tail;

  std::string json_problem;
  std::optional<nlohmann::json> doc = load_suite_json(json_path, json_problem);
  const std::string err_line = last_line(r.stderr_tail);
  const std::string err_suffix = err_line.empty() ? "" : ": " + err_line;

  if (!r.spawn_error.empty()) {
    info.status = results::SuiteStatus::failed;
    info.reason = r.spawn_error;
  } else if (r.interrupt_signal != 0) {
    info.status = results::SuiteStatus::interrupted;
    info.reason = "interrupted by " + signal_name(r.interrupt_signal) + " after " +
                  seconds_text(r.duration_s) + " s";
  } else if (r.timed_out) {
    info.status = results::SuiteStatus::timeout;
    info.reason = "did not finish within " + seconds_text(options.timeout_s) +
                  " s and was stopped; raise --timeout-per-suite or narrow --filter";
  } else if (r.term_signal) {
    info.status = results::SuiteStatus::crashed;
    info.reason = "killed by " + signal_name(*r.term_signal) + " (signal " +
                  std::to_string(*r.term_signal) + ")" + err_suffix;
  } else if (r.exit_code != 0) {
    info.status = results::SuiteStatus::failed;
    info.reason = "exited with code " + std::to_string(r.exit_code.value_or(-1)) + err_suffix;
  } else if (!doc) {
    // Google Benchmark exits 0 without writing anything when the filter matches nothing here.
    if (r.stderr_tail.find("Failed to match any benchmarks") != std::string::npos) {
      info.status = results::SuiteStatus::ok;
      info.reason = "no benchmark matches the filter";
    } else {
      info.status = results::SuiteStatus::failed;
      info.reason = json_problem;
    }
  }
  out.suite_run_id = store.add_suite_run(run_id, info);
  if (doc) {
    try {
      out.summary = store.ingest_benchmark_json(out.suite_run_id, *doc, suite.name);
      out.ingested = true;
    } catch (const Error& e) {
      if (e.code() != ExitCode::bad_input) throw;
      // The stored suite row says how the child ended; the outcome also says why nothing was kept.
      if (out.info.status == results::SuiteStatus::ok) {
        out.info.status = results::SuiteStatus::failed;
        out.info.reason = std::string("its JSON could not be stored: ") + e.what();
      }
    }
  }
  return out;
}

RunOutcome execute_run(results::Store& store, const RunOptions& options, std::ostream* progress) {
  InterruptGuard guard;
  RunOutcome outcome;
  const double start = monotonic_seconds();

  results::RunInfo info;
  Environment env = probe_environment(options.suite_options.profile);
  info.user = current_user();
  info.argv = options.argv;
  info.tags = options.tags;
  info.note = options.note;
  info.host = std::move(env.host);
  info.gpus = std::move(env.gpus);
  info.software = std::move(env.software);
  info.config = std::move(env.config);
  info.config.env["CUDA_DEVICE_ORDER"] = k_cuda_device_order;  // what the suites run with

  // Telemetry: decided before the run is stored, so a run without it says why in its record.
  std::unique_ptr<Nvml> nvml;
  std::shared_ptr<TelemetrySource> source = options.telemetry_source;
  std::string telemetry_off;
  if (options.telemetry_interval_ms <= 0) {
    telemetry_off = "disabled: GPUBENCH_TELEMETRY_INTERVAL_MS=0";
  } else if (!source) {
    nvml = std::make_unique<Nvml>();
    if (auto why = telemetry_unavailable_reason(*nvml)) {
      telemetry_off = "unavailable: " + *why;
    } else {
      source = std::make_shared<NvmlTelemetrySource>(*nvml);
    }
  }
  std::optional<TelemetrySampler> sampler;
  // steady_clock is CLOCK_MONOTONIC, shared with the suites' sample windows (window_start_s).
  double telemetry_origin_s = 0;
  if (telemetry_off.empty()) {
    const int gpus = source->device_count();
    if (gpus <= 0) {
      telemetry_off = "unavailable: no GPUs to sample";
    } else {
      const auto origin = std::chrono::steady_clock::now();
      telemetry_origin_s = std::chrono::duration<double>(origin.time_since_epoch()).count();
      sampler.emplace(*source, std::chrono::milliseconds(options.telemetry_interval_ms), origin);
      outcome.telemetry_active = true;
      outcome.telemetry = "sampled every " + std::to_string(options.telemetry_interval_ms) +
                          " ms on " + std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s");
    }
  }
  if (!telemetry_off.empty()) {
    outcome.telemetry = telemetry_off;
    info.config.env[k_telemetry_env_key] = telemetry_off;
    if (progress) *progress << "telemetry " << telemetry_off << "\n" << std::flush;
  }
  outcome.run_id = store.begin_run(info);
  if (!options.doctor.empty()) results::add_doctor_checks(store, outcome.run_id, options.doctor);
  try {
    outcome.uuid = store.get_run(outcome.run_id).run.uuid;
  } catch (const Error&) {
    outcome.uuid.clear();
  }

  TempDir work("gpubench-run");
  SuiteRunOptions suite_options = options.suite_options;
  suite_options.work_dir = work.path();
  bool any_failed = false;
  try {
    const std::size_t total = options.suites.size();
    for (std::size_t i = 0; i < total; ++i) {
      const SuiteExecutable& suite = options.suites[i];
      if (interrupt_signal() != 0) {
        outcome.not_run.push_back(suite.name);
        continue;
      }
      if (progress) {
        *progress << "[" << (i + 1) << "/" << total << "] " << suite.name << " ..." << std::flush;
      }
      if (sampler) sampler->start();
      SuiteOutcome s = run_suite(store, outcome.run_id, suite, suite_options);
      std::vector<results::TelemetrySample> rows;
      if (sampler) {
        rows = sampler->stop();
        store.add_telemetry(outcome.run_id, s.suite_run_id, rows);
        const TelemetryCounts counts = count_telemetry(rows);
        s.telemetry_samples = counts.samples;
        s.telemetry_throttled = counts.throttled;
        s.telemetry_power_limited = counts.power_limited;
      }
      // Sample states from the telemetry overlapping each sample, else the clock probe.
      if (s.ingested) {
        store.classify_samples(s.suite_run_id, rows, telemetry_origin_s,
                               std::max(options.telemetry_interval_ms, 1) / 1000.0);
      }
      if (s.info.status != results::SuiteStatus::ok) any_failed = true;
      if (progress) {
        *progress << " " << results::to_string(s.info.status) << " (" << s.summary.benchmarks
                  << " benchmarks, " << seconds_text(s.info.duration_s) << " s)";
        if (!s.info.reason.empty()) *progress << ": " << s.info.reason;
        if (s.telemetry_throttled > 0) {
          *progress << " [thermal/HW slowdown in " << s.telemetry_throttled << " of "
                    << s.telemetry_samples << " telemetry samples: affected samples invalid]";
        }
        if (s.telemetry_power_limited > 0) {
          *progress << " [power-limited in " << s.telemetry_power_limited << " of "
                    << s.telemetry_samples << " telemetry samples]";
        }
        *progress << "\n" << std::flush;
      }
      outcome.suites.push_back(std::move(s));
    }
  } catch (...) {
    // The store or the OS failed under us: leave a truthful record if we still can.
    try {
      store.finish_run(outcome.run_id, results::RunStatus::failed);
    } catch (...) {
    }
    throw;
  }
  outcome.interrupt_signal = interrupt_signal();
  outcome.status = outcome.interrupt_signal != 0 ? results::RunStatus::interrupted
                   : any_failed                  ? results::RunStatus::failed
                                                 : results::RunStatus::complete;
  store.finish_run(outcome.run_id, outcome.status);
  outcome.duration_s = monotonic_seconds() - start;
  return outcome;
}

}  // namespace gpubench::harness
