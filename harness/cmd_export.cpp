// gpubench export RUN --format json|csv|openmetrics [--against BASELINE] [-o FILE]: a run for
// other tools (written atomically).
#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "harness/cli_common.hpp"
#include "harness/command.hpp"
#include "harness/export_openmetrics.hpp"
#include "harness/run_json.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::cli {

namespace {
struct ExportArgs {
  std::string run;
  std::string format = "json";
  std::string output;
  std::string against;  // openmetrics: baseline to give verdicts against
};

void do_export(const ExportArgs& args, Context& ctx) {
  check_format(args.format, {"json", "csv", "openmetrics"});
  if (!args.against.empty() && args.format != "openmetrics") {
    throw bad_input("--against needs --format openmetrics", "got --format " + args.format,
                    "use 'gpubench compare' for verdicts in other formats");
  }
  results::Store store = open_store(ctx, results::OpenMode::read_only);
  const int64_t id = store.resolve_run(args.run);
  const results::RunDetail detail = store.get_run(id);
  const std::vector<results::ResultRow> rows = store.get_results(id);
  const std::string text = args.format == "openmetrics"
                               ? openmetrics_export(store, id, args.against)
                           : args.format == "json" ? run_to_json(detail, rows).dump(2) + "\n"
                                                   : run_to_csv(detail, rows);
  if (args.output.empty() || args.output == "-") {
    *ctx.out << text;
  } else {
    write_file_atomic(args.output, text);
  }
}
}  // namespace

void add_export_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand("export", "write one run as JSON or CSV (one row per sample)");
  cmd->add_option("run", args->run, "run id, latest, latest~N, or UUID (prefix)")->required();
  cmd->add_option("--format", args->format,
                  "json, csv, or openmetrics (node_exporter textfile collector)")
      ->capture_default_str();
  cmd->add_option(
      "--against", args->against,
      "openmetrics: baseline (name or selection) to give each series a verdict against");
  cmd->add_option("-o,--output", args->output, "file to write (default: stdout)");
  cmd->callback([args, &ctx] { do_export(*args, ctx); });
}

}  // namespace gpubench::cli
