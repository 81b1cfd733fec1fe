// gpubench site -o DIR [SELECTOR]: the static results site (compare/report/site.hpp) of every
// series the selector's runs hold (default: all complete runs), change points found as `history`
// finds them with its default parameters. Pages that did not change are not written again.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "compare/history/series_history.hpp"
#include "compare/report/site.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "util/error.hpp"

namespace gpubench::cli {
namespace {

struct SiteArgs {
  std::string output;
  std::string selector = "all";
  int last = 0;
};

void do_site(const SiteArgs& args, Context& ctx) {
  if (args.output.empty()) {
    throw bad_input("site needs -o DIR", "no output directory given",
                    "e.g. gpubench site -o public/");
  }
  compare::HistoryOptions options;
  options.selector = args.selector;
  options.last = args.last;
  results::Store store = open_store(ctx, results::OpenMode::read_only);
  const compare::History h = compare::load_history(store, options);
  const std::vector<std::string> db_files = database_files(ctx);
  const compare::SiteSummary s =
      compare::write_site(args.output, h, store.list_runs(),
                          std::vector<std::filesystem::path>(db_files.begin(), db_files.end()));
  *ctx.out << "site " << args.output << ": " << h.runs.size() << " runs, " << h.series.size()
           << " series; " << s.pages_written << " pages written, " << s.pages_unchanged
           << " unchanged\n";
}

}  // namespace

void add_site_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<SiteArgs>();
  CLI::App* cmd = app.add_subcommand(
      "site", "write a static results site (HTML/SVG/JSON, works from file://) with history");
  cmd->add_option("-o,--output", args->output, "directory of the site")->required();
  cmd->add_option("selector", args->selector, "runs: all, tag:K=V, host:NAME, gpu:MODEL")
      ->capture_default_str();
  cmd->add_option("--last", args->last, "the newest N runs (0: all)")->capture_default_str();
  cmd->callback([args, &ctx] { do_site(*args, ctx); });
}

}  // namespace gpubench::cli
