// gpubench compare BASE CANDIDATE: verdicts per benchmark between two runs or groups of runs
// (DESIGN.md "Statistics"). Read-only on the database. Exit 1 per --fail-on, 2 on bad input.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <sstream>

#include "compare/compare.hpp"
#include "compare/render/render.hpp"
#include "compare/render/render_large.hpp"
#include "compare/run_noise.hpp"
#include "compare/selection.hpp"
#include "compare/stats/thresholds.hpp"
#include "gpubench_version.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "util/error.hpp"
#include "util/text_safety.hpp"
#include "util/text_width.hpp"

namespace gpubench::cli {
namespace {

struct CompareArgs {
  std::string base;
  std::string candidate;
  std::string threshold = "2%";
  std::string thresholds_file;
  double alpha = 0.01;
  std::string metric;
  std::string format = "text";
  std::string output;
  std::string fail_on = "regression";
  int last = 1;
  int history = compare::k_default_history_window;
  bool all = false;
};

void do_compare(const CompareArgs& args, Context& ctx) {
  std::optional<compare::Format> format = compare::format_from_string(args.format);
  if (!format) {
    throw bad_input("unknown --format '" + args.format + "'",
                    "expected text, md, html, json, junit or csv");
  }
  std::optional<compare::FailOn> fail_on = compare::fail_on_from_string(args.fail_on);
  if (!fail_on) {
    throw bad_input("unknown --fail-on '" + args.fail_on + "'",
                    "expected regression, changed, inconclusive or never");
  }
  const double threshold = compare::read_percent(args.threshold, "--threshold");
  compare::check_history_window(args.history);
  if (!(args.alpha > 0 && args.alpha < 1)) {
    throw bad_input("invalid --alpha " + std::to_string(args.alpha), "it must be in (0, 1)");
  }
  check_output(ctx, args.output);
  std::optional<compare::Thresholds> thresholds;
  if (!args.thresholds_file.empty()) {
    std::error_code ec;
    if (std::filesystem::is_directory(args.thresholds_file, ec)) {
      throw bad_input("cannot read thresholds file '" + args.thresholds_file + "'",
                      "it is a directory", "give the path of a thresholds file");
    }
    thresholds = compare::Thresholds::load(args.thresholds_file);
  }

  results::Store store = open_store(ctx, results::OpenMode::read_only);
  // Sides that share a run are refused before their samples are read.
  const auto [base_ids, candidate_ids] =
      compare::resolve_pair(store, args.base, args.candidate, args.last);
  compare::check_disjoint(args.base, base_ids, args.candidate, candidate_ids);
  // Rows of metrics compare_sides does not look at (cpu_time unless asked for; with --metric,
  // every other metric) are dropped as they are read. Rows without a metric (skips, errors)
  // stay: they carry the benchmark's status.
  const std::optional<std::string> only_metric =
      args.metric.empty() ? std::nullopt : std::optional<std::string>(args.metric);
  auto [base, candidate] = compare::load_sides(
      store, args.base, args.candidate, args.last, [&only_metric](const results::ResultRow& r) {
        return r.metric.empty() || compare::compared_metric(r.metric, only_metric);
      });
  compare::check_disjoint(base, candidate);
  compare::Options options;
  options.threshold = threshold;
  options.alpha = args.alpha;
  if (!args.metric.empty()) options.metric = args.metric;
  options.thresholds = thresholds ? &*thresholds : nullptr;
  options.thresholds_file = args.thresholds_file;
  options.fail_on = *fail_on;
  options.history_window = args.history;
  options.last = args.last;
  options.gpubench_version = build_info::k_version;
  compare::HistoryNoise history =
      compare::load_history_noise(store, base, candidate, args.history, options.metric);
  options.history = &history;
  compare::Comparison cmp = compare::compare_sides(base, candidate, options);

  // Written as it is produced (issue 16): to stdout, or to a temp file renamed over -o.
  const bool colour = ctx.interactive && args.output.empty() && *format == compare::Format::text;
  // A large Markdown/HTML comparison puts its unchanged entries in a CSV beside -o FILE.
  const std::string unchanged_csv = sidecar_for(ctx, args.output, ".unchanged.csv");
  const compare::Detail detail = args.all ? compare::Detail::all : compare::Detail::summary;
  if (*format == compare::Format::text) {
    // Text is small (no streaming needed) and fits the output width (issue 26; --wide: no limit).
    std::ostringstream text;
    compare::render_comparison(cmp, *format, text, false, unchanged_csv, detail);
    std::string body = wrap_lines(text.str(), output_width());
    // Colour only when no stored string carries a control character (issue 43): then every
    // escape in the coloured text is one the renderer wrote.
    if (colour && !has_hidden_text(body)) {
      std::ostringstream coloured;
      compare::render_comparison(cmp, *format, coloured, true, unchanged_csv, detail);
      compare::write_output("", wrap_lines(coloured.str(), output_width()), *ctx.out);
    } else {
      write_output(ctx, args.output, OutputKind::for_people, body);
    }
  } else {
    stream_output(ctx, args.output, output_kind(args.format), [&](std::ostream& out) {
      compare::render_comparison(cmp, *format, out, colour, unchanged_csv, detail);
    });
  }
  ctx.exit_code = cmp.exit_code(*fail_on);
}

}  // namespace

void add_compare_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Compare two runs (or groups of runs): verdict per benchmark, exit 1 on regression");
  cmd->add_option("base", args->base,
                  "run id, latest, latest~N, UUID prefix, baseline:NAME, tag:K[=V], host:NAME, "
                  "gpu:MODEL")
      ->required();
  cmd->add_option("candidate", args->candidate, "same forms as BASE")->required();
  cmd->add_option("--threshold", args->threshold,
                  "practical threshold: a change smaller than this is not a regression, and "
                  "'unchanged' needs the 99% interval inside +-this")
      ->capture_default_str();
  cmd->add_option("--thresholds", args->thresholds_file,
                  "file of per-benchmark rules: '<glob> <threshold%>|ignore' per line");
  cmd->add_option("--alpha", args->alpha, "false discovery rate (Benjamini-Hochberg)")
      ->capture_default_str();
  cmd->add_option("--metric", args->metric, "compare only this metric (default: all but cpu_time)");
  cmd->add_option("--format", args->format, "text, md, html, json, junit or csv")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output,
                  "file to write (default: stdout); md/html of more than 5000 entries also "
                  "write their unchanged entries to FILE's stem + .unchanged.csv");
  cmd->add_option(
         "--fail-on", args->fail_on,
         "exit 1 on: regression; changed (also a significant change of unknown direction); "
         "inconclusive (anything undecided: also inconclusive, invalid, missing); never")
      ->capture_default_str();
  cmd->add_option("--last", args->last,
                  "for tag:/host:/gpu: selections, pool the newest N complete runs per side")
      ->capture_default_str();
  cmd->add_option("--history", args->history,
                  "runs of the base side's hardware and configuration whose run-to-run spread "
                  "goes into the interval (per suite; 0: off, within-run noise only)")
      ->capture_default_str();
  cmd->add_flag("--all", args->all,
                "text and md: also list the unchanged entries one by one, every secondary metric "
                "and every skipped case, each with its why (default: failing entries first, the "
                "rest summarised, secondary metrics and skips counted)");
  cmd->callback([args, &ctx] { do_compare(*args, ctx); });
}

}  // namespace gpubench::cli
