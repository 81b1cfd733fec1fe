// gpubench fleet [SELECTOR...]: every GPU of every host on one table per model, outliers named by
// host, UUID and PCI bus id with what sets them apart (issue 24; compare/models/fleet.hpp). Exit 1
// when a GPU is an outlier (for fleet CI), 2 on bad input.
#include <CLI/CLI.hpp>
#include <memory>
#include <sstream>

#include "compare/models/fleet.hpp"
#include "compare/render/render.hpp"
#include "compare/render/render_models.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::cli {
namespace {

struct FleetArgs {
  std::vector<std::string> selectors;
  std::string suite;
  std::string metric;
  double z = 3.5;
  std::string min_effect = "5%";
  std::string format = "text";
  std::string output;
  int last = 1;           // --last N: the newest N runs of each host
  bool all_runs = false;  // --all-runs: every selected run
  bool last_given = false;
};

constexpr double k_max_z = 100;

void do_fleet(const FleetArgs& args, Context& ctx) {
  check_format(args.format, {"text", "json", "html"});
  // inf or 1e308 would turn the outlier gate off without a word. The gate flags GPUs a few
  // robust deviations out; a threshold over 100 is no gate at all.
  if (!(args.z > 0 && args.z <= k_max_z)) {
    throw bad_input("invalid --z " + format_significant(args.z),
                    "it must be a number above 0 and at most " + format_significant(k_max_z),
                    "e.g. --z 3.5 (the default)");
  }
  compare::FleetOptions options;
  options.rule.z_threshold = args.z;
  options.rule.min_effect = compare::read_percent(args.min_effect, "--min-effect");
  options.suite = args.suite;
  options.metric = args.metric;
  if (args.last < 1) {
    throw bad_input("invalid --last " + std::to_string(args.last),
                    "it is the number of newest runs of each host to use, 1 or more",
                    "e.g. --last 3, or --all-runs for every selected run");
  }
  if (args.all_runs && args.last_given) {
    throw bad_input("--last and --all-runs contradict each other",
                    "--last picks the newest runs of each host, --all-runs takes every one",
                    "give one of them");
  }
  options.runs_used = args.all_runs ? "every selected run; --last N: the newest N of each host"
                      : args.last == 1
                          ? "the newest run of each host; --last N, --all-runs for more"
                          : "the newest " + std::to_string(args.last) +
                                " runs of each host; --all-runs for every one";
  check_output(ctx, args.output);
  results::Store store = open_store(ctx, results::OpenMode::read_only);
  // A fleet is what its hosts are now (issue 38): by default the newest run of each host, so an
  // older healthy run does not outvote the newest one where a GPU went slow.
  const compare::Observations obs = compare::load_observations(
      store, compare::newest_per_host(store, compare::select_runs(store, args.selectors),
                                      args.all_runs ? 0 : args.last));
  const compare::Fleet fleet = compare::fleet_scores(obs, options.rule, args.suite, args.metric);
  if (fleet.series.empty()) {
    throw bad_input("no series to compare across GPUs",
                    "a series needs the same benchmark on 3 or more GPUs of one model" +
                        std::string(args.suite.empty() ? "" : " in suite '" + args.suite + "'") +
                        (args.metric.empty() ? "" : " with metric '" + args.metric + "'"),
                    "select runs of GPU servers, or check --suite and --metric");
  }
  std::ostringstream text;
  compare::render_fleet(text, fleet, obs, options, args.format);
  write_output(ctx, args.output, output_kind(args.format), text.str());
  if (!fleet.outliers.empty()) ctx.exit_code = 1;
}

}  // namespace

void add_fleet_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<FleetArgs>();
  CLI::App* cmd = app.add_subcommand(
      "fleet",
      "Every GPU against the others of its model: median, MAD, robust z; exit 1 when "
      "a GPU is an outlier");
  cmd->add_option("selectors", args->selectors,
                  "runs (as for models); default: every complete run. Of these, the newest run "
                  "of each host is used unless --last or --all-runs says otherwise");
  cmd->add_option("--suite", args->suite, "only this suite");
  cmd->add_option("--metric", args->metric, "only this metric (default: each suite's primary)");
  cmd->add_option("--z", args->z, "|robust z| beyond which a worse GPU is an outlier")
      ->capture_default_str();
  cmd->add_option("--min-effect", args->min_effect,
                  "and worse than the model's median by more than this")
      ->capture_default_str();
  cmd->add_option("--last", args->last,
                  "use the newest N of the selected runs of each host (default 1: the newest)")
      ->each([args](const std::string&) { args->last_given = true; });
  cmd->add_flag("--all-runs", args->all_runs,
                "use every selected run (each GPU's median over its runs)");
  cmd->add_option("--format", args->format, "text, json or html")->capture_default_str();
  cmd->add_option("-o,--output", args->output, "file to write (default: stdout)");
  cmd->callback([args, &ctx] { do_fleet(*args, ctx); });
}

}  // namespace gpubench::cli
