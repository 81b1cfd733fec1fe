// gpubench models [SELECTOR...]: one row per GPU model and server configuration for a buying
// decision (issue 24; compare/models/models.hpp). Read-only on the database; exit 2 on bad input.
#include <CLI/CLI.hpp>
#include <memory>
#include <sstream>

#include "compare/models/fleet.hpp"
#include "compare/models/models.hpp"
#include "compare/render/render.hpp"
#include "compare/render/render_models.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::cli {
namespace {

struct ModelsArgs {
  std::vector<std::string> selectors;
  std::string prices;
  std::string weights;
  std::string power = "measured";
  std::string reference;
  std::string format = "text";
  std::string output;
};

void do_models(const ModelsArgs& args, Context& ctx) {
  check_format(args.format, {"text", "md", "html", "json", "csv"});
  compare::ModelsOptions options;
  if (args.power == "measured") {
    options.power = compare::PowerSource::measured;
  } else if (args.power == "tdp") {
    options.power = compare::PowerSource::tdp;
  } else {
    throw bad_input("unknown --power '" + args.power + "'", "",
                    "use measured (telemetry during each suite) or tdp (the power limit, or the "
                    "prices file's power_w)");
  }
  if (!args.prices.empty())
    options.prices = compare::parse_prices(read_file(args.prices), args.prices);
  if (!args.weights.empty()) {
    options.weights = compare::parse_weights(read_file(args.weights), args.weights);
  }
  options.reference = args.reference;
  compare::check_output_path(args.output);
  results::Store store = open_store(ctx, results::OpenMode::read_only);
  const compare::Observations obs =
      compare::load_observations(store, compare::select_runs(store, args.selectors));
  const compare::ModelsTable table = compare::build_models(obs, options);
  std::ostringstream text;
  compare::render_models(text, table, args.format);
  compare::write_output(args.output, text.str(), *ctx.out);
}

}  // namespace

void add_models_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ModelsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "models",
      "One row per GPU model for a buying decision: pooled figures with 99% intervals, "
      "per watt, per price, against a reference model");
  cmd->add_option("selectors", args->selectors,
                  "runs to pool (id, latest, baseline:NAME, tag:K[=V], host:NAME, gpu:MODEL; "
                  "group selectors take every complete run they match); default: every complete "
                  "run");
  cmd->add_option(
      "--prices", args->prices,
      "CSV file 'model,price,currency[,power_w]' per line (model: part of the GPU name)");
  cmd->add_option(
      "--weights", args->weights,
      "file 'PATTERN WEIGHT' per line (suite name or benchmark glob): a composite score");
  cmd->add_option("--power", args->power, "measured (telemetry) or tdp")->capture_default_str();
  cmd->add_option("--reference", args->reference,
                  "part of a model's name: a ratio column against it");
  cmd->add_option("--format", args->format, "text, md, html, json or csv")->capture_default_str();
  cmd->add_option("-o,--output", args->output, "file to write (default: stdout)");
  cmd->callback([args, &ctx] { do_models(*args, ctx); });
}

}  // namespace gpubench::cli
