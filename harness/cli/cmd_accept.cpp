// gpubench accept RUN --against baseline:NAME|RUN | --spec FILE [--tolerance 5%] [--strict]
// [--allow-failed] [--expect-gpus N] [--history N] [--suite S,...] [--filter REGEX] [--no-record]:
// per GPU and benchmark acceptance (PASS / MARGINAL / FAIL, compare/accept/accept.hpp), a
// sibling-outlier check and the expected hardware (compare/hardware.hpp). Exit 1 when anything
// fails, 2 on bad input. The overall verdict is recorded on the accepted run (issue 38, tag
// results::k_accept_tag_key): a FAILed run leaves every history until a PASS or `history include`.
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>

#include "compare/accept/accept.hpp"
#include "compare/hardware.hpp"
#include "compare/render/render.hpp"
#include "compare/run_noise.hpp"
#include "compare/selection.hpp"
#include "compare/stats/thresholds.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "results/history_exclusions.hpp"
#include "results/model.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::cli {
namespace {

struct AcceptArgs {
  std::string run;
  std::string against;
  std::string spec;
  std::string tolerance = "5%";
  std::string format = "text";
  std::string output;
  bool strict = false;
  bool allow_failed = false;
  bool all = false;
  bool no_record = false;          // --no-record: leave the verdict unrecorded
  std::optional<int> expect_gpus;  // --expect-gpus N
  int history = compare::k_default_history_window;
  std::vector<std::string> suites;
  std::string filter;
};

// --suite and --filter: only these suites' benchmarks, and only names the regex finds (a leading
// '-' negates it), as `gpubench run` selects them, so a partial rerun is held to the same part of
// the reference instead of the rest coming out MISSING.
compare::RowFilter selection_filter(const AcceptArgs& args) {
  std::set<std::string> suites;
  for (const std::string& value : args.suites) {
    for (const std::string& s : split(value, ',')) {
      const std::string name(trim(s));
      if (name.empty()) {
        throw bad_input("--suite is empty", "'" + value + "' names an empty suite",
                        "name suites (--suite memory,gemm) or leave --suite out to accept all");
      }
      suites.insert(name);
    }
  }
  std::shared_ptr<const std::regex> re;
  bool negate = false;
  if (!args.filter.empty()) {
    negate = args.filter[0] == '-';
    try {
      re = std::make_shared<const std::regex>(negate ? args.filter.substr(1) : args.filter,
                                              std::regex::extended | std::regex::nosubs);
    } catch (const std::regex_error& e) {
      throw bad_input("bad --filter '" + args.filter + "'",
                      std::string("not a valid extended regular expression: ") + e.what(),
                      "use the pattern given to `gpubench run --filter`, e.g. 'memory/triad'");
    }
  }
  return [suites, re, negate](const results::ResultRow& row) {
    if (!compare::accept_counts(row)) return false;
    if (!suites.empty() && !suites.count(row.suite)) return false;
    return !re || std::regex_search(row.benchmark, *re) != negate;
  };
}

// Whether the verdict can be recorded: the database file and its directory (SQLite's journal)
// are writable. A database on read-only media or shared read-only is accepted from, not written.
bool database_writable(const Context& ctx) {
  const std::filesystem::path path = resolve_db_path(ctx);
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  return ::access(path.c_str(), W_OK) == 0 && ::access(dir.c_str(), W_OK) == 0;
}

// "FAIL against baseline:golden at 2026-12-05T15:40:00Z": what the run was held to, and when.
std::string verdict_text(const AcceptArgs& args, const compare::AcceptResult& result) {
  return std::string(result.passed() ? "PASS" : "FAIL") + " against " +
         (args.spec.empty() ? args.against : "spec " + args.spec) + " at " + now_iso8601_utc();
}

void do_accept(const AcceptArgs& args, Context& ctx) {
  if (args.against.empty() == args.spec.empty()) {
    throw bad_input("accept needs exactly one reference",
                    args.spec.empty() ? "neither --against nor --spec was given"
                                      : "both --against and --spec were given",
                    "use --against baseline:NAME|RUN or --spec FILE");
  }
  if (args.format != "text" && args.format != "json" && args.format != "junit") {
    throw bad_input("unknown --format '" + args.format + "'", "expected text, json or junit");
  }
  const double tolerance = compare::read_percent(args.tolerance, "--tolerance");
  compare::check_history_window(args.history);
  const compare::RowFilter keep = selection_filter(args);
  check_output(ctx, args.output);
  if (args.expect_gpus) compare::check_expect_gpus(*args.expect_gpus, "--expect-gpus");
  std::vector<compare::SpecRule> spec;
  compare::ExpectedHardware expected;
  std::vector<compare::FactRule> fact_rules;  // `dcgm <test> must pass` (issue 40)
  if (!args.spec.empty()) {
    const std::string text = read_file(args.spec);
    spec = compare::parse_spec(text, args.spec);
    expected = compare::parse_spec_hardware(text, args.spec);
    fact_rules = compare::parse_spec_facts(text, args.spec);
  }

  // Written only to record the verdict; without --no-record a database that cannot be written
  // is still accepted from, and a note on stderr says the verdict was not recorded.
  const bool record = !args.no_record && database_writable(ctx);
  results::Store store =
      open_store(ctx, record ? results::OpenMode::read_write : results::OpenMode::read_only);
  compare::AcceptOptions options;
  options.tolerance = tolerance;
  options.strict = args.strict;
  options.allow_failed = args.allow_failed;
  if (args.expect_gpus.has_value()) options.expect_gpus = *args.expect_gpus;
  compare::AcceptResult result;
  compare::Side run;
  if (args.spec.empty()) {  // the run and its reference read at once (compare::load_sides)
    auto [candidate, reference] = compare::load_sides(store, args.run, args.against, 1, keep);
    run = std::move(candidate);
    // Run-to-run noise from the reference's history, as compare draws it (the reference is the
    // base side), on the reference's own host: the same machine minutes later must not fail on
    // noise a single run hides, and the spread between the servers of a merged fleet database
    // is not noise to forgive.
    const compare::HistoryNoise history =
        compare::load_history_noise(store, reference, run, args.history, std::nullopt,
                                    /*same_host=*/true);
    options.history = &history;
    options.history_window = args.history;
    result = compare::accept_against_reference(run, reference, options);
    result.options.history = nullptr;  // not owned past this block
    // How busy the machine was with other work, when it differed (issue 38): named, not judged.
    for (const compare::EnvDifference& d :
         compare::environment_differences(reference.runs, run.runs)) {
      if (d.field.rfind("machine load", 0) != 0) continue;
      result.environment.push_back(d.field + ": the run had " + d.candidate + ", the reference " +
                                   d.base);
    }
    // A baseline remembers what its run saw (issue 23): its GPU count unless told otherwise.
    expected = compare::expected_from_reference(reference);
  } else {
    run = compare::load_side(store, args.run, 1, keep);
    result = compare::accept_against_spec(run, spec, args.spec, options);
  }
  if (args.expect_gpus.has_value()) {
    expected.gpus = *args.expect_gpus;
    expected.source = "--expect-gpus";
  }
  for (const results::RunDetail& r : run.runs) {
    for (std::string& h : compare::run_hardware_problems(store, r, run.results, expected)) {
      result.hardware.push_back(std::move(h));
    }
  }
  for (const results::RunDetail& r : run.runs) {
    compare::FactJudgement j = compare::judge_fact_rules(
        fact_rules, results::get_acceptance_facts(store.database(), r.run.id), r.run.id);
    for (std::string& f : j.failed) result.facts.failed.push_back(std::move(f));
    for (std::string& f : j.passed) result.facts.passed.push_back(std::move(f));
  }
  if (result.checks.empty() && result.outliers.empty() && result.problems.empty() &&
      result.hardware.empty() && result.facts.failed.empty() && result.facts.passed.empty()) {
    throw bad_input(
        "nothing to accept in '" + args.run + "'",
        "no benchmark of the run is in the reference or matches the spec" +
            std::string(args.suites.empty() && args.filter.empty() ? ""
                                                                   : " (after --suite/--filter)"),
        "check the run with `gpubench show " + args.run + "`");
  }
  if (record) {
    const std::string verdict = verdict_text(args, result);
    for (const results::RunDetail& r : run.runs) {
      results::record_accept_verdict(store.database(), r.run.id, verdict);
    }
  } else if (!args.no_record) {
    *ctx.err << "gpubench: note: verdict not recorded (the database '" << resolve_db_path(ctx)
             << "' is read-only here; a FAILed run stays in history: run accept where the "
                "database is writable, or `gpubench history exclude RUN --reason TEXT`)\n";
  }
  // Written as it is produced (issue 16): to stdout, or to a temp file renamed over -o.
  stream_output(ctx, args.output, output_kind(args.format), [&](std::ostream& out) {
    if (args.format == "json") {
      compare::render_accept_json(result, out);
    } else if (args.format == "junit") {
      compare::render_accept_junit(result, out);
    } else {
      // Fitted to the output width (issue 26; --wide: no limit).
      std::ostringstream text;
      compare::render_accept_text(result, text,
                                  args.all ? compare::Detail::all : compare::Detail::summary);
      out << wrap_lines(text.str(), output_width());
    }
  });
  ctx.exit_code = result.passed() ? 0 : 1;
}

}  // namespace

void add_accept_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<AcceptArgs>();
  CLI::App* cmd = app.add_subcommand(
      "accept",
      "Acceptance of a run per GPU against a baseline run or a spec file (exit 1 on failure)");
  cmd->add_option("run", args->run, "run id, latest, latest~N, or UUID (prefix)")->required();
  cmd->add_option("--against", args->against, "reference: baseline:NAME or a run");
  cmd->add_option("--spec", args->spec,
                  "spec file: '<glob> <metric> >=|<= <value> <unit>', '... >= <pct>% of <peak> "
                  "<unit>' or '... >= <pct>% of peak' per line (example below)");
  cmd->add_option("--tolerance", args->tolerance,
                  "how far below the reference still passes (interval bound)")
      ->capture_default_str();
  cmd->add_option("--expect-gpus", args->expect_gpus,
                  "GPUs the server must have (default: as many as the reference run saw; a spec "
                  "may say expect_gpus N): fewer fail, naming the missing GPU's UUID");
  cmd->add_flag("--strict", args->strict,
                "MARGINAL checks (interval straddles the requirement) fail too");
  cmd->add_flag("--allow-failed", args->allow_failed,
                "accept a failed, interrupted or running run, or one with a failed suite, on its "
                "measured results");
  cmd->add_option("--history", args->history,
                  "runs of the reference's hardware and configuration whose run-to-run spread "
                  "goes into the interval, as compare --history (0: off; else 6 or more)")
      ->capture_default_str();
  cmd->add_flag("--no-record", args->no_record,
                "do not record the verdict on the run (by default a FAIL leaves the run out of "
                "run-to-run noise and history until a PASS or `history include RUN`)");
  cmd->add_option("--suite", args->suites,
                  "accept only these suites (comma-separated or repeated), e.g. those rerun");
  cmd->add_option("--filter", args->filter,
                  "accept only benchmarks whose name matches this regex (as run --filter)");
  cmd->add_option("--format", args->format, "text, json or junit")->capture_default_str();
  cmd->add_option("-o,--output", args->output, "file to write (default: stdout)");
  cmd->add_flag("--all", args->all,
                "text: also list every passing check with its reason (default: counted)");
  cmd->footer(
      std::string("\nEach check is PASS when the candidate's 99% interval lies wholly at or above "
                  "the requirement\n((1 - tolerance) x the reference median, or the spec bound), "
                  "FAIL when it lies wholly below,\nMARGINAL otherwise (the output says how many "
                  "repetitions would decide it). A run accepted\nagainst itself passes. Against "
                  "a run, each benchmark's primary metric(s) are checked.\n\nExample spec "
                  "file:\n") +
      compare::k_spec_example +
      "\nExamples:\n  gpubench accept latest --against baseline:golden\n"
      "  gpubench accept latest --spec acceptance.spec --format junit -o accept.xml\n"
      "  gpubench accept latest --against 12 --suite memory --filter triad\n");
  cmd->callback([args, &ctx] { do_accept(*args, ctx); });
}

}  // namespace gpubench::cli
