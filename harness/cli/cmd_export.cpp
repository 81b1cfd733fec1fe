// gpubench export RUN --format json|csv|openmetrics [--against BASELINE] [-o FILE]: a run for
// other tools (written atomically). The JSON form is lossless enough for `gpubench import` on
// another machine (results/exchange/exchange.hpp).
#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "harness/cli/export_openmetrics.hpp"
#include "harness/cli/run_json.hpp"
#include "results/exchange/exchange.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"

namespace gpubench::cli {

namespace {

template <typename T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

nlohmann::json telemetry_json(const results::TelemetrySample& t, int64_t suite_run) {
  return {{"suite_run", suite_run},
          {"nvml_index", t.nvml_index},
          {"t_s", t.t_s},
          {"sm_clock_mhz", opt(t.sm_clock_mhz)},
          {"mem_clock_mhz", opt(t.mem_clock_mhz)},
          {"temperature_c", opt(t.temperature_c)},
          {"power_w", opt(t.power_w)},
          {"util_gpu_pct", opt(t.util_gpu_pct)},
          {"util_mem_pct", opt(t.util_mem_pct)},
          {"throttle_reasons", opt(t.throttle_reasons)},
          {"ecc_sbe", opt(t.ecc_sbe)},
          {"ecc_dbe", opt(t.ecc_dbe)},
          {"retired_pages", opt(t.retired_pages)},
          {"pcie_replay_counter", opt(t.pcie_replay_counter)},
          {"power_instant_w", opt(t.power_instant_w)},
          {"remapped_rows", opt(t.remapped_rows)},
          {"remap_pending", opt(t.remap_pending)},
          {"remap_failure", opt(t.remap_failure)}};
}

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
  check_output(ctx, args.output);
  results::Store store = open_store(ctx, results::OpenMode::read_only);
  const int64_t id = store.resolve_run(args.run);
  const results::RunDetail detail = store.get_run(id);
  // Written as it is produced (issue 16): to the file's temp copy, renamed into place at the end.
  stream_output(ctx, args.output, OutputKind::data, [&](std::ostream& out) {
    if (args.format == "openmetrics") {
      write_openmetrics_export(store, id, args.against, out, *ctx.err);
    } else if (args.format == "json") {
      // Everything `gpubench import` needs to rebuild the run elsewhere: every table's rows of the
      // run ("tables", results/exchange/exchange_tables.hpp), telemetry per suite run for other
      // tools.
      JsonWriter w(out);
      write_run_json(w, detail, rows_of(store, id), false,
                     {{"tables", [&](JsonWriter& tw) { results::write_run_tables(store, id, tw); }},
                      {"telemetry", [&](JsonWriter& tw) {
                         tw.begin_array();
                         for (int64_t sr : detail.suite_run_ids) {
                           for (const results::TelemetrySample& t : store.get_telemetry(id, sr)) {
                             tw.value(telemetry_json(t, sr));
                           }
                         }
                         tw.end_array();
                       }}});
      w.finish();
      out << '\n';
    } else {
      write_run_csv(out, detail, rows_of(store, id));
    }
  });
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
