// How the `gpubench` CLI is put together: one subcommand per file (harness/cmd_<name>.cpp), each
// exposing
//     void add_<name>_command(CLI::App& app, Context& ctx);
// which adds its subcommand to `app` and sets a callback. harness/main.cpp calls every adder,
// parses, and catches gpubench::Error once at the top: it prints
//     gpubench: error: <what> (<why>; <what to do>)
// to stderr and exits with the error's code. A callback that succeeds but must report a failed
// check (a regression, an acceptance failure) sets ctx.exit_code = 1.
#pragma once

#include <iosfwd>
#include <string>

namespace CLI {
class App;
}

namespace gpubench::cli {

struct Context {
  // --db PATH (any subcommand) > GPUBENCH_DB > "gpubench.db" in the working directory.
  std::string db_path;
  int exit_code = 0;
  // True when stdout is a terminal and CI is not set: progress and colour allowed.
  bool interactive = false;
  std::ostream* out = nullptr;  // stdout unless a test redirects it
  std::ostream* err = nullptr;  // stderr
};

}  // namespace gpubench::cli
