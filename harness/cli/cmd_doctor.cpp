// gpubench doctor [--format text|json] [--data-dir DIR] [--expect-gpus N] [--launcher L]:
// readiness checks of this server (harness/doctor/doctor.hpp), or of every node a launcher starts a
// task on (harness/doctor/doctor_nodes.hpp). Exit 0 when no check fails, 1 when one does (on any
// node) or a launched task gave no report, 3 when the server has fewer GPUs than --expect-gpus or
// the launcher cannot be started. After the checks, a fact rather than a check: the usable cores
// and the loader worker sizing of the newest dataloader run of this host in the database
// (compare/dataloader/README.md), or how to measure it.
#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include "compare/dataloader/worker_sizing.hpp"
#include "compare/hardware.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "harness/doctor/doctor.hpp"
#include "harness/doctor/doctor_nodes.hpp"
#include "harness/probe/environment.hpp"
#include "harness/process/launcher.hpp"
#include "harness/process/process.hpp"
#include "harness/run/runner.hpp"
#include "results/store.hpp"
#include "util/cpu_budget.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::cli {

namespace {
struct DoctorArgs {
  std::string format = "text";
  std::string data_dir;
  std::string profile = "standard";  // whose datasets the free space must hold
  std::optional<int> expect_gpus;    // --expect-gpus N
  std::string launcher;              // --launcher: doctor on every node it starts a task on
  bool per_node = false;             // hidden --per-node: one marked report line (a launched task)
};

// Each node's doctor reads sysfs and NVML: seconds. The limit only bounds a launcher that hangs
// (a node that never answers).
constexpr double k_launcher_timeout_s = 300;

// --launcher: starts the launcher with this binary's `doctor --per-node` (same options), collects
// one report per host and prints them all.
void do_doctor_nodes(const DoctorArgs& args, Context& ctx) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    throw infrastructure("gpubench doctor --launcher cannot find its own executable",
                         "/proc/self/exe: " + ec.message(), "run it on Linux with /proc mounted");
  }
  std::vector<std::string> argv = {self.string(), "doctor", "--per-node", "--profile",
                                   args.profile};
  if (!args.data_dir.empty()) argv.insert(argv.end(), {"--data-dir", args.data_dir});
  if (args.expect_gpus)
    argv.insert(argv.end(), {"--expect-gpus", std::to_string(*args.expect_gpus)});
  const harness::LaunchCommand launch =
      harness::launch_command(harness::split_launcher(args.launcher), argv);
  if (!launch.problem.empty()) {
    throw infrastructure("gpubench doctor --launcher cannot start its launcher", launch.problem,
                         "fix --launcher");
  }
  TempDir tmp("gpubench-doctor");
  harness::ProcessSpec spec;
  spec.argv = launch.argv;
  spec.stdout_path = tmp.path() / "launcher.out";
  spec.timeout_s = k_launcher_timeout_s;
  harness::InterruptGuard guard;
  const harness::ProcessResult result = harness::run_process(spec);
  harness::NodeReports reports = harness::collect_node_reports(
      std::filesystem::exists(spec.stdout_path) ? read_file(spec.stdout_path) : std::string());
  std::string launcher_problem;
  if (!result.spawn_error.empty()) {
    launcher_problem = "could not start: " + result.spawn_error;
  } else if (result.timed_out) {
    launcher_problem = "stopped after " + std::to_string(static_cast<int>(k_launcher_timeout_s)) +
                       " s (a node that never answered?)";
  } else if (result.term_signal) {
    launcher_problem = "ended by " + harness::signal_name(*result.term_signal);
  } else if (result.exit_code && *result.exit_code != 0) {
    launcher_problem = "exited with status " + std::to_string(*result.exit_code);
  } else if (result.interrupt_signal) {
    launcher_problem = "interrupted by " + harness::signal_name(result.interrupt_signal);
  }
  if (!launcher_problem.empty()) {
    reports.problems.push_back("the launcher '" + args.launcher + "' " + launcher_problem);
  }
  if (reports.nodes.empty()) {
    reports.problems.push_back("no task gave a report: does the launcher start this gpubench (" +
                               self.string() + ") on every node, from a shared path?");
  }
  if (!result.succeeded() && !result.stderr_tail.empty()) {
    *ctx.err << "gpubench: the launcher's stderr (last lines):\n" << result.stderr_tail;
    if (result.stderr_tail.back() != '\n') *ctx.err << '\n';
  }
  if (args.format == "json") {
    *ctx.out << harness::nodes_json(reports).dump(2) << '\n';
  } else {
    harness::print_nodes_text(*ctx.out, reports);
  }
  if (!harness::nodes_ready(reports)) ctx.exit_code = 1;
}

// --expect-gpus: the GPUs NVML lists against N; a missing one is named from the store's runs on
// this host when there is a readable database (a doctor never needs one).
std::vector<std::string> gpu_shortfall(const DoctorArgs& args, Context& ctx, std::size_t& found) {
  compare::ExpectedHardware expected;
  expected.gpus = *args.expect_gpus;
  expected.source = "--expect-gpus";
  results::SoftwareEnv software;
  const std::vector<results::GpuInfo> gpus = harness::probe_gpus(software);
  found = gpus.size();
  std::vector<compare::MissingGpu> missing;
  try {
    const std::string path = resolve_db_path(ctx);
    if (std::filesystem::exists(path)) {
      results::Store store = results::Store::open(path, results::OpenMode::read_only);
      missing = compare::missing_gpus(store, harness::probe_host().hostname, 0, gpus);
    }
  } catch (const Error&) {
    // Without a readable database the shortfall is still reported, the GPUs just not named.
  }
  return compare::hardware_problems(expected, gpus, missing);
}

// Loader workers (issue 41): a fact of this host, not a check (nothing passes or fails on it, and
// it is not stored with runs). The CPUs a dataloader suite started now could use, and the worker
// sizing of the newest dataloader run of this host in the database (a doctor never needs one).
struct LoaderWorkers {
  int usable_cores = 0;
  std::string db;
  std::optional<compare::WorkerSizing> sizing;
  std::string why_none;  // no run of this host, no database, or it could not be read
};

constexpr const char* k_loader_how =
    "`gpubench run --suite dataloader` measures each pipeline's worker count at 95% of its best "
    "(GPUBENCH_DATALOADER_WORKERS=1,2,4,... picks the counts)";

LoaderWorkers loader_workers(const Context& ctx) {
  LoaderWorkers w;
  w.usable_cores = usable_cpu_count();
  // The name only (gethostname, or the node's name under GPUBENCH_DOCTOR_HOST): probe_host would
  // read /proc/cpuinfo, /proc/meminfo and /etc/os-release for nothing.
  const std::string host = harness::doctor_host_name();
  try {
    w.db = resolve_db_path(ctx);
    if (!std::filesystem::exists(w.db)) {
      w.why_none = "no database '" + w.db + "'";
      return w;
    }
    results::Store store = results::Store::open(w.db, results::OpenMode::read_only);
    const std::optional<int64_t> run = compare::newest_dataloader_run(store, host);
    if (!run) {
      w.why_none = "no dataloader run of host " + host + " in '" + w.db + "'";
      return w;
    }
    w.sizing = compare::worker_sizing(store, store.get_run(*run), store.get_results(*run));
  } catch (const Error& e) {
    w.why_none = "the database could not be read (" + std::string(e.what()) + ")";
  }
  return w;
}

void print_loader_workers(std::ostream& out, const LoaderWorkers& w) {
  std::ostringstream text;
  text << "Loader workers (a fact of this host, not a check)\n  usable cores: " << w.usable_cores
       << " (affinity mask, capped by the cgroup CPU quota: what the dataloader sizes its worker "
          "sweep by)\n";
  if (!w.sizing || w.sizing->pipelines.empty()) {
    text << "  "
         << (w.sizing ? "run " + std::to_string(w.sizing->run_id) + " has no pipelines"
                      : w.why_none)
         << ": " << k_loader_how << '\n';
  } else {
    const compare::WorkerSizing& s = *w.sizing;
    text << "  newest dataloader run of this host: run " << s.run_id << " (" << s.started_at
         << ") in '" << w.db << "'";
    if (s.cores_recorded && s.usable_cores && *s.usable_cores != w.usable_cores) {
      text << "; it ran with " << *s.usable_cores << " usable cores, not " << w.usable_cores;
    }
    text << "\n  " << compare::advice_summary(s) << '\n';
    for (const compare::PipelineSizing& p : s.pipelines) {
      if (!p.enough_points) continue;  // counted in the summary line
      text << "    " << p.pipeline << ": " << compare::sizing_verdict(p, s) << '\n';
      if (p.knee) text << "      " << compare::knee_text(p) << '\n';
    }
    text << "  each pipeline's figures: gpubench report " << s.run_id << '\n';
  }
  out << wrap_lines(text.str(), output_width());
}

nlohmann::json loader_workers_json(const LoaderWorkers& w) {
  nlohmann::json j = {{"usable_cores", w.usable_cores}};
  j["sizing"] = w.sizing ? compare::worker_sizing_json(*w.sizing) : nlohmann::json();
  j["why_none"] = w.sizing ? nlohmann::json() : nlohmann::json(w.why_none);
  j["how"] = k_loader_how;
  return j;
}

void do_doctor(const DoctorArgs& args, Context& ctx) {
  check_format(args.format, {"text", "json"});
  if (args.expect_gpus) compare::check_expect_gpus(*args.expect_gpus, "--expect-gpus");
  harness::DoctorOptions options;
  options.data_dir = args.data_dir;
  harness::profile_defaults(args.profile);  // an unknown profile: exit 2 naming the known ones
  options.profile = args.profile;
  if (!args.launcher.empty() && !args.per_node) {
    do_doctor_nodes(args, ctx);
    return;
  }
  std::vector<results::DoctorCheck> checks = harness::run_doctor(options);
  std::vector<std::string> shortfall;
  if (args.expect_gpus.has_value()) {
    std::size_t found = 0;
    shortfall = gpu_shortfall(args, ctx, found);
    compare::ExpectedHardware expected;
    expected.gpus = *args.expect_gpus;
    expected.source = "--expect-gpus";
    checks.push_back(compare::expected_gpus_check(expected, found, shortfall));
  }
  if (args.per_node) {
    // A launched task: the report is the line, and exit 0 so the launcher does not stop the
    // other nodes' tasks; the harness decides from the reports.
    for (const std::string& line : harness::node_report_lines(
             harness::doctor_host_name(), harness::task_index_from_env(), checks)) {
      // One write per line, then a pause: a launcher reads each task's pipe in chunks (Open
      // MPI's up to 4 KiB) and forwards a chunk whole, so lines queued faster than it reads can
      // be cut mid-line by another task's chunk (seen under mpirun -np 2). 5 ms per line
      // (about 0.15 s per report) lets it drain between lines.
      *ctx.out << line << '\n' << std::flush;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return;
  }
  const results::DoctorCounts counts = results::count_checks(checks);
  const LoaderWorkers workers = loader_workers(ctx);
  if (args.format == "json") {
    nlohmann::json doc = harness::doctor_json(checks);
    doc["loader_workers"] = loader_workers_json(workers);
    *ctx.out << doc.dump(2) << '\n';
  } else {
    harness::print_doctor_text(*ctx.out, checks);
    *ctx.out << '\n';
    print_loader_workers(*ctx.out, workers);
  }
  if (counts.fail > 0) ctx.exit_code = 1;
  // A server short of GPUs is broken, not unready: exit 3, as `run --expect-gpus` does.
  for (const std::string& p : shortfall) *ctx.err << "gpubench: error: " << p << '\n';
  if (!shortfall.empty()) ctx.exit_code = static_cast<int>(ExitCode::infrastructure);
}
}  // namespace

void add_doctor_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<DoctorArgs>();
  CLI::App* cmd = app.add_subcommand(
      "doctor", "check this server's readiness (CPU, memory, storage, driver, limits, GPUs)");
  cmd->add_option("--format", args->format, "text or json")->capture_default_str();
  cmd->add_option("--data-dir", args->data_dir,
                  "dataset directory to check (default: the dataloader's: $GPUBENCH_DATA_DIR, "
                  "else $XDG_CACHE_HOME/gpubench, else ~/.cache/gpubench)");
  cmd->add_option("--profile", args->profile,
                  "the run profile whose dataloader datasets the data directory's free space must "
                  "hold (quick, standard, full)")
      ->capture_default_str();
  cmd->add_option("--expect-gpus", args->expect_gpus,
                  "GPUs this server must have: fewer fail (exit 3), naming the missing GPU's UUID "
                  "and the last run that saw it");
  cmd->add_option("--launcher", args->launcher,
                  "run doctor on every node this launcher starts a task on, e.g. \"srun -N 2 "
                  "--ntasks-per-node=1\" or \"mpirun -np 2 --map-by ppr:1:node\"; one report "
                  "per host");
  // Hidden: what each task runs under --launcher (one marked single-line JSON report).
  cmd->add_flag("--per-node", args->per_node, "")->group("");
  cmd->footer(
      "Exit codes: 0 no check failed, 1 a check failed (on any node) or a launched task gave no "
      "report, 2 bad command line, 3 fewer GPUs than --expect-gpus or the launcher cannot be "
      "started.");
  cmd->callback([args, &ctx] { do_doctor(*args, ctx); });
}

}  // namespace gpubench::cli
