// How the `gpubench` CLI is put together: one subcommand per file (harness/cli/cmd_<name>.cpp),
// each exposing
//     void add_<name>_command(CLI::App& app, Context& ctx);
// which adds its subcommand to `app` and sets a callback. harness/main.cpp calls every adder,
// parses, and catches gpubench::Error once at the top: it prints
//     gpubench: error: <what> (<why>; <what to do>)
// to stderr and exits with the error's code. A callback that succeeds but must report a failed
// check (a regression, an acceptance failure) sets ctx.exit_code = 1.
#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpubench::cli {

struct Context {
  // --db PATH (any subcommand) > GPUBENCH_DB > "gpubench.db" in the working directory.
  std::string db_path;
  bool db_given = false;  // --db was on the command line (even as --db '')
  int exit_code = 0;
  // True when stdout is a terminal and CI is not set: progress and colour allowed.
  bool interactive = false;
  std::ostream* out = nullptr;    // stdout unless a test redirects it
  std::ostream* err = nullptr;    // stderr
  std::vector<std::string> argv;  // the command line as given (recorded with runs)
};

// A subcommand file's entry point (see the top of this file).
using Adder = void (*)(CLI::App& app, Context& ctx);

// The whole CLI: builds the app from `adders`, parses, runs the chosen subcommand, prints errors
// as described above and returns the process exit code. `out`/`err` default to std::cout/cerr.
int run_cli(int argc, const char* const* argv, std::span<const Adder> adders,
            std::ostream* out = nullptr, std::ostream* err = nullptr);

// The subcommands in harness/cli/cmd_<name>.cpp.
void add_run_command(CLI::App& app, Context& ctx);
void add_suites_command(CLI::App& app, Context& ctx);
void add_runs_command(CLI::App& app, Context& ctx);
void add_show_command(CLI::App& app, Context& ctx);
void add_import_command(CLI::App& app, Context& ctx);
void add_export_command(CLI::App& app, Context& ctx);
void add_compare_command(CLI::App& app, Context& ctx);
void add_accept_command(CLI::App& app, Context& ctx);
void add_baseline_command(CLI::App& app, Context& ctx);
void add_report_command(CLI::App& app, Context& ctx);
void add_doctor_command(CLI::App& app, Context& ctx);
// Issue 25: history with change points, annotations of runs.
void add_history_command(CLI::App& app, Context& ctx);
void add_annotate_command(CLI::App& app, Context& ctx);
void add_site_command(CLI::App& app, Context& ctx);
void add_models_command(CLI::App& app, Context& ctx);
void add_fleet_command(CLI::App& app, Context& ctx);
// Issue 40: a run beside the imported outputs of peer tools.
void add_peers_command(CLI::App& app, Context& ctx);

}  // namespace gpubench::cli
