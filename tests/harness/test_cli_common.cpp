// Small CLI helpers: tags, lists, tables, sample statistics, profiles.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <sstream>

#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "harness/run/runner.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::cli {
namespace {

TEST(CliCommon, ParsesTags) {
  EXPECT_EQ(parse_tag("driver=560"), std::make_pair(std::string("driver"), std::string("560")));
  EXPECT_EQ(parse_tag("k=a=b"), std::make_pair(std::string("k"), std::string("a=b")));
  EXPECT_EQ(parse_tag("empty="), std::make_pair(std::string("empty"), std::string()));
  EXPECT_THROW(parse_tag("novalue"), Error);
  EXPECT_THROW(parse_tag("=x"), Error);
}

// Defect 13: an empty value (`--expect-gpus "$UNSET"`) silently meant "not given" and turned a
// gate off. Every option of every subcommand that takes a value refuses it with exit 2, before
// the command runs (no database is touched: the --db here does not exist).
TEST(CliCommon, EveryOptionOfEverySubcommandRefusesAnEmptyValue) {
  static constexpr Adder k_adders[] = {
      add_run_command,      add_suites_command, add_runs_command,    add_show_command,
      add_import_command,   add_export_command, add_compare_command, add_accept_command,
      add_baseline_command, add_report_command, add_doctor_command,  add_history_command,
      add_annotate_command, add_site_command,   add_models_command,  add_fleet_command,
      add_peers_command};
  CLI::App app;
  Context listing;
  for (Adder add : k_adders) add(app, listing);
  std::size_t checked = 0;
  // Subcommands of subcommands too (baseline set --note).
  std::function<void(CLI::App*, std::vector<std::string>)> walk =
      [&](CLI::App* cmd, std::vector<std::string> path) {
        path.push_back(cmd->get_name());
        for (CLI::Option* opt : cmd->get_options()) {
          if (!opt->nonpositional() || opt->get_expected_max() == 0)
            continue;  // flags, positionals
          const std::string name = opt->get_name();
          std::vector<std::string> args = {"gpubench"};
          args.insert(args.end(), path.begin(), path.end());
          args.insert(args.end(), {name, "", "--db", "/nonexistent/dir/x.db"});
          std::vector<const char*> argv;
          for (const std::string& a : args) argv.push_back(a.c_str());
          std::ostringstream out, err;
          const int rc = run_cli(static_cast<int>(argv.size()), argv.data(), k_adders, &out, &err);
          const std::string what = join(path, " ") + " " + name + ": " + err.str();
          EXPECT_EQ(rc, 2) << what;
          EXPECT_NE(err.str().find("empty value for " + name), std::string::npos) << what;
          ++checked;
        }
        for (CLI::App* sub : cmd->get_subcommands([](CLI::App*) { return true; })) walk(sub, path);
      };
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) walk(sub, {});
  EXPECT_GT(checked, 60u);  // every subcommand's options, not an empty walk
}

TEST(CliCommon, SplitsLists) {
  EXPECT_EQ(split_list({"a,b", "c", " d , ,e"}),
            (std::vector<std::string>{"a", "b", "c", "d", "e"}));
}

TEST(CliCommon, PrintsAlignedTables) {
  std::ostringstream out;
  print_table(out, {"id", "name"}, {{"1", "alpha"}, {"22", "b"}});
  EXPECT_EQ(out.str(), "id  name\n--  -----\n1   alpha\n22  b\n");
}

TEST(CliCommon, SummarizesSamples) {
  const SampleStats s = summarize({4, 1, 3, 2});
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_NEAR(s.cv, 0.5164, 1e-4);  // stddev 1.29099 / mean 2.5
  EXPECT_DOUBLE_EQ(summarize({5, 1, 3}).median, 3);
  EXPECT_EQ(summarize({}).n, 0u);
  EXPECT_DOUBLE_EQ(summarize({7}).cv, 0);
}

TEST(CliCommon, ChecksFormats) {
  EXPECT_NO_THROW(check_format("json", {"text", "json"}));
  try {
    check_format("xml", {"text", "json"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("text|json"), std::string::npos);
  }
}

TEST(CliCommon, ProfilesHaveDefaults) {
  EXPECT_EQ(harness::profile_defaults("quick").repetitions, 3);
  EXPECT_EQ(harness::profile_defaults("standard").repetitions, 5);
  EXPECT_EQ(harness::profile_defaults("full").repetitions, 10);
  EXPECT_THROW(harness::profile_defaults("fast"), Error);
}

}  // namespace
}  // namespace gpubench::cli

// Cheap suites get more executions (issue 35, Kalibera & Jones: repeat where it is cheap): as
// many as fit in 10 s, at least the profile's, at most 10.
TEST(Executions, CheapSuitesGetMoreExecutions) {
  EXPECT_EQ(gpubench::harness::executions_for_cost(3, 1.0), 10);   // calibration: 10 in 10 s
  EXPECT_EQ(gpubench::harness::executions_for_cost(3, 2.0), 5);    // 5 fit in 10 s
  EXPECT_EQ(gpubench::harness::executions_for_cost(3, 4.0), 3);    // the profile's
  EXPECT_EQ(gpubench::harness::executions_for_cost(3, 600.0), 3);  // a long suite keeps them
  EXPECT_EQ(gpubench::harness::executions_for_cost(3, 0.001), 10);  // never more than 10
  EXPECT_EQ(gpubench::harness::executions_for_cost(10, 0.1), 10);  // full: already 10
  EXPECT_EQ(gpubench::harness::executions_for_cost(5, 0.0), 10);   // an instant suite
}
