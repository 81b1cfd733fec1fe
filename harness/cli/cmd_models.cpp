// gpubench models [SELECTOR...]: one row per GPU model and server configuration for a buying
// decision (issue 24; compare/models/models.hpp). Read-only on the database; exit 2 on bad input.
#include <CLI/CLI.hpp>
#include <algorithm>
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
#include "util/text_safety.hpp"

namespace gpubench::cli {
namespace {

struct ModelsArgs {
  std::vector<std::string> selectors;
  std::string prices;
  std::string weights;
  std::string power = "measured";
  std::string reference;
  std::string currency;            // --currency: convert every price into it
  std::vector<std::string> rates;  // --rate CUR=X: X units of --currency per 1 CUR
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
                    "use measured (each sample's power_w, else telemetry during each suite) or "
                    "tdp (the power limit, or the prices file's power_w)");
  }
  // Bounded reads (issue 43: --prices /dev/zero never returned).
  if (!args.prices.empty()) {
    options.prices = compare::parse_prices(
        read_file_at_most(args.prices, k_max_input_file_bytes, "--prices"), args.prices);
  }
  if (!args.rates.empty() && args.currency.empty()) {
    throw bad_input("--rate without --currency",
                    "a rate converts into the currency --currency names",
                    "e.g. --currency USD --rate EUR=1.08");
  }
  compare::CurrencyRates rates;
  for (const std::string& r : args.rates) rates.push_back(compare::parse_rate(r));
  if (!args.currency.empty() && args.prices.empty()) {
    throw bad_input("--currency without --prices", "there are no prices to convert",
                    "give --prices FILE (model,price,currency[,power_w] per line)");
  }
  if (!args.prices.empty())
    compare::convert_prices(options.prices, args.currency, rates, args.prices);
  if (!args.weights.empty()) {
    options.weights = compare::parse_weights(
        read_file_at_most(args.weights, k_max_input_file_bytes, "--weights"), args.weights);
  }
  options.reference = args.reference;
  check_output(ctx, args.output);
  results::Store store = open_store(ctx, results::OpenMode::read_only);
  const compare::Observations obs =
      compare::load_observations(store, compare::select_runs(store, args.selectors));
  const compare::ModelsTable table = compare::build_models(obs, options);
  // A price no GPU model matched is most likely a typo ("H100" quoted, "A100" not in the runs):
  // said, not silently ignored (issue 43).
  for (const compare::PriceEntry& p : table.options.prices) {
    const bool used = std::any_of(table.rows.begin(), table.rows.end(), [&](const auto& r) {
      return r.price != nullptr && r.price->line == p.line;
    });
    if (!used) {
      *ctx.err << visible_text("gpubench: warning: " + args.prices + ":" + std::to_string(p.line) +
                               ": model '" + p.model +
                               "' matches no GPU model of the selected runs; its price is "
                               "not used\n");
    }
  }
  // A weights pattern no model matched (a typo, a suite not run): the composite is over the
  // others, renormalised, and the output says so; said here too, once.
  for (const compare::WeightEntry& w : table.unmatched_weights) {
    *ctx.err << visible_text("gpubench: warning: " + args.weights + ":" + std::to_string(w.line) +
                             ": pattern '" + w.pattern +
                             "' matches no benchmark of the selected runs; the composite is "
                             "renormalised over the other patterns\n");
  }
  std::ostringstream text;
  compare::render_models(text, table, args.format);
  write_output(ctx, args.output, output_kind(args.format), text.str());
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
      "CSV file 'model,price,currency[,power_w]' per line (model: part of the GPU name; one "
      "currency, or --currency with --rate)");
  cmd->add_option(
      "--weights", args->weights,
      "file 'PATTERN WEIGHT' per line (suite name or benchmark glob): a composite score");
  cmd->add_option("--power", args->power,
                  "measured (the samples' power_w counters, else NVML telemetry) or tdp")
      ->capture_default_str();
  cmd->add_option("--reference", args->reference,
                  "part of a model's name: ratios against it and the purchase answer (each "
                  "model per price, in speed and per W, with 99% intervals)");
  cmd->add_option("--currency", args->currency,
                  "convert every price into this currency (prices in several currencies are "
                  "refused without it)");
  cmd->add_option("--rate", args->rates,
                  "CUR=X: 1 CUR is X of --currency (e.g. --currency USD --rate EUR=1.08); "
                  "repeat for each other currency");
  cmd->add_option("--format", args->format, "text, md, html, json or csv")->capture_default_str();
  cmd->add_option("-o,--output", args->output, "file to write (default: stdout)");
  cmd->callback([args, &ctx] { do_models(*args, ctx); });
}

}  // namespace gpubench::cli
