#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <iostream>

#include "gpubench_version.hpp"
#include "harness/cli/bundle_info.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/cli_suggest.hpp"
#include "harness/cli/command.hpp"
#include "util/error.hpp"
#include "util/text_safety.hpp"
#include "util/text_width.hpp"

namespace gpubench::cli {

namespace {
std::string version_text() {
  std::string v = std::string("gpubench ") + build_info::k_version + " (git " +
                  std::string(build_info::k_git_sha).substr(0, 12);
  if (std::string(build_info::k_git_dirty) == "true") v += ", dirty";
  if (const auto bundle = running_bundle_name()) v += ", bundle " + *bundle;
  return v + ")";
}

void print_error(std::ostream& err, const std::string& message) {
  // Messages quote what was typed or stored: shown with its control characters visible.
  err << "gpubench: error: " << visible_text(message) << '\n';
}

int parse_and_run(CLI::App& app, int argc, const char* const* argv, Context& ctx);
}  // namespace

int run_cli(int argc, const char* const* argv, std::span<const Adder> adders, std::ostream* out,
            std::ostream* err) {
  Context ctx;
  ctx.out = out ? out : &std::cout;
  ctx.err = err ? err : &std::cerr;
  const char* ci = std::getenv("CI");
  for (int i = 0; i < argc; ++i) ctx.argv.emplace_back(argv[i]);
  ctx.interactive = isatty(STDOUT_FILENO) == 1 && !(ci && *ci);
  // Text output fits COLUMNS / the terminal / 100 columns; --wide lifts the limit (issue 26).
  set_output_width(width_from_environment(false));

  CLI::App app{"gpubench: measures what a GPU server can do, keeps every result, says what changed",
               "gpubench"};
  app.require_subcommand(1, 1);
  app.fallthrough();  // --db works before or after the subcommand
  app.set_version_flag("--version", version_text());
  app.add_option_function<std::string>(
         "--db",
         [&ctx](const std::string& path) {
           ctx.db_path = path;
           ctx.db_given = true;
         },
         "results database (default: $GPUBENCH_DB, else gpubench.db in the working "
         "directory)")
      ->trigger_on_parse();
  app.add_flag_callback(
         "--wide", [] { set_output_width(0); },
         "text output at full width: every name and reason whole, no wrapping (default: "
         "$COLUMNS, else the terminal's width, else 100 columns)")
      ->trigger_on_parse();
  app.footer(
      "Exit codes: 0 ok, 1 regression or acceptance failure, 2 usage or bad input, "
      "3 infrastructure failure (a suite failed, the database is unusable), 129/130/143 "
      "interrupted (SIGHUP/SIGINT/SIGTERM).");
  for (Adder add : adders) add(app, ctx);
  refuse_empty_option_values(app);

  const int rc = parse_and_run(app, argc, argv, ctx);
  // Output that did not reach its file (a full disk, /dev/full, a closed pipe) is a failure,
  // never a silent success. stdout's final fflush/close are checked in main().
  errno = 0;
  ctx.out->flush();
  if (!*ctx.out) {
    print_error(*ctx.err, format_error_message(
                              "cannot write the output",
                              errno != 0 ? errno_text(errno) : std::string("the write failed"),
                              "check the disk or file the output goes to (full? closed?)"));
    // A verdict (0 or 1) whose output was lost is not a verdict: the write failure decides.
    // Usage and infrastructure errors (2, 3) keep their code; they have said why already.
    return rc >= static_cast<int>(ExitCode::bad_input) ? rc
                                                       : static_cast<int>(ExitCode::infrastructure);
  }
  return rc;
}

namespace {
int parse_and_run(CLI::App& app, int argc, const char* const* argv, Context& ctx) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e, *ctx.out, *ctx.err);
  } catch (const CLI::ParseError& e) {
    // A typo gets the nearest registered command or option (issue 26).
    const std::string suggestion = command_line_suggestion(app, ctx.argv);
    print_error(*ctx.err,
                format_error_message("bad command line", e.what(),
                                     (suggestion.empty() ? std::string() : suggestion + " ") +
                                         "see 'gpubench --help' or 'gpubench <command> --help'"));
    return static_cast<int>(ExitCode::bad_input);
  } catch (const Error& e) {
    print_error(*ctx.err, e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    print_error(*ctx.err, format_error_message("internal error", e.what(),
                                               "please report this with the command line"));
    return static_cast<int>(ExitCode::infrastructure);
  }
  return ctx.exit_code;
}
}  // namespace

}  // namespace gpubench::cli
