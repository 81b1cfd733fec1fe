// gpubench annotate RUN "text": a known change ("driver upgrade", "BIOS") written next to a run;
// history, its HTML and the site show it. Exported and merged with the run.
#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "results/annotations.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::cli {
namespace {

struct AnnotateArgs {
  std::string run;
  std::string text;
};

void do_annotate(const AnnotateArgs& args, Context& ctx) {
  if (trim(args.text).empty()) {
    throw bad_input("the annotation text is empty", "nothing to store",
                    "e.g. gpubench annotate latest \"driver upgrade\"");
  }
  check_note(args.text, "the annotation");
  results::Store store = open_store(ctx, results::OpenMode::read_write);
  const int64_t run_id = store.resolve_run(args.run);
  results::add_annotation(store.database(), run_id, std::string(trim(args.text)));
  write_output(
      ctx, "", OutputKind::for_people,
      "run " + std::to_string(run_id) + ": annotated \"" + std::string(trim(args.text)) + "\"\n");
}

}  // namespace

void add_annotate_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<AnnotateArgs>();
  CLI::App* cmd = app.add_subcommand("annotate", "write a known change next to a run");
  cmd->add_option("run", args->run, "run id, latest, latest~N, or UUID (prefix)")->required();
  cmd->add_option("text", args->text, "what changed (\"driver upgrade\", \"BIOS\")")->required();
  cmd->callback([args, &ctx] { do_annotate(*args, ctx); });
}

}  // namespace gpubench::cli
