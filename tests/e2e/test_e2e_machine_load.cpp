// Issue 38: every suite run keeps how busy the machine was with other work while it ran, and
// `show` prints it. Through the real CLI: `gpubench run` of the FIXTURE suite fixture_fake (it
// sleeps, writes no results) while this test keeps a sibling process spinning.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

TEST(E2eMachineLoad, EachSuiteRunKeepsTheLoadAndShowPrintsIt) {
  Workspace ws;
  // A busy sibling: not the suite, not gpubench; spins until killed.
  const pid_t sibling = ::fork();
  if (sibling == 0) {
    volatile unsigned long x = 0;
    for (;;) x = x + 1;
  }
  ASSERT_GT(sibling, 0);
  const CliResult run = ws.run({"run", "--suite", "fixture_fake", "--executions", "2", ws.db_arg()},
                               {{"FAKE_SLEEP", "1.5"}});
  ::kill(sibling, SIGKILL);
  int status = 0;
  ::waitpid(sibling, &status, 0);
  ASSERT_NE(run.exit_code, 2) << run.out << run.err;  // the suite writes no JSON: it may fail

  const CliResult js = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json suites = json::parse(js.out).at("suites");
  ASSERT_FALSE(suites.empty()) << js.out;
  for (const json& s : suites) {
    const json& load = s.at("machine_load");
    ASSERT_TRUE(load.is_object()) << s;
    EXPECT_GE(load.at("wall_s").get<double>(), 1.4) << load;
    EXPECT_GE(load.at("other_cpus_busy").get<double>(), 0.5) << "the spinning sibling: " << load;
    EXPECT_GE(load.at("loadavg_1m_start").get<double>(), 0.0) << load;
  }
  const CliResult text = ws.run({"show", "latest", ws.db_arg()});
  EXPECT_TRUE(contains(text.out, "machine load: fixture_fake ")) << text.out;
  EXPECT_TRUE(contains(text.out, " CPUs busy elsewhere (load average ")) << text.out;
}

}  // namespace
}  // namespace gpubench::e2e
