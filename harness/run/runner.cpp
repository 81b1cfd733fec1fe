#include "harness/run/runner.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "harness/probe/environment.hpp"
#include "harness/probe/nvml.hpp"
#include "harness/process/launcher.hpp"
#include "harness/process/process.hpp"
#include "harness/run/machine_load.hpp"
#include "harness/run/run_order.hpp"
#include "harness/run/run_plan.hpp"
#include "results/ingest/ingest.hpp"
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

constexpr const char* k_work_dir_prefix = "gpubench-run.";
constexpr const char* k_owner_file = ".owner";

// Holds an flock on `<dir>/.owner` for as long as the run uses the directory.
class WorkDirOwner {
 public:
  explicit WorkDirOwner(const fs::path& dir)
      : m_fd(::open((dir / k_owner_file).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    if (m_fd >= 0) ::flock(m_fd, LOCK_EX | LOCK_NB);
  }
  ~WorkDirOwner() {
    if (m_fd >= 0) ::close(m_fd);
  }
  WorkDirOwner(const WorkDirOwner&) = delete;
  WorkDirOwner& operator=(const WorkDirOwner&) = delete;

 private:
  int m_fd;
};

// Removes the scratch directories of runs whose gpubench died (SIGKILL, power loss of the
// process): their `.owner` lock is free. A directory without one is only removed once it is a
// day old (it may belong to a run that is just starting).
void remove_stale_work_dirs() {
  const char* base = std::getenv("TMPDIR");
  const fs::path root = (base && *base) ? base : "/tmp";
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path dir = it->path();
    if (dir.filename().string().rfind(k_work_dir_prefix, 0) != 0) continue;
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) {
      continue;
    }
    const int fd = ::open((dir / k_owner_file).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    bool stale = false;
    if (fd >= 0) {
      stale = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
      ::close(fd);
    } else {
      stale = ::time(nullptr) - st.st_mtime > 24 * 3600;
    }
    std::error_code rm;
    if (stale) fs::remove_all(dir, rm);
  }
}

// The last `bytes` of a file ("" when it cannot be read), "[...]\n" first when cut.
std::string file_tail(const fs::path& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  const std::streamoff start =
      size > static_cast<std::streamoff>(bytes) ? size - static_cast<std::streamoff>(bytes) : 0;
  in.seekg(start);
  std::string text(static_cast<std::size_t>(size - start), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return start > 0 ? "[...]\n" + text : text;
}

// How the child ended, as a suite status and reason.
void classify(const ProcessResult& r, const SuiteRunOptions& options, bool have_json,
              const std::string& json_problem, const std::string& err_suffix,
              results::SuiteRunInfo& info) {
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
  } else if (!have_json) {
    // Google Benchmark exits 0 without writing anything when the filter matches nothing here.
    if (r.stderr_tail.find("Failed to match any benchmarks") != std::string::npos) {
      info.status = results::SuiteStatus::ok;
      info.reason = "no benchmark matches the filter";
    } else {
      info.status = results::SuiteStatus::failed;
      info.reason = json_problem;
    }
  }
}

// Stores the suite's row, samples and telemetry in one transaction (Store::store_suite).
//  - JSON that cannot be stored (bad_input): the suite is recorded failed, with the reason and
//    its telemetry, without samples.
//  - The database fails (locked past the busy timeout, disk full): the suite is recorded failed
//    with the reason in a separate small transaction; `store_error` says what happened.
//  - A signal while waiting for the lock: the finished suite is still stored (a second signal
//    stops that wait too).
void store_outcome(results::Store& store, int64_t run_id, const std::string& suite_name,
                   const nlohmann::json* doc, const std::vector<results::TelemetrySample>& rows,
                   SuiteOutcome& out) {
  results::SuiteRunInfo& info = out.info;
  auto attempt = [&](const nlohmann::json* d) {
    const results::StoredSuite stored = store.store_suite(run_id, info, d, suite_name, rows);
    out.suite_run_id = stored.suite_run_id;
    out.summary = stored.summary;
    out.ingested = stored.ingested;
  };
  const int signals_before = interrupt_count();
  std::string failure;
  try {
    try {
      attempt(doc);
      return;
    } catch (const Error& e) {
      if (e.code() == ExitCode::bad_input && doc != nullptr) {
        const std::string why = std::string("its JSON could not be stored: ") + e.what();
        if (info.status == results::SuiteStatus::ok) {
          info.status = results::SuiteStatus::failed;
          info.reason = why;
        } else {
          info.reason += "; " + why;
        }
        attempt(nullptr);
        return;
      }
      if (interrupt_count() == signals_before) throw;
      attempt(doc);  // interrupted while waiting: the suite finished, keep it
      return;
    }
  } catch (const Error& e) {
    if (e.code() == ExitCode::bad_input) throw;
    failure = e.what();
  }
  out.store_error = failure;
  info.status = results::SuiteStatus::failed;
  info.reason = "its results could not be stored (" + failure + ")";
  try {
    out.suite_run_id = store.add_suite_run(run_id, info);
  } catch (const Error& e) {
    out.store_error += "; recording the failure also failed: " + std::string(e.what());
  }
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
  if (profile == "quick") return {3, 0.05, 3};
  if (profile == "standard") return {5, 0.2, 5};
  if (profile == "full") return {10, 0.5, 10};
  throw bad_input("unknown profile '" + profile + "'", "profiles are quick, standard and full",
                  "use --profile quick|standard|full");
}

int executions_for_cost(int executions, double execution_s) {
  if (!(execution_s > 0)) return std::max(executions, k_cheap_suite_max_executions);
  const double affordable = std::floor(k_cheap_suite_budget_s / execution_s);
  return std::max(executions, static_cast<int>(std::min<double>(
                                  affordable, static_cast<double>(k_cheap_suite_max_executions))));
}

SuiteOutcome run_suite(results::Store& store, int64_t run_id, const SuiteExecutable& suite,
                       const SuiteRunOptions& options, TelemetrySampler* sampler, int execution,
                       const std::string& note) {
  SuiteOutcome out;
  out.execution = execution;
  results::SuiteRunInfo& info = out.info;
  info.suite = suite.name;
  info.executable = suite.path.string();
  const std::string stem = suite.name + "." + std::to_string(execution + 1);
  const fs::path json_path = options.work_dir / (stem + ".json");
  info.argv = {suite.path.string(),
               "--benchmark_out=" + json_path.string(),
               "--benchmark_out_format=json",
               "--benchmark_format=console",
               "--benchmark_repetitions=" + std::to_string(options.repetitions),
               "--benchmark_min_time=" + seconds_text(options.min_time_s)};
  if (!options.filter.empty()) info.argv.push_back("--benchmark_filter=" + options.filter);
  const std::vector<std::string> launcher =
      runs_under_launcher(suite.name) ? options.launcher : std::vector<std::string>{};
  // Every rank of a multi-rank suite must run the same order: a shuffle per rank would deadlock
  // its collectives.
  if (options.executions > 1 && launcher.empty()) {
    info.argv.push_back("--benchmark_enable_random_interleaving=true");
  }
  const LaunchCommand launch = launch_command(launcher, info.argv);
  info.argv = launch.argv;  // stored as run: with the launcher in front

  ProcessSpec spec;
  spec.argv = info.argv;
  spec.env = suite_child_env(options.profile, suite.name);
  // The run's scratch directory, shared by a suite's executions (gemm keeps its algorithm choices
  // there for the later ones). Not in the run's recorded environment: it says where, not what.
  spec.env.emplace_back("GPUBENCH_RUN_SCRATCH", options.work_dir.string());
  spec.stdout_path = options.work_dir / (stem + ".console.txt");
  spec.stderr_tail_bytes = options.stderr_tail_bytes;
  spec.timeout_s = options.timeout_s;
  spec.kill_grace_s = options.kill_grace_s;

  info.started_at = now_iso8601_utc();
  if (sampler) sampler->start();
  const LoadSnapshot load_before = take_load_snapshot();
  ProcessResult r;
  if (launch.problem.empty()) {
    std::optional<ConsoleWatcher> watcher;  // progress: cases as the console output reports them
    if (options.on_cases) watcher.emplace(spec.stdout_path, options.on_cases);
    r = run_process(spec);
  } else {
    r.spawn_error = launch.problem;
  }
  info.load = load_between(load_before, take_load_snapshot());
  out.telemetry = sampler ? sampler->stop() : std::vector<results::TelemetrySample>{};
  const TelemetryCounts counts = count_telemetry(out.telemetry);
  out.telemetry_samples = counts.samples;
  out.telemetry_throttled = counts.throttled;
  out.telemetry_power_limited = counts.power_limited;
  info.finished_at = now_iso8601_utc();
  info.duration_s = r.duration_s;
  info.exit_code = r.exit_code;
  info.term_signal = r.term_signal;
  info.stderr_tail = r.stderr_truncated ? "[...]\n" + r.stderr_tail : r.stderr_tail;

  std::string json_problem;
  std::optional<nlohmann::json> doc = load_suite_json(json_path, json_problem);
  const std::string err_line = last_line(r.stderr_tail);
  const std::string err_suffix = err_line.empty() ? "" : ": " + err_line;
  classify(r, options, doc.has_value(), json_problem, err_suffix, info);
  if (!note.empty()) info.reason = info.reason.empty() ? note : info.reason + "; " + note;
  if (info.status != results::SuiteStatus::ok) {
    info.stdout_tail = file_tail(spec.stdout_path, options.stderr_tail_bytes);
  }
  store_outcome(store, run_id, suite.name, doc ? &*doc : nullptr, out.telemetry, out);
  if (info.load && out.suite_run_id > 0) {
    try {
      store.record_machine_load(out.suite_run_id, *info.load);
    } catch (const Error&) {
      // The results are stored; a note of the machine's load that cannot be is not worth a
      // failed suite (the database's trouble shows at the next write).
    }
  }
  return out;
}

namespace {
// Seconds a suite may take to give its plan for the progress lines: a real suite answers in well
// under a second; one that does not is shown without cases planned, and the run waits no longer.
constexpr double k_progress_plan_timeout_s = 2;
}  // namespace

RunOutcome execute_run(results::Store& store, const RunOptions& options, std::ostream* progress) {
  InterruptGuard guard;
  RunOutcome outcome;
  const double start = monotonic_seconds();
  std::optional<RunProgress> reporter;  // what the run says while it runs (issue 39)
  if (progress) reporter.emplace(*progress, options.progress_style);

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
  // What the suites run with (suite_child_env), not what this process was started with.
  std::vector<std::string> suite_names;
  for (const SuiteExecutable& s : options.suites) suite_names.push_back(s.name);
  for (const auto& [key, value] : suite_child_env(options.suite_options.profile, "")) {
    if (key != "GPUBENCH_PROFILE") info.config.env[key] = value;
  }
  info.config.env["CUDA_MODULE_LOADING"] = run_module_loading(suite_names);

  // Device suites first, power-heavy ones last among them, host suites after (run_order.hpp).
  const std::vector<SuiteExecutable> ordered = order_suites(options.suites);
  const int executions = std::max(1, options.suite_options.executions);
  const bool may_settle = run_may_settle(ordered, executions);

  // Telemetry and the settle step read NVML (or the test's source): decided before the run is
  // stored, so a run without them says why in its record.
  std::unique_ptr<Nvml> nvml;
  std::shared_ptr<TelemetrySource> source = options.telemetry_source;
  std::string nvml_off;  // why NVML cannot be read
  if (!source && (options.telemetry_interval_ms > 0 || may_settle)) {
    nvml = std::make_unique<Nvml>();
    if (auto why = telemetry_unavailable_reason(*nvml)) {
      nvml_off = *why;
    } else {
      source = std::make_shared<NvmlTelemetrySource>(*nvml);
    }
  }
  const int gpus = source ? source->device_count() : 0;
  // The state every settle returns to: the GPUs as this run found them, before its first suite.
  std::vector<SettleReading> settle_start;
  if (may_settle) {
    if (gpus > 0) {
      settle_start = read_settle_state(*source);
    } else {
      std::vector<std::string> heavy;
      for (const SuiteExecutable& s : ordered) {
        if (suite_kind(s.name) == SuiteKind::power_heavy) heavy.push_back(s.name);
      }
      outcome.settle_unavailable =
          "unavailable: " + (nvml_off.empty() ? std::string("no GPUs to read") : nvml_off) +
          "; no settle after " + join(heavy, ", ");
      info.config.env[k_settle_env_key] = outcome.settle_unavailable;
      if (reporter) reporter->note("settle " + outcome.settle_unavailable);
    }
  }
  std::string telemetry_off;
  if (options.telemetry_interval_ms <= 0) {
    telemetry_off = "disabled: GPUBENCH_TELEMETRY_INTERVAL_MS=0";
  } else if (!nvml_off.empty()) {
    telemetry_off = "unavailable: " + nvml_off;
  } else if (gpus <= 0) {
    telemetry_off = "unavailable: no GPUs to sample";
  }
  std::optional<TelemetrySampler> sampler;
  // steady_clock is CLOCK_MONOTONIC, shared with the suites' sample windows (window_start_s).
  double telemetry_origin_s = 0;
  if (telemetry_off.empty()) {
    const auto origin = std::chrono::steady_clock::now();
    telemetry_origin_s = std::chrono::duration<double>(origin.time_since_epoch()).count();
    sampler.emplace(*source, std::chrono::milliseconds(options.telemetry_interval_ms), origin);
    outcome.telemetry_active = true;
    outcome.telemetry = "sampled every " + std::to_string(options.telemetry_interval_ms) +
                        " ms on " + std::to_string(gpus) + " GPU" + (gpus == 1 ? "" : "s");
  }
  if (!telemetry_off.empty()) {
    outcome.telemetry = telemetry_off;
    info.config.env[k_telemetry_env_key] = telemetry_off;
    if (reporter) reporter->note("telemetry " + telemetry_off);
  }
  // Scratch space for the suites' JSON; a `.owner` lock marks it as ours while we live, so the
  // next run can remove what a killed gpubench left behind. Made before the run is stored: an
  // unwritable TMPDIR stops the run with its reason (exit 3), not after a `running` row.
  remove_stale_work_dirs();
  TempDir work("gpubench-run");
  try {
    outcome.run_id = store.begin_run(info);
  } catch (const Error& e) {
    // Ctrl-C while waiting for the lock at the start: nothing was stored, say so.
    if (e.code() == ExitCode::infrastructure && interrupt_signal() != 0) {
      outcome.interrupt_signal = interrupt_signal();
      outcome.status = results::RunStatus::interrupted;
      outcome.duration_s = monotonic_seconds() - start;
      return outcome;
    }
    throw;
  }
  if (!options.doctor.empty()) results::add_doctor_checks(store, outcome.run_id, options.doctor);
  try {
    outcome.uuid = store.get_run(outcome.run_id).run.uuid;
  } catch (const Error&) {
    outcome.uuid.clear();
  }

  const WorkDirOwner owner(work.path());
  SuiteRunOptions suite_options = options.suite_options;
  suite_options.work_dir = work.path();
  bool any_failed = false;
  std::string store_errors;
  outcome.executions = executions;
  const SettleClock settle_clock = options.settle_clock.value_or(real_settle_clock());
  // The power-heavy suite whose end the next device suite waits on, and when it ended
  // (settle_clock's scale).
  std::optional<std::pair<std::string, double>> heavy_ended;
  try {
    if (options.before_suites) options.before_suites(outcome.run_id, work.path());
    const std::size_t suites = ordered.size();
    // Per suite: its executions (cheap ones get more once their first execution is timed).
    std::vector<int> planned(suites, executions);
    auto total = [&] {
      std::size_t sum = 0;
      for (int p : planned) sum += static_cast<std::size_t>(p);
      return sum;
    };
    // Suites that stop early: failed in an execution, or nothing matched their filter.
    std::vector<bool> stopped(suites, false);
    std::size_t step = 0;
    // What its plan expects of one execution of a suite, for the progress lines and the ETA:
    // asked once, right before its first execution (not up front: a run interrupted in its
    // first suite has asked nothing of the others). nullopt: no plan, or none in time.
    std::map<std::string, std::optional<SuiteExpectation>> expectations;
    std::optional<int> plan_gpus;
    auto expectation = [&](const SuiteExecutable& suite) {
      auto [it, fresh] = expectations.try_emplace(suite.name);
      if (!fresh) return it->second;
      // As check_filter_matches asks: a machine without GPUs plans one GPU's cases (skipped).
      if (!plan_gpus) plan_gpus = std::max(1, detect_gpu_count().first);
      try {
        const PlannedSuite plan =
            ask_suite_plan(suite, suite_options.profile, *plan_gpus, suite_options.repetitions,
                           suite_options.filter, k_progress_plan_timeout_s);
        it->second = SuiteExpectation{plan.cases(), plan.estimated_s()};
      } catch (const Error&) {
        // A suite without a plan (a fixture, one built before plans) is shown without one.
      }
      return it->second;
    };
    for (int execution = 0; execution < *std::max_element(planned.begin(), planned.end());
         ++execution) {
      for (std::size_t i = 0; i < suites; ++i) {
        const SuiteExecutable& suite = ordered[i];
        const SuiteKind kind = suite_kind(suite.name);
        if (execution >= planned[i]) continue;
        ++step;
        if (stopped[i]) continue;
        if (interrupt_signal() != 0) {
          if (std::find(outcome.not_run.begin(), outcome.not_run.end(), suite.name) ==
              outcome.not_run.end()) {
            outcome.not_run.push_back(suite.name);
          }
          ++outcome.executions_not_run;
          continue;
        }
        // The settle step: a device suite after a power-heavy one waits for the GPUs to come
        // back near the state the run found them in (settle.hpp).
        std::string note;
        if (kind != SuiteKind::host && heavy_ended) {
          if (!settle_start.empty()) {
            SettleRecord rec = settle_gpus(*source, settle_start, heavy_ended->first,
                                           heavy_ended->second, options.settle, settle_clock);
            rec.before = suite.name;
            rec.before_execution = execution;
            note = rec.text();
            if (reporter) reporter->note(note);
            outcome.settles.push_back(std::move(rec));
          }
          heavy_ended.reset();
        }
        SuiteRunOptions these_options = suite_options;
        if (reporter) {
          std::string label =
              "[" + std::to_string(step) + "/" + std::to_string(total()) + "] " + suite.name;
          if (planned[i] > 1) {
            label += " (execution " + std::to_string(execution + 1) + "/" +
                     std::to_string(planned[i]) + ")";
          }
          reporter->suite_started(label, expectation(suite));
          these_options.on_cases = [&reporter](int cases) { reporter->cases_done(cases); };
        }
        SuiteOutcome s = run_suite(store, outcome.run_id, suite, these_options,
                                   sampler ? &*sampler : nullptr, execution, note);
        if (kind == SuiteKind::power_heavy) heavy_ended.emplace(suite.name, settle_clock.now_s());
        if (execution == 0 && suite_options.more_when_cheap &&
            s.info.status == results::SuiteStatus::ok) {
          planned[i] = executions_for_cost(executions, s.info.duration_s);
        }
        s.planned_executions = planned[i];
        // Sample states from the telemetry overlapping each sample, else the clock probe.
        if (s.ingested) {
          try {
            store.classify_samples(s.suite_run_id, s.telemetry, telemetry_origin_s,
                                   std::max(options.telemetry_interval_ms, 1) / 1000.0);
          } catch (const Error& e) {
            if (e.code() == ExitCode::bad_input) throw;
            s.store_error = "its sample states could not be stored (" + std::string(e.what()) + ")";
          }
        }
        s.telemetry = {};  // stored with the suite; not kept for the whole run
        if (s.info.status != results::SuiteStatus::ok) any_failed = true;
        // A failed execution is not repeated: the next would cost as much and say the same. A
        // filter that matched nothing matches nothing the next time either.
        if (s.info.status != results::SuiteStatus::ok || s.summary.benchmarks == 0) {
          stopped[i] = true;
        }
        if (!s.store_error.empty()) {
          if (!store_errors.empty()) store_errors += "; ";
          store_errors += s.info.suite + ": " + s.store_error;
        }
        if (reporter) {
          std::ostringstream line;
          line << results::to_string(s.info.status) << " (" << s.summary.benchmarks
               << " benchmarks";
          if (s.summary.skipped > 0 || s.summary.errors > 0) {
            line << ": " << s.summary.skipped << " skipped, " << s.summary.errors << " failed";
          }
          line << "; " << seconds_text(s.info.duration_s) << " s)";
          // The settle note was printed on its own line before the suite started.
          std::string reason = s.info.reason;
          if (!note.empty() && reason.size() >= note.size() &&
              reason.compare(reason.size() - note.size(), note.size(), note) == 0) {
            reason.resize(reason.size() - note.size());
            if (reason.size() >= 2 && reason.compare(reason.size() - 2, 2, "; ") == 0) {
              reason.resize(reason.size() - 2);
            }
          }
          if (!reason.empty()) line << ": " << reason;
          if (stopped[i] && execution + 1 < planned[i] &&
              s.info.status != results::SuiteStatus::ok) {
            line << " [its remaining executions are not run]";
          }
          if (s.telemetry_throttled > 0) {
            line << " [thermal/HW slowdown in " << s.telemetry_throttled << " of "
                 << s.telemetry_samples << " telemetry samples: affected samples invalid]";
          }
          if (s.telemetry_power_limited > 0) {
            line << " [power-limited in " << s.telemetry_power_limited << " of "
                 << s.telemetry_samples << " telemetry samples]";
          }
          reporter->suite_finished(line.str());
        }
        outcome.suites.push_back(std::move(s));
      }
    }
    if (options.after_suites) options.after_suites(outcome.run_id, work.path());
  } catch (...) {
    // The OS failed under us: leave a truthful record if we still can. If even that fails,
    // the run's liveness lock goes with this process and the next writer marks it abandoned.
    try {
      store.finish_run(outcome.run_id, results::RunStatus::failed);
    } catch (...) {
    }
    throw;
  }
  // Suites whose failure could not even be recorded (the lock was held past two waits): the
  // lock may be free by now; their rows say why their results are missing.
  for (SuiteOutcome& s : outcome.suites) {
    if (s.store_error.empty() || s.suite_run_id != 0) continue;
    try {
      s.suite_run_id = store.add_suite_run(outcome.run_id, s.info);
    } catch (const Error&) {
      // finish_run below meets the same lock; if it fails the run is left to be abandoned.
    }
  }
  outcome.interrupt_signal = interrupt_signal();
  outcome.status = outcome.interrupt_signal != 0 ? results::RunStatus::interrupted
                   : any_failed                  ? results::RunStatus::failed
                                                 : results::RunStatus::complete;
  outcome.store_error = store_errors;
  store.finish_run(outcome.run_id, outcome.status);
  outcome.duration_s = monotonic_seconds() - start;
  return outcome;
}

}  // namespace gpubench::harness
