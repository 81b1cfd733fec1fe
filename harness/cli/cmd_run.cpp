// gpubench run: runs the selected suites and stores everything (see harness/run/runner.hpp).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <regex>
#include <tuple>

#include "compare/hardware.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "harness/doctor/doctor.hpp"
#include "harness/probe/environment.hpp"
#include "harness/process/launcher.hpp"
#include "harness/process/process.hpp"
#include "harness/run/algorithm_seed.hpp"
#include "harness/run/run_order.hpp"
#include "harness/run/run_plan.hpp"
#include "harness/run/runner.hpp"
#include "harness/run/until_decided.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::cli {

namespace {

struct RunArgs {
  std::vector<std::string> suites;
  std::string filter;
  std::string profile = "standard";
  int repetitions = 0;  // inside each execution, when given; else the profile's spread
  bool repetitions_given = false;
  std::optional<int> executions;  // per suite, when given; else the profile's
  std::vector<std::string> tags;
  std::string note;
  double timeout_per_suite_s = 1800;
  bool require_ready = false;  // refuse to run when a doctor check fails
  std::string
      launcher;  // --launcher "mpirun -np 2": run the suites under it (harness/process/launcher.hpp)
  bool launcher_given = false;
  harness::UntilDecidedOptions until_decided;  // .base empty: off (harness/run/until_decided.hpp)
  bool plan = false;        // --plan: print the run plan (harness/run/run_plan.hpp), run nothing
  std::optional<int> gpus;  // --plan --gpus N: plan for N GPUs; not given: this machine's (NVML)
  std::string format = "text";
  std::optional<int> expect_gpus;  // --expect-gpus N
  bool reselect_algos = false;     // --reselect-algos: search gemm's cuBLASLt algorithms again
};

compare::ExpectedHardware expected_of(const RunArgs& args) {
  compare::ExpectedHardware expected;
  if (args.expect_gpus.has_value()) {
    expected.gpus = *args.expect_gpus;
    expected.source = "--expect-gpus";
  }
  return expected;
}

// --expect-gpus after the run: what the run recorded (its GPUs, its benchmarks skipped for want
// of a GPU) against N, missing GPUs named from the store's earlier runs on this host.
std::vector<std::string> run_shortfall(const RunArgs& args, results::Store& store, int64_t run_id) {
  const compare::ExpectedHardware expected = expected_of(args);
  if (!expected.any()) return {};
  const results::RunDetail run = store.get_run(run_id);
  std::vector<results::ResultRow> not_ok;
  store.for_each_result(
      run_id, [&](results::ResultRow& row) { not_ok.push_back(std::move(row)); },
      [](const results::ResultRow& row) { return row.status != results::BenchmarkStatus::ok; });
  return compare::run_hardware_problems(store, run, not_ok, expected);
}

// --plan: asks each selected suite for its plan and prints it. No GPU work, no database.
void do_plan(const RunArgs& args, const std::vector<harness::SuiteExecutable>& suites,
             int repetitions, int executions, Context& ctx) {
  harness::RunPlan plan;
  plan.profile = args.profile;
  plan.repetitions = repetitions;
  plan.executions = executions;
  plan.more_when_cheap = !args.executions.has_value();
  if (args.gpus) {
    plan.gpus = *args.gpus;
    plan.gpus_source = "flag";
  } else {
    std::tie(plan.gpus, plan.gpus_note) = harness::detect_gpu_count();
    plan.gpus_source = "detected";
  }
  for (const auto& s : suites) {
    plan.suites.push_back(
        harness::ask_suite_plan(s, args.profile, plan.gpus, repetitions, args.filter));
  }
  if (args.format == "json") {
    *ctx.out << harness::run_plan_json(plan) << '\n';
  } else {
    harness::print_run_plan(*ctx.out, plan);
  }
}

// --filter that matches no case of any selected suite: refused before anything is stored (issue
// 38; it used to store a `complete` run of 0 benchmarks that became `latest`). The cases are the
// suites' own plans (`run --plan`), for this machine's GPUs and at least one, so GPU cases a
// GPU-less run would record as skipped still count as matched. A suite that gives no plan (one
// built before plans) cannot be judged here: the run goes ahead and says per suite.
void check_filter_matches(const RunArgs& args, const std::vector<harness::SuiteExecutable>& suites,
                          int repetitions) {
  if (args.filter.empty() || suites.empty()) return;
  const int gpus = std::max(1, harness::detect_gpu_count().first);
  std::vector<std::string> names;
  for (const auto& s : suites) {
    try {
      if (harness::ask_suite_plan(s, args.profile, gpus, repetitions, args.filter).cases() > 0) {
        return;
      }
    } catch (const Error&) {
      return;
    }
    // The plan's names lack Google Benchmark's suffixes; the suite's own filter is the judge of
    // a pattern written against stored names (`hash_chain/base_units:250000/`).
    if (harness::suite_lists_a_match(s, args.profile, args.filter).value_or(true)) return;
    names.push_back(s.name);
  }
  throw bad_input("--filter '" + args.filter + "' matches no benchmark of " + join(names, ", "),
                  "a run of nothing would be stored as a complete run and become 'latest'; "
                  "nothing was run or stored",
                  "list the cases with 'gpubench run --plan" +
                      (args.suites.empty() ? std::string() : " --suite " + join(args.suites, ",")) +
                      "' and fix the pattern, or pick other suites");
}

// One line per suite: its executions together (the worst status, the first reason, the time of
// all of them), "3/3" executions finished.
void print_summary(std::ostream& out, const harness::RunOutcome& o) {
  struct Line {
    std::string suite;
    results::SuiteStatus status = results::SuiteStatus::ok;
    std::string reason;
    int64_t benchmarks = 0, skipped = 0, errors = 0;
    double duration_s = 0;
    int executions = 0;
    int planned = 1;  // executions the run planned for it (cheap suites get more)
  };
  std::vector<Line> lines;
  for (const auto& s : o.suites) {
    auto it = std::find_if(lines.begin(), lines.end(),
                           [&](const Line& l) { return l.suite == s.info.suite; });
    if (it == lines.end()) {
      Line line;
      line.suite = s.info.suite;
      lines.push_back(std::move(line));
      it = lines.end() - 1;
    }
    ++it->executions;
    it->planned = std::max(it->planned, s.planned_executions);
    it->duration_s += s.info.duration_s;
    it->benchmarks = std::max<int64_t>(it->benchmarks, s.summary.benchmarks);
    it->skipped = std::max<int64_t>(it->skipped, s.summary.skipped);
    it->errors = std::max<int64_t>(it->errors, s.summary.errors);
    if (it->status == results::SuiteStatus::ok && s.info.status != results::SuiteStatus::ok) {
      it->status = s.info.status;
      it->reason = (o.executions > 1 ? "execution " + std::to_string(s.execution + 1) + ": " : "") +
                   s.info.reason;
    } else if (it->reason.empty()) {
      it->reason = s.info.reason;
    }
  }
  std::vector<std::vector<std::string>> rows;
  const std::string of_all = "/" + std::to_string(o.executions);
  for (const Line& l : lines) {
    rows.push_back({l.suite, results::to_string(l.status),
                    std::to_string(l.executions) + "/" + std::to_string(l.planned),
                    std::to_string(l.benchmarks), std::to_string(l.skipped),
                    std::to_string(l.errors), duration_text(l.duration_s), l.reason});
  }
  for (const auto& name : o.not_run) {
    auto it = std::find_if(lines.begin(), lines.end(),
                           [&](const Line& l) { return l.suite == name; });
    if (it == lines.end()) {
      rows.push_back({name, "not run", "0" + of_all, "", "", "", "", "run interrupted"});
    } else {
      rows[static_cast<std::size_t>(it - lines.begin())][7] +=
          std::string(it->reason.empty() ? "" : "; ") + "run interrupted before its other executions";
    }
  }
  print_table(out,
              {"suite", "status", "executions", "benchmarks", "skipped", "errors", "duration",
               "reason"},
              rows);
  std::vector<std::string> throttled, power_limited;
  for (const auto& s : o.suites) {
    const std::string of = " of " + std::to_string(s.telemetry_samples) + " samples)";
    if (s.telemetry_throttled > 0) {
      throttled.push_back(s.info.suite + " (" + std::to_string(s.telemetry_throttled) + of);
    }
    if (s.telemetry_power_limited > 0) {
      power_limited.push_back(s.info.suite + " (" + std::to_string(s.telemetry_power_limited) + of);
    }
  }
  out << "telemetry: " << o.telemetry;
  if (!throttled.empty()) {
    out << "; thermal/HW slowdown (samples invalid) while running " << join(throttled, ", ");
  } else if (o.telemetry_active) {
    out << "; no thermal/HW slowdown seen";
  }
  if (!power_limited.empty()) {
    out << "; power-limited (informational) while running " << join(power_limited, ", ");
  }
  out << "\n";
  for (const harness::SettleRecord& r : o.settles) {
    out << "before " << r.before << " execution " << r.before_execution + 1 << ": " << r.text()
        << "\n";
  }
  if (!o.settle_unavailable.empty()) out << "settle: " << o.settle_unavailable << "\n";
  out << "run " << o.run_id;
  if (!o.uuid.empty()) out << " (" << o.uuid << ")";
  out << ": " << results::to_string(o.status) << " in " << duration_text(o.duration_s) << "\n";
}

// SIGINT/SIGTERM/SIGHUP while waiting for the database lock, before any run was stored.
void interrupted_before_start(Context& ctx, int sig) {
  *ctx.err << "gpubench: run interrupted by " << harness::signal_name(sig)
           << " while waiting for the database lock; nothing was stored\n";
  ctx.exit_code = 128 + sig;
}

// --filter goes to Google Benchmark, which matches it with std::regex (extended syntax); a
// leading '-' negates it. A bad pattern would make every suite fail after the run is stored.
void check_filter(const std::string& filter) {
  if (filter.empty()) return;
  const std::string pattern = filter[0] == '-' ? filter.substr(1) : filter;
  try {
    const std::regex re(pattern, std::regex::extended | std::regex::nosubs);
  } catch (const std::regex_error& e) {
    throw bad_input("bad --filter '" + filter + "'",
                    std::string("not a valid extended regular expression: ") + e.what(),
                    "fix the pattern (Google Benchmark's --benchmark_filter syntax), e.g. "
                    "--filter 'memory/triad'");
  }
}

// --plan --gpus N: the most GPUs a plan is made for (the largest servers hold 8 to 16; the
// suites' plan time grows with N: 1,000 GPUs take fusion 45 s).
constexpr int k_max_plan_gpus = 256;

// --plan runs nothing and stores nothing: options that only shape a run or what it stores would be
// accepted and ignored, and a user who added them to a plan would think they were checked.
void check_plan_only(const RunArgs& args) {
  std::vector<std::string> ignored;
  if (!args.until_decided.base.empty()) ignored.push_back("--until-decided");
  if (args.expect_gpus) ignored.push_back("--expect-gpus");
  if (args.launcher_given) ignored.push_back("--launcher");
  if (args.require_ready) ignored.push_back("--require-ready");
  if (!args.tags.empty()) ignored.push_back("--tag");
  if (!args.note.empty()) ignored.push_back("--note");
  if (args.reselect_algos) ignored.push_back("--reselect-algos");
  if (ignored.empty()) return;
  throw bad_input(
      join(ignored, ", ") + (ignored.size() == 1 ? " does" : " do") + " not go with --plan",
      "--plan runs nothing and stores nothing, so these options would be ignored",
      "leave " + join(ignored, ", ") + " out of the plan, or drop --plan to run");
}

// A multi-rank suite built without MPI (the bundle's allreduce) would run under the launcher as one
// world of one rank per task: N copies contending for every GPU of a node and writing the same
// results file, stored as valid (allreduce N3). Refused before the launcher starts or anything is
// stored; the suite refuses too, but only once the launcher has started every task.
void check_launcher_builds(const std::vector<harness::SuiteExecutable>& suites,
                           const RunArgs& args) {
  for (const auto& s : suites) {
    if (!harness::runs_under_launcher(s.name)) continue;
    const std::string why =
        harness::launcher_refusal(harness::ask_suite_info(s, args.profile), args.launcher);
    if (why.empty()) continue;
    throw bad_input("gpubench-" + s.name + " cannot run under --launcher: built without MPI", why,
                    "build gpubench with MPI where the launcher runs (ci/setup installs Open MPI "
                    "and builds; against a site MPI configure with -DGPUBENCH_MPI=ON and rebuild), "
                    "or run without --launcher: one process then drives every GPU of this node");
  }
}

// gemm's cuBLASLt choices across runs (harness/run/algorithm_seed.hpp): before the first suite the
// newest stored choices made on this GPU model, driver and cuBLAS version are seeded into the
// run's scratch directory, unless --reselect-algos; after the last one the run's are stored. A
// failure of either is a warning, not a failed run: the gemm suite then searches, which costs
// time, not correctness.
void set_algorithm_hooks(const RunArgs& args, results::Store& store, harness::RunOptions& options,
                         Context& ctx) {
  std::ostream* err = ctx.err;
  std::ostream* progress = ctx.interactive ? ctx.err : nullptr;
  if (!args.reselect_algos) {
    options.before_suites = [&store, err, progress](int64_t run_id,
                                                    const std::filesystem::path& dir) {
      try {
        const std::size_t seeded = harness::seed_algorithms(store, run_id, dir);
        if (seeded > 0 && progress) {
          *progress << "cuBLASLt algorithms: " << seeded
                    << " gemm case(s) reuse the stored choice of an earlier run on this GPU model, "
                       "driver and cuBLAS version (--reselect-algos searches again)\n"
                    << std::flush;
        }
      } catch (const Error& e) {
        *err << "gpubench: warning: stored cuBLASLt algorithms not reused (" << e.what()
             << "); the gemm suite searches them again\n";
      }
    };
  }
  options.after_suites = [&store, err](int64_t run_id, const std::filesystem::path& dir) {
    try {
      harness::keep_algorithms(store, run_id, dir);
    } catch (const Error& e) {
      *err << "gpubench: warning: the run's cuBLASLt algorithms were not stored (" << e.what()
           << "); the next run searches them again\n";
    }
  };
}

void do_run(const RunArgs& args, Context& ctx) {
  // Everything the user typed is checked before the database is touched.
  const harness::ProfileDefaults defaults = harness::profile_defaults(args.profile);
  if (args.repetitions_given && args.repetitions < 1) {
    throw bad_input("--repetitions must be at least 1", "got " + std::to_string(args.repetitions),
                    "omit it to use the profile's default");
  }
  if (args.executions &&
      (*args.executions < harness::k_min_executions || *args.executions > harness::k_max_executions)) {
    throw bad_input(
        "--executions must be " + std::to_string(harness::k_min_executions) + " to " +
            std::to_string(harness::k_max_executions),
        "got " + std::to_string(*args.executions) +
            (*args.executions < harness::k_min_executions
                 ? "; with one execution a suite's processes cannot be compared with each other, "
                   "so the interval would hold no between-execution variance"
                 : ""),
        "omit it to use the profile's (quick 3, standard 5, full 10), or give 2 or more");
  }
  const int executions = args.executions.value_or(defaults.executions);
  // Explicit --repetitions: inside each execution; else the profile's spread over executions.
  const int repetitions =
      args.repetitions_given ? args.repetitions
                             : harness::ProfileDefaults{defaults.repetitions, defaults.min_time_s,
                                                        executions}
                                   .repetitions_per_execution();
  // Every comma-separated part must name a suite: "--suite ," or "--suite memory," would
  // otherwise drop the empty part and run every suite (or fewer than meant) without a word.
  for (const auto& list : args.suites) {
    for (const auto& name : split(list, ',')) {
      if (!std::string(trim(name)).empty()) continue;
      throw bad_input("--suite '" + list + "' has an empty suite name",
                      "an empty name would be dropped silently, and an empty list would mean "
                      "every suite",
                      "name suites (--suite memory,gemm) or leave --suite out to run all");
    }
  }
  check_filter(args.filter);
  check_timeout_seconds(args.timeout_per_suite_s, "--timeout-per-suite");
  check_format(args.format, {"text", "json"});
  if (args.expect_gpus) compare::check_expect_gpus(*args.expect_gpus, "--expect-gpus");
  if (!args.plan && (args.gpus || args.format != "text")) {
    throw bad_input(args.gpus ? "--gpus needs --plan" : "--format needs --plan",
                    "a run measures the GPUs it finds and prints its summary as text",
                    "add --plan to see the plan for N GPUs, or leave the option out");
  }
  if (args.gpus && (*args.gpus < 0 || *args.gpus > k_max_plan_gpus)) {
    throw bad_input("--gpus must be 0 to " + std::to_string(k_max_plan_gpus),
                    "got " + std::to_string(*args.gpus) +
                        "; a plan is for one server, and a suite asked to plan for more GPUs "
                        "than any server holds refuses or takes minutes",
                    "e.g. --gpus 8, or leave it out to plan for this machine");
  }
  if (args.plan) check_plan_only(args);
  harness::RunOptions options;
  for (const auto& t : args.tags) options.tags.push_back(parse_tag(t));
  check_note(args.note);
  const auto found = harness::discover_suites();
  if (found.empty()) {
    throw infrastructure("no suite executables found",
                         "no gpubench-<suite> next to gpubench or in GPUBENCH_SUITE_PATH",
                         "build the suites (ci/setup) or point GPUBENCH_SUITE_PATH at them");
  }
  // Device suites first, power-heavy last among them, host suites after (run_order.hpp).
  options.suites = harness::order_suites(harness::select_suites(found, split_list(args.suites)));
  if (args.plan) {
    do_plan(args, options.suites, repetitions, executions, ctx);
    return;
  }
  check_filter_matches(args, options.suites, repetitions);
  options.note = args.note;
  options.argv = ctx.argv;
  auto& so = options.suite_options;
  so.profile = args.profile;
  so.repetitions = repetitions;
  so.executions = executions;
  // The profile's executions: cheap suites get more (harness/run/runner.hpp executions_for_cost).
  so.more_when_cheap = !args.executions.has_value();
  so.min_time_s = defaults.min_time_s;
  so.filter = args.filter;
  so.timeout_s = args.timeout_per_suite_s;
  options.telemetry_interval_ms = harness::telemetry_interval_ms_from_env();
  if (args.launcher_given) {
    so.launcher = harness::split_launcher(args.launcher);
    bool any = false;
    for (const auto& s : options.suites) any = any || harness::runs_under_launcher(s.name);
    if (!any) {
      *ctx.err << "gpubench: warning: --launcher applies only to multi-rank suites (allreduce), "
                  "and none is selected; the suites run directly\n";
    }
    check_launcher_builds(options.suites, args);
  }

  // Readiness (gpubench doctor): one line before the run starts, stored with the run.
  // Free space is held to what the dataloader will write, when it runs (issue 23 item 19).
  harness::DoctorOptions doctor_options;
  doctor_options.profile.clear();
  for (const auto& s : options.suites) {
    if (s.name == "dataloader") doctor_options.profile = args.profile;
  }
  options.doctor = harness::run_doctor(doctor_options);
  if (args.expect_gpus.has_value()) {  // also a readiness check, so --require-ready refuses early
    results::SoftwareEnv software;
    const std::vector<results::GpuInfo> gpus = harness::probe_gpus(software);
    options.doctor.push_back(compare::expected_gpus_check(
        expected_of(args), gpus.size(), compare::hardware_problems(expected_of(args), gpus, {})));
  }
  *ctx.out << harness::readiness_line(options.doctor) << '\n' << std::flush;
  if (args.require_ready && results::count_checks(options.doctor).fail > 0) {
    throw infrastructure(
        "server not ready: a doctor check failed (--require-ready)",
        harness::readiness_line(options.doctor),
        "run 'gpubench doctor' and apply the fixes, or run without --require-ready");
  }

  // Signals are ours from here on, so a lock wait while opening or starting is interruptible.
  harness::InterruptGuard guard;
  std::optional<results::Store> store;
  try {
    store.emplace(open_store(ctx, results::OpenMode::read_write_create));
  } catch (const Error& e) {
    if (e.code() != ExitCode::infrastructure || harness::interrupt_signal() == 0) throw;
    interrupted_before_start(ctx, harness::interrupt_signal());
    return;
  }
  if (!args.until_decided.base.empty()) harness::check_until_decided(*store, args.until_decided);
  set_algorithm_hooks(args, *store, options, ctx);
  // Progress on stderr (issue 39): redrawn on a terminal, one line per suite start and end (and
  // at most every 30 s inside one) in a log, where CI used to see nothing until the end.
  options.progress_style = isatty(STDERR_FILENO) == 1 && ctx.interactive
                               ? harness::ProgressStyle::live
                               : harness::ProgressStyle::lines;
  const harness::RunOutcome outcome = harness::execute_run(*store, options, ctx.err);
  if (outcome.run_id == 0) {
    interrupted_before_start(ctx, outcome.interrupt_signal);
    return;
  }
  // Lost hardware fails the run (issue 23) and is part of it (issue 38): its results are stored,
  // but they are not the server's, so the run is stored `incomplete` (a run with failed suites
  // stays `failed`) with the shortfall as its reason; `latest` and group selections skip it.
  std::vector<std::string> shortfall;
  harness::RunOutcome shown = outcome;
  if (outcome.interrupt_signal == 0 && outcome.store_error.empty()) {
    shortfall = run_shortfall(args, *store, outcome.run_id);
    if (!shortfall.empty()) {
      if (shown.status == results::RunStatus::complete) {
        shown.status = results::RunStatus::incomplete;
      }
      store->record_run_outcome(outcome.run_id, shown.status, join(shortfall, "; "));
    }
  }
  print_summary(*ctx.out, shown);
  if (outcome.interrupt_signal != 0) {
    *ctx.err << "gpubench: run " << outcome.run_id << " interrupted by "
             << harness::signal_name(outcome.interrupt_signal)
             << (outcome.store_error.empty() ? "; finished suites are stored\n"
                                             : "; some finished suites could not be stored (" +
                                                   outcome.store_error + ")\n");
    ctx.exit_code = 128 + outcome.interrupt_signal;
  } else if (!outcome.store_error.empty()) {
    *ctx.err << "gpubench: error: "
             << format_error_message(
                    "results of run " + std::to_string(outcome.run_id) + " could not all be stored",
                    outcome.store_error,
                    "the run is recorded failed; check the database (a "
                    "long-held lock, a full disk) and run again");
    *ctx.err << "\n";
    ctx.exit_code = static_cast<int>(ExitCode::infrastructure);
  } else if (!shortfall.empty()) {
    for (const std::string& p : shortfall) *ctx.err << "gpubench: error: " << p << '\n';
    ctx.exit_code = static_cast<int>(ExitCode::infrastructure);
  } else if (outcome.status != results::RunStatus::complete) {
    *ctx.err << "gpubench: error: "
             << "some suites failed in run " << outcome.run_id
             << " (see the reasons above; 'gpubench show " << outcome.run_id
             << "' has their stderr)\n";
    ctx.exit_code = static_cast<int>(ExitCode::infrastructure);
  } else if (!args.until_decided.base.empty()) {
    ctx.exit_code = harness::run_until_decided(*store, options, outcome, args.until_decided,
                                               *ctx.out, ctx.err)
                        .exit_code;
  }
}

}  // namespace

void add_run_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "run benchmark suites and store the results");
  cmd->add_option("--suite", args->suites,
                  "suites to run, comma-separated or repeated (default: all)");
  cmd->add_option("--filter", args->filter, "only benchmarks whose name matches this regex");
  cmd->add_option("--profile", args->profile,
                  "quick (3 executions of every suite), standard (5), full (10)")
      ->capture_default_str();
  cmd->add_option("--executions", args->executions,
                  "separate processes per suite, interleaved across suites, 2 or more "
                  "(overrides the profile's 3/5/10): their spread is the run-to-run noise of "
                  "the run's intervals");
  cmd->add_option("--repetitions", args->repetitions,
                  "samples per benchmark in each execution (default: the profile's 3/5/10 "
                  "spread over its executions)")
      ->each([args](const std::string&) { args->repetitions_given = true; });
  cmd->add_option("--tag", args->tags, "k=v label stored with the run (repeatable)");
  cmd->add_option("--note", args->note, "free text stored with the run");
  cmd->add_option("--timeout-per-suite", args->timeout_per_suite_s,
                  "seconds before a suite is stopped and recorded as timed out")
      ->capture_default_str();
  cmd->add_flag("--require-ready", args->require_ready,
                "refuse to run (exit 3, nothing stored) when a 'gpubench doctor' check fails");
  cmd->add_option("--launcher", args->launcher,
                  "run the suites under this MPI launcher, e.g. \"mpirun -np 2\" or \"srun -N 2 "
                  "--ntasks-per-node 8\" (rank 0 writes the results)")
      ->each([args](const std::string&) { args->launcher_given = true; });
  cmd->add_option("--until-decided", args->until_decided.base,
                  "after the run, compare with BASE (a compare selection) and rerun only the "
                  "inconclusive benchmarks, pooling the runs, until each is decided; exit 1 on "
                  "a regression");
  cmd->add_option("--max-extra-runs", args->until_decided.max_extra_runs,
                  "--until-decided: most reruns")
      ->capture_default_str();
  cmd->add_option("--base-last", args->until_decided.base_last,
                  "--until-decided: pool the newest N runs of a tag:/host:/gpu: BASE")
      ->capture_default_str();
  cmd->add_option("--expect-gpus", args->expect_gpus,
                  "GPUs this server must have: fewer, or a GPU benchmark skipped for want of a "
                  "GPU, fail the run (exit 3) naming the missing GPU's UUID");
  cmd->add_flag("--plan", args->plan,
                "print each suite's cases and estimated time (a time model at reference rates), "
                "then stop: nothing runs, nothing is stored, no database is opened");
  cmd->add_option("--gpus", args->gpus,
                  "--plan: plan for a server of N GPUs of the reference class (default: the GPUs "
                  "NVML finds here)");
  cmd->add_option("--format", args->format, "--plan: text or json")->capture_default_str();
  cmd->add_flag("--reselect-algos", args->reselect_algos,
                "search gemm's cuBLASLt algorithms again instead of reusing the newest stored "
                "choices made on this GPU model, driver and cuBLAS version; the new choices "
                "become the newest");
  cmd->callback([args, &ctx] { do_run(*args, ctx); });
}

}  // namespace gpubench::cli
