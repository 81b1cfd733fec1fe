// "Did you mean" for a refused command line (issue 26), against an app built from the real
// command adders, so commands added later are suggested without a list kept in the suggester.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include "harness/cli/cli_suggest.hpp"
#include "harness/cli/command.hpp"

namespace gpubench::cli {
namespace {

std::string suggest(std::vector<std::string> args) {
  Context ctx;
  CLI::App app{"test", "gpubench"};
  app.add_option("--db", ctx.db_path);
  for (Adder add : {add_run_command, add_show_command, add_compare_command, add_baseline_command,
                    add_report_command, add_accept_command}) {
    add(app, ctx);
  }
  args.insert(args.begin(), "gpubench");
  return command_line_suggestion(app, args);
}

TEST(CliSuggest, MistypedCommand) {
  EXPECT_EQ(suggest({"comapre", "1", "2"}), "did you mean 'gpubench compare'?");
  EXPECT_EQ(suggest({"--db", "x.db", "reprot"}), "did you mean 'gpubench report'?");
  EXPECT_EQ(suggest({"baseline", "lsit"}), "did you mean 'gpubench baseline list'?");
  EXPECT_EQ(suggest({"frobnicate"}), "");
}

TEST(CliSuggest, MistypedOptionOfTheChosenCommand) {
  EXPECT_EQ(suggest({"compare", "1", "2", "--thresold", "0.05"}), "did you mean '--threshold'?");
  EXPECT_EQ(suggest({"compare", "1", "2", "--fail-onn=never"}), "did you mean '--fail-on'?");
  EXPECT_EQ(suggest({"show", "1", "--dbb", "x"}), "did you mean '--db'?");
  EXPECT_EQ(suggest({"compare", "1", "2", "--threshold", "0.05"}), "");
}

// A command registered by an adder the suggester has never heard of is found too.
TEST(CliSuggest, CommandsComeFromTheApp) {
  CLI::App app{"test", "gpubench"};
  app.add_subcommand("fleet", "added elsewhere");
  EXPECT_EQ(command_line_suggestion(app, {"gpubench", "flet"}), "did you mean 'gpubench fleet'?");
}

}  // namespace
}  // namespace gpubench::cli
