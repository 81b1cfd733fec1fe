// gpubench history SELECTOR: per series the per-run medians over time with change points
// (compare/history/series_history.hpp); --changes lists the change points of every series grouped
// by the run where they happened. --record stores them, recomputing incrementally (only the series
// a new run touched, and there only their tails; --full: everything). --fail-on-change: exit 1 when
// a change point falls in the newest --new-runs runs (nightly CI: a change found once --min-segment
// runs follow it is new).
// gpubench history exclude RUN --reason TEXT / history include RUN: leave a run out of every
// history on purpose (run-to-run noise of compare/accept, history series and change points), or
// take it back (results/history_exclusions.hpp).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <ostream>
#include <sstream>

#include "compare/history/series_history.hpp"
#include "compare/render/render.hpp"
#include "compare/render/render_history.hpp"
#include "compare/stats/thresholds.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "results/history_exclusions.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::cli {
namespace {

struct HistoryArgs {
  std::string selector;
  std::string benchmark;
  std::string metric;
  int last = 0;
  std::string format = "text";
  bool changes = false;
  std::string output;
  std::string significance = "permutation";
  double max_pvalue = 0.001;
  int permutations = 999;
  int64_t seed = 1;
  int min_segment = 3;
  std::string delta = "2%";  // read as every percentage option (compare::read_percent)
  bool fail_on_change = false;
  int new_runs = 4;
  bool record = false;
  bool full = false;
};

compare::HistoryFormat format_of(const std::string& text) {
  if (text == "md") return compare::HistoryFormat::md;
  if (text == "html") return compare::HistoryFormat::html;
  if (text == "json") return compare::HistoryFormat::json;
  if (text == "csv") return compare::HistoryFormat::csv;
  return compare::HistoryFormat::text;
}

compare::ChangePointOptions detection_of(const HistoryArgs& a) {
  if (a.significance != "permutation" && a.significance != "ttest") {
    throw bad_input("--significance must be permutation or ttest", "got '" + a.significance + "'",
                    "e.g. --significance permutation");
  }
  if (!(a.max_pvalue > 0 && a.max_pvalue < 1)) {
    throw bad_input("--max-pvalue must be in (0, 1)", "got " + std::to_string(a.max_pvalue),
                    "e.g. --max-pvalue 0.001");
  }
  if (a.permutations < 1 || a.min_segment < 1 || a.seed < 0) {
    throw bad_input("--permutations and --min-segment must be at least 1, --seed 0 or more",
                    "got " + std::to_string(a.permutations) + ", " + std::to_string(a.min_segment) +
                        ", " + std::to_string(a.seed),
                    "e.g. --permutations 999 --min-segment 3");
  }
  compare::ChangePointOptions o;
  o.significance =
      a.significance == "ttest" ? compare::Significance::ttest : compare::Significance::permutation;
  o.max_pvalue = a.max_pvalue;
  o.permutations = static_cast<std::size_t>(a.permutations);
  o.seed = static_cast<uint64_t>(a.seed);
  o.min_segment = static_cast<std::size_t>(a.min_segment);
  o.min_magnitude = compare::read_percent(a.delta, "--delta");
  return o;
}

struct ExclusionArgs {
  std::string run;
  std::string reason;
};

void do_exclude(const ExclusionArgs& args, Context& ctx) {
  check_note(args.reason, "the reason");
  results::Store store = open_store(ctx, results::OpenMode::read_write);
  const int64_t run_id = store.resolve_run(args.run);
  const bool again = results::history_exclusion(store.database(), run_id).has_value();
  results::exclude_from_history(store.database(), run_id, args.reason);
  write_output(ctx, "", OutputKind::for_people,
               "run " + std::to_string(run_id) + (again ? ": still" : ":") +
                   " excluded from history (" + std::string(trim(args.reason)) +
                   "); compare, accept and history leave it out ('gpubench history include " +
                   std::to_string(run_id) + "' undoes it)\n");
}

void do_include(const ExclusionArgs& args, Context& ctx) {
  results::Store store = open_store(ctx, results::OpenMode::read_write);
  const int64_t run_id = store.resolve_run(args.run);
  if (!results::include_in_history(store.database(), run_id)) {
    throw bad_input("run " + std::to_string(run_id) + " is not excluded from history",
                    "only a run 'gpubench history exclude' or a FAILed accept left out can be "
                    "included again",
                    "'gpubench runs' marks excluded runs 'no history'");
  }
  write_output(ctx, "", OutputKind::for_people,
               "run " + std::to_string(run_id) + ": counts in history again\n");
}

void do_history(const HistoryArgs& args, Context& ctx) {
  if (args.selector.empty()) {
    throw bad_input("history needs a selector", "it names the runs whose history to show",
                    "e.g. gpubench history all, or history tag:ci=nightly; 'history exclude RUN "
                    "--reason TEXT' leaves a run out");
  }
  check_format(args.format, {"text", "md", "html", "json", "csv"});
  // Checked before anything is read or printed: a bad value must not follow a whole history.
  if (args.fail_on_change && args.new_runs < 1) {
    throw bad_input("--new-runs must be at least 1", "got " + std::to_string(args.new_runs),
                    "e.g. --new-runs 4");
  }
  check_output(ctx, args.output);
  compare::HistoryOptions options;
  options.selector = args.selector;
  if (!args.benchmark.empty()) options.benchmark = args.benchmark;
  if (!args.metric.empty()) options.metric = args.metric;
  options.last = args.last;
  options.detection = detection_of(args);
  if (args.full && !args.record) {
    throw bad_input("--full only applies to --record", "history without --record detects in full",
                    "add --record, or drop --full");
  }
  options.incremental = args.record && !args.full;
  results::Store store =
      open_store(ctx, args.record ? results::OpenMode::read_write : results::OpenMode::read_only);
  const compare::History h = compare::load_history(store, options);
  if (args.record) {
    const std::size_t rows = compare::record_change_points(store, h);
    const compare::ScanCounts scans = compare::scan_counts(h);
    *ctx.err << "gpubench: recorded " << rows << " change point" << (rows == 1 ? "" : "s") << " of "
             << h.series.size() << " series with their parameters (detected in full: " << scans.full
             << "; on the tail only: " << scans.tail << ", " << scans.tail_points
             << " runs in all; unchanged since the last --record: " << scans.reused << ")\n";
  }
  std::ostringstream text;
  compare::render_history(h, format_of(args.format), args.changes, text);
  write_output(ctx, args.output, output_kind(args.format), text.str());
  if (args.fail_on_change) {
    for (const compare::RunChanges& rc : compare::changes_by_run(h)) {
      const bool primary = std::any_of(rc.changes.begin(), rc.changes.end(),
                                       [&](const auto& c) { return h.series[c.first].primary; });
      if (primary && rc.run + static_cast<std::size_t>(args.new_runs) >= h.runs.size()) {
        *ctx.err << "gpubench: a new change point at run " << h.runs[rc.run].id << " (" << rc.series
                 << " series, one of the newest " << args.new_runs
                 << " runs); --fail-on-change makes that exit 1\n";
        ctx.exit_code = 1;
      }
    }
  }
}

}  // namespace

void add_history_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<HistoryArgs>();
  CLI::App* cmd = app.add_subcommand(
      "history", "per-run medians of each series over time, with change points and their causes");
  cmd->add_option("selector", args->selector,
                  "runs: tag:K=V, host:NAME, gpu:MODEL, all (or one run id)");
  cmd->add_option("--benchmark", args->benchmark, "only benchmarks matching this regex");
  cmd->add_option("--metric", args->metric, "only this metric (default: all but cpu_time)");
  cmd->add_option("--last", args->last, "the newest N runs (0: all)")->capture_default_str();
  cmd->add_option("--format", args->format, "text, md, html, json or csv")->capture_default_str();
  cmd->add_flag("--changes", args->changes, "list the change points of every series by run");
  cmd->add_option("-o,--output", args->output, "write to this file (default stdout)");
  cmd->add_option("--significance", args->significance, "permutation or ttest")
      ->capture_default_str();
  cmd->add_option("--max-pvalue", args->max_pvalue, "significance level of a change point")
      ->capture_default_str();
  cmd->add_option("--permutations", args->permutations, "permutations of the test")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "seed of the permutations")->capture_default_str();
  cmd->add_option("--min-segment", args->min_segment, "fewest runs on each side of a change")
      ->capture_default_str();
  cmd->add_option("--delta", args->delta,
                  "smallest change that counts, a percentage as --threshold reads it (2% or 2)")
      ->capture_default_str();
  cmd->add_flag("--fail-on-change", args->fail_on_change,
                "exit 1 when a primary metric has a change point at one of the newest --new-runs "
                "runs (nightly CI)");
  cmd->add_option("--new-runs", args->new_runs,
                  "what --fail-on-change calls new: the newest N runs (a change is found once "
                  "--min-segment runs follow it)")
      ->capture_default_str();
  cmd->add_flag("--record", args->record,
                "store the change points found, with these parameters, in the database; series "
                "recorded before with the same parameters are recomputed only where new runs "
                "can have changed them");
  cmd->add_flag("--full", args->full, "with --record: detect every series in full");
  auto exclusion = std::make_shared<ExclusionArgs>();
  CLI::App* exclude = cmd->add_subcommand(
      "exclude", "leave a run out of every history (run-to-run noise, series, change points)");
  exclude->add_option("run", exclusion->run, "run id, latest, latest~N, or UUID (prefix)")
      ->required();
  exclude->add_option("--reason", exclusion->reason, "why (shown by runs, show and history)")
      ->required();
  exclude->callback([exclusion, &ctx] { do_exclude(*exclusion, ctx); });
  CLI::App* include =
      cmd->add_subcommand("include", "undo 'history exclude': the run counts again");
  include->add_option("run", exclusion->run, "run id, latest, latest~N, or UUID (prefix)")
      ->required();
  include->callback([exclusion, &ctx] { do_include(*exclusion, ctx); });
  cmd->require_subcommand(0, 1);
  cmd->callback([args, &ctx, exclude, include] {
    if (exclude->parsed() || include->parsed()) return;
    do_history(*args, ctx);
  });
}

}  // namespace gpubench::cli
