// gpubench baseline set NAME RUN | list | delete NAME: named pointers to runs. Deleting a
// baseline never deletes its run.
#include <CLI/CLI.hpp>
#include <memory>
#include <ostream>

#include "compare/selection.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"

namespace gpubench::cli {
namespace {

struct BaselineArgs {
  std::string name;
  std::string run;
  std::string note;
};

void do_set(const BaselineArgs& args, Context& ctx) {
  check_note(args.note);
  results::Store store = open_store(ctx, results::OpenMode::read_write);
  int64_t run_id = store.resolve_run(args.run);
  int64_t previous = compare::set_baseline(store, args.name, run_id, args.note);
  *ctx.out << "baseline " << args.name << " -> run " << run_id;
  if (previous != 0 && previous != run_id) *ctx.out << " (was run " << previous << ")";
  *ctx.out << '\n';
}

void do_list(Context& ctx) {
  results::Store store = open_store(ctx, results::OpenMode::read_only);
  std::vector<std::vector<std::string>> rows;
  for (const compare::BaselineRow& b : compare::list_baselines(store)) {
    rows.push_back(
        {b.name, std::to_string(b.run_id), b.run_uuid, b.run_started_at, b.created_at, b.note});
  }
  if (rows.empty()) {
    *ctx.out << "no baselines (create one with `gpubench baseline set NAME RUN`)\n";
    return;
  }
  // Narrow: the uuid, then when it was set, are left out (a line says so) rather than cut
  // (issue 39); the name stays whole and first for `grep "^nightly "`.
  TableFit fit;
  fit.first_column = FirstColumn::keep_whole;
  fit.may_drop = {2, 4};
  print_table(*ctx.out, {"name", "run", "uuid", "run started", "set at", "note"}, rows, fit);
}

void do_delete(const BaselineArgs& args, Context& ctx) {
  results::Store store = open_store(ctx, results::OpenMode::read_write);
  int64_t run_id = compare::baseline_run(store, args.name);
  compare::delete_baseline(store, args.name);
  *ctx.out << "deleted baseline " << args.name << " (run " << run_id << " is kept)\n";
}

}  // namespace

void add_baseline_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<BaselineArgs>();
  CLI::App* cmd =
      app.add_subcommand("baseline", "Named baselines: set NAME RUN | list | delete NAME");
  cmd->require_subcommand(1);
  CLI::App* set = cmd->add_subcommand("set", "Point NAME at RUN (moves an existing NAME)");
  set->add_option("name", args->name, "baseline name")->required();
  set->add_option("run", args->run, "run id, latest, latest~N, or UUID (prefix)")->required();
  set->add_option("--note", args->note, "why this run is the baseline");
  set->callback([args, &ctx] { do_set(*args, ctx); });
  CLI::App* list = cmd->add_subcommand("list", "List baselines");
  list->callback([&ctx] { do_list(ctx); });
  CLI::App* del = cmd->add_subcommand("delete", "Delete a baseline (never its run)");
  del->add_option("name", args->name, "baseline name")->required();
  del->callback([args, &ctx] { do_delete(*args, ctx); });
}

}  // namespace gpubench::cli
