// `gpubench run --suite allreduce --launcher "mpirun -np 2 --oversubscribe"` end to end through the
// real CLI, suite and mpirun: stored host results, nodes listed by show, failing launchers as
// failed suites (exit 3), bad --launcher as bad input (exit 2).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/allreduce/mpi_support.hpp"
#include "tests/e2e/e2e_support.hpp"

namespace gpubench::allreduce_test {
namespace {

using e2e::CliResult;
using e2e::contains;
using e2e::Workspace;

const std::string k_launcher = "mpirun -np 2 --oversubscribe";

CliResult run_allreduce(const Workspace& ws, const std::string& launcher,
                        std::vector<std::pair<std::string, std::string>> env = {}) {
  auto all_env = mpi_env();
  all_env.insert(all_env.end(), env.begin(), env.end());
  return ws.run({"run", "--suite", "allreduce", "--profile", "quick", "--executions", "3",
                 "--repetitions", "1", "--launcher", launcher, ws.db_arg()},
                all_env, 180);
}

TEST(E2eAllreduce, LauncherRunStoresHostBusbwAndSkipsNcclWithTheReason) {
  GPUBENCH_REQUIRE_MPI();
  Workspace ws;
  const CliResult r = run_allreduce(ws, k_launcher);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const CliResult show = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const auto j = nlohmann::json::parse(show.out);
  // The stored argv starts with the launcher, in each of the quick profile's 3 executions, and
  // asks for no random interleaving: every rank must run one order (issue 35).
  ASSERT_EQ(j["suites"].size(), 3u);
  for (const auto& s : j["suites"]) {
    EXPECT_NE(s["argv"][0].get<std::string>().find("mpirun"), std::string::npos);
    for (const auto& a : s["argv"]) EXPECT_NE(a, "--benchmark_enable_random_interleaving=true");
  }
  int host_busbw = 0, nccl_skips = 0;
  for (const auto& row : j["results"]) {
    const std::string name = row["benchmark"];
    if (contains(name, "device:host") && row["metric"] == "busbw_GB_per_s") {
      EXPECT_EQ(row["unit"], "GB/s");
      EXPECT_EQ(row["params"]["ranks"], 2);
      EXPECT_GT(row["median"].get<double>(), 0);
      ++host_busbw;
    }
    if (!contains(name, "device:host") && row["status"] == "skipped") {
      EXPECT_FALSE(row["message"].get<std::string>().empty());
      ++nccl_skips;
    }
  }
  EXPECT_EQ(host_busbw, 3 * 18);  // 18 host cases in each of the 3 executions
  EXPECT_GT(nccl_skips, 0);
  // Every node the ranks ran on, gathered through rank 0.
  ASSERT_EQ(j["nodes"].size(), 1u);
  ASSERT_EQ(j["nodes"][0]["nodes"].size(), 1u);
  EXPECT_EQ(j["nodes"][0]["nodes"][0]["ranks"].size(), 2u);
  const CliResult text = ws.run({"show", "latest", ws.db_arg()});
  EXPECT_TRUE(contains(text.out, "nodes of allreduce (3 executions): 2 ranks on 1 node")) << text.out;
}

TEST(E2eAllreduce, MissingLauncherIsAFailedSuite) {
  Workspace ws;
  const CliResult r = run_allreduce(ws, "gpubench-no-such-mpirun -np 2");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "launcher 'gpubench-no-such-mpirun' was not found on PATH")) << r.out;
  const CliResult show = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  const auto j = nlohmann::json::parse(show.out);
  EXPECT_EQ(j["suites"][0]["status"], "failed");
  EXPECT_EQ(j["run"]["status"], "failed");
}

TEST(E2eAllreduce, DyingRankIsAFailedSuiteWithTheLaunchersStderr) {
  GPUBENCH_REQUIRE_MPI();
  Workspace ws;
  const CliResult r = run_allreduce(ws, k_launcher, {{"GPUBENCH_ALLREDUCE_TEST_KILL_RANK", "1"}});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const CliResult show = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  const auto j = nlohmann::json::parse(show.out);
  EXPECT_EQ(j["suites"][0]["status"], "failed");
  EXPECT_TRUE(contains(j["suites"][0]["stderr_tail"].get<std::string>(), "signal 9"))
      << j["suites"][0]["stderr_tail"];
}

TEST(E2eAllreduce, AKilledSuiteStoresTheCasesItFinished) {
  GPUBENCH_REQUIRE_MPI();
  Workspace ws;
  // Rank 1 vanishes in the in-place series; the suite fails, but the out-of-place cases rank 0
  // had written are ingested with their samples.
  const CliResult r = run_allreduce(
      ws, k_launcher, {{"GPUBENCH_ALLREDUCE_TEST_KILL_RANK", "1:mode:in_place/bytes:2048/"}});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const CliResult show = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const auto j = nlohmann::json::parse(show.out);
  EXPECT_EQ(j["suites"][0]["status"], "failed");
  int kept = 0;
  for (const auto& row : j["results"]) {
    const std::string name = row["benchmark"];
    if (contains(name, "mode:out_of_place") && row["metric"] == "busbw_GB_per_s") {
      EXPECT_GT(row["median"].get<double>(), 0) << name;
      ++kept;
    }
  }
  EXPECT_GE(kept, 5) << show.out;
}

TEST(E2eAllreduce, EmptyOrUnbalancedLauncherIsBadInput) {
  Workspace ws;
  for (const char* bad : {"", "mpirun -x 'A=1"}) {
    const CliResult r = run_allreduce(ws, bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    // An empty value is refused like every option's (cli_common refuse_empty_option_values); an
    // unbalanced quote by the launcher's own parser. Both name the option.
    EXPECT_TRUE(contains(r.err, "gpubench: error: --launcher") ||
                contains(r.err, "gpubench: error: empty value for --launcher"))
        << r.err;
  }
}

TEST(E2eAllreduce, SingleProcessSuitesIgnoreTheLauncherWithAWarning) {
  Workspace ws;
  // fixture_ok is a one-process suite: it runs directly, once, even with --launcher.
  const CliResult r = ws.run(
      {"run", "--suite", "fixture_ok", "--launcher", "gpubench-no-such-mpirun -np 2", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "--launcher applies only to multi-rank suites")) << r.err;
  const CliResult show = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  const auto j = nlohmann::json::parse(show.out);
  EXPECT_EQ(j["suites"][0]["status"], "ok");
  EXPECT_FALSE(contains(j["suites"][0]["argv"][0].get<std::string>(), "mpirun"));
}

}  // namespace
}  // namespace gpubench::allreduce_test
