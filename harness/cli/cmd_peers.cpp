// gpubench peers [RUN]: a gpubench run's figures lined up with the imported outputs of the tools
// people already trust (nccl-tests, nvbandwidth, bandwidthTest, PyTorch...) on the same host and
// GPUs (issue 40; compare/peers/lineup.hpp). Read-only; exit 0 whatever the ratios (a peer is a
// yardstick, not a verdict), 2 on bad input.
#include <CLI/CLI.hpp>
#include <memory>
#include <sstream>

#include "compare/peers/lineup.hpp"
#include "compare/render/render_peers.hpp"
#include "compare/selection.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "util/error.hpp"
#include "util/text_width.hpp"

namespace gpubench::cli {
namespace {

struct PeersArgs {
  std::string run = "latest";
  std::string format = "text";
  std::string output;
};

void do_peers(const PeersArgs& args, Context& ctx) {
  check_format(args.format, {"text", "json"});
  check_output(ctx, args.output);
  results::Store store = open_store(ctx, results::OpenMode::read_only);
  const std::vector<int64_t> ids = compare::resolve_selection(store, args.run);
  const compare::PeerLineup lineup = compare::peer_lineup(store, ids.front());
  std::ostringstream text;
  if (args.format == "json") {
    text << compare::peers_json(lineup).dump(2) << '\n';
  } else {
    compare::render_peers_text(lineup, text);
  }
  // Text fits the output width (COLUMNS; --wide: no limit), as every table of the CLI.
  write_output(ctx, args.output, output_kind(args.format),
               args.format == "json" ? text.str() : wrap_lines(text.str(), output_width()));
}

}  // namespace

void add_peers_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<PeersArgs>();
  CLI::App* cmd = app.add_subcommand(
      "peers",
      "A run's figures beside imported peer tools' (nccl-tests, nvbandwidth, bandwidthTest, "
      "PyTorch) on the same host and GPUs: ratio and interval per quantity");
  cmd->add_option("run", args->run, "a gpubench run: id, latest, latest~N, or UUID (prefix)")
      ->capture_default_str();
  cmd->add_option("--format", args->format, "text or json")->capture_default_str();
  cmd->add_option("-o,--output", args->output, "file to write (default: stdout)");
  cmd->callback([args, &ctx] { do_peers(*args, ctx); });
}

}  // namespace gpubench::cli
