// gpubench report RUN: one run rendered for people (text, Markdown, HTML) or machines (JSON,
// JUnit, CSV). Read-only on the database.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <sstream>

#include "compare/render/render.hpp"
#include "compare/render/render_large.hpp"
#include "compare/report/report.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "results/acceptance_facts.hpp"
#include "util/error.hpp"
#include "util/text_safety.hpp"
#include "util/text_width.hpp"

namespace gpubench::cli {
namespace {

struct ReportArgs {
  std::string run;
  std::string format = "text";
  std::string output;
  bool all = false;
};

void do_report(const ReportArgs& args, Context& ctx) {
  std::optional<compare::Format> format = compare::format_from_string(args.format);
  if (!format) {
    throw bad_input("unknown --format '" + args.format + "'",
                    "expected text, md, html, json, junit or csv");
  }
  check_output(ctx, args.output);
  results::Store store = open_store(ctx, results::OpenMode::read_only);
  int64_t id = store.resolve_run(args.run);
  const results::RunDetail run = store.get_run(id);
  const std::vector<results::ResultRow> rows = store.get_results(id);
  compare::RunReport report = compare::build_report(run, rows);
  report.workers = compare::worker_sizing(store, run, rows);  // loader workers (issue 41)
  // A peer run itself (nccl-tests, ...) has no peers section: peer_lineup would refuse it.
  if (std::none_of(report.run.suites.begin(), report.run.suites.end(),
                   [](const auto& s) { return compare::is_peer_suite(s.suite); })) {
    report.peers = compare::peer_lineup(store, id);
  }
  report.facts = results::get_acceptance_facts(store.database(), id);  // dcgmi diag (issue 40)
  const bool colour = ctx.interactive && args.output.empty() && *format == compare::Format::text;
  const std::string rows_csv = sidecar_for(ctx, args.output, ".results.csv");  // large md/html
  const auto render = [&](bool coloured) {
    std::ostringstream text;
    compare::render_report(report, *format, text, coloured, rows_csv,
                           args.all ? compare::Detail::all : compare::Detail::summary);
    // Text fits the output width (issue 26; --wide: no limit).
    return *format == compare::Format::text ? wrap_lines(text.str(), output_width()) : text.str();
  };
  const std::string body = render(false);
  // Colour only when no stored string carries a control character (issue 43), as compare.
  if (colour && !has_hidden_text(body)) {
    compare::write_output("", render(true), *ctx.out);
  } else {
    write_output(ctx, args.output, output_kind(args.format), body);
  }
}

}  // namespace

void add_report_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd =
      app.add_subcommand("report", "Render one run as text, md, html, json, junit or csv");
  cmd->add_option("run", args->run, "run id, latest, latest~N, or UUID (prefix)")->required();
  cmd->add_option("--format", args->format, "text, md, html, json, junit or csv")
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output,
                  "file to write (default: stdout); md/html of more than 5000 entries also "
                  "write their ok rows to FILE's stem + .results.csv");
  cmd->add_flag("--all", args->all,
                "text and md: list every row, secondary metrics and skipped cases too (default: "
                "primary metrics, skipped cases one line per reason)");
  cmd->callback([args, &ctx] { do_report(*args, ctx); });
}

}  // namespace gpubench::cli
