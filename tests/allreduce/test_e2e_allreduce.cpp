// `gpubench run --suite allreduce --launcher "mpirun -np 2 --oversubscribe"` end to end through the
// real CLI, suite and mpirun: stored host results, nodes listed by show, failing launchers as
// failed suites (exit 3), bad --launcher and a suite built without MPI under a launcher as bad
// input (exit 2), the series' scaling note in show.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness/run/discovery.hpp"
#include "tests/allreduce/mpi_support.hpp"
#include "tests/e2e/e2e_support.hpp"

namespace gpubench::allreduce_test {
namespace {

namespace fs = std::filesystem;
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

// Issue 37 (n5): `doctor --launcher` under a real mpirun: two tasks on this one host are one
// node, both tasks named, every check listed.
TEST(E2eAllreduce, DoctorUnderMpirunReportsThisHostOnceWithBothTasks) {
  GPUBENCH_REQUIRE_MPI();
  Workspace ws;
  const CliResult r = ws.run({"doctor", "--format", "json", "--data-dir", ws.root().string(),
                              "--launcher", mpirun_path() + " -np 2 --oversubscribe"},
                             mpi_env(), 120);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["nodes"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["nodes"][0]["ranks"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(j["tasks"], 2);
  EXPECT_TRUE(j["problems"].empty()) << j["problems"];
  EXPECT_GT(j["nodes"][0]["checks"].size(), 20u);
  EXPECT_EQ(r.exit_code, j["summary"]["failing_nodes"].get<int>() > 0 ? 1 : 0);
}

TEST(E2eAllreduce, MissingLauncherIsAFailedSuite) {
  // Built without MPI, the suite is refused before its launcher is looked for
  // (NoMpiBuildUnderALauncherIsRefusedBeforeLaunching).
  GPUBENCH_REQUIRE_MPI();
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

// The suite built without MPI: the bundle's (cmake/Bundle.cmake) in an MPI build, else the build's
// own; empty when there is none.
std::string allreduce_without_mpi() {
  if (!std::string(GPUBENCH_TEST_SINGLE_ALLREDUCE).empty()) return GPUBENCH_TEST_SINGLE_ALLREDUCE;
  if (!GPUBENCH_TEST_HAVE_MPI) return (fs::path(GPUBENCH_BIN_DIR) / "gpubench-allreduce").string();
  return "";
}

// Issue 37 (allreduce N3): --gpubench_info says whether the suite was built with MPI.
TEST(E2eAllreduce, TheSuiteSaysWhetherItWasBuiltWithMpi) {
  const harness::SuiteDescription built = harness::ask_suite_info(
      {"allreduce", fs::path(GPUBENCH_BIN_DIR) / "gpubench-allreduce"}, "quick");
  ASSERT_TRUE(built.answered) << built.reason;
  ASSERT_TRUE(built.mpi.has_value());
  EXPECT_EQ(*built.mpi, static_cast<bool>(GPUBENCH_TEST_HAVE_MPI));
  const std::string single = allreduce_without_mpi();
  if (single.empty()) GTEST_SKIP() << "no build without MPI in this build";
  const harness::SuiteDescription alone = harness::ask_suite_info({"allreduce", single}, "quick");
  ASSERT_TRUE(alone.mpi.has_value()) << alone.reason;
  EXPECT_FALSE(*alone.mpi);
}

// Issue 37 (allreduce N3): a suite built without MPI under --launcher would run one world of one
// rank per task, each driving every GPU; the CLI refuses before starting the launcher, with the
// cause and the fix, exit 2, nothing stored.
TEST(E2eAllreduce, NoMpiBuildUnderALauncherIsRefusedBeforeLaunching) {
  const std::string single = allreduce_without_mpi();
  if (single.empty()) GTEST_SKIP() << "no build without MPI in this build";
  Workspace ws;
  // The build without MPI comes first on GPUBENCH_SUITE_PATH.
  fs::copy_file(single, ws.suites() / "gpubench-allreduce");
  // FIXTURE launcher: records that it was started (it must not be).
  const fs::path launcher = ws.root() / "fixture-mpirun";
  const fs::path started = ws.root() / "launcher-started";
  write_file_atomic(launcher, "#!/bin/sh\n# FIXTURE launcher: records that it ran\ntouch '" +
                                  started.string() + "'\nexit 0\n");
  fs::permissions(launcher, fs::perms::owner_all, fs::perm_options::add);
  const CliResult r = run_allreduce(ws, launcher.string() + " -np 2");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err,
                       "gpubench: error: gpubench-allreduce cannot run under --launcher: "
                       "built without MPI"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "every task the launcher starts would be a world of one rank"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "ci/setup")) << r.err;
  EXPECT_TRUE(contains(r.err, "-DGPUBENCH_MPI=ON")) << r.err;
  EXPECT_FALSE(fs::exists(started)) << "the launcher was started";
  EXPECT_FALSE(fs::exists(ws.db())) << "a database was created";
}

// Issue 37 (m12): `show` prints a series' scaling_note, where the stored summary carries it. The
// suite is the fake one, writing a FIXTURE document whose context holds an allreduce summary of
// two series (made-up figures): one across 2 nodes with the note, one on a node with efficiency.
TEST(E2eAllreduce, ShowPrintsTheScalingNoteOfASeriesAcrossNodes) {
  Workspace ws;
  const std::string note =
      "spans 2 nodes while ranks:2 runs on one node: not a like link, so no scaling efficiency "
      "(compare scope:inter_node, or this series across runs)";
  const nlohmann::json summary = {{"series",
                                   {{{"series", "allreduce/dtype:fp32/mode:in_place/ranks:16"},
                                     {"peak_busbw_GB_per_s", 40.0},
                                     {"peak_bytes", 268435456},
                                     {"knee_bytes", 67108864},
                                     {"scaling_efficiency_vs_2_ranks", nullptr},
                                     {"nodes", 2},
                                     {"scaling_note", note}},
                                    {{"series", "allreduce/dtype:fp32/mode:in_place/ranks:8"},
                                     {"peak_busbw_GB_per_s", 400.0},
                                     {"peak_bytes", 268435456},
                                     {"knee_bytes", 16777216},
                                     {"scaling_efficiency_vs_2_ranks", 0.95},
                                     {"nodes", 1}}}},
                                  {"slow_ranks", nlohmann::json::array()}};
  const nlohmann::json doc = {
      {"context",
       {{"date", "2026-12-02T16:00:00+00:00"},
        {"host_name", "fixture-host"},
        {"gpubench.suite", "fixture_fake"},
        {"gpubench.allreduce.summary", summary.dump()},
        {"note", "FIXTURE: made-up figures"}}},
      {"benchmarks",
       {e2e::iteration_entry({.name = "fixture_fake/case", .real_time = 100, .cpu_time = 100})}}};
  const fs::path json = ws.root() / "fake.json";
  write_file_atomic(json, doc.dump());
  const CliResult r = ws.run({"run", "--suite", "fixture_fake", "--executions", "2", ws.db_arg()},
                             {{"FAKE_JSON", json.string()}});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const CliResult text = ws.run({"show", "latest", ws.db_arg()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out,
                       "execution 1 of 2: allreduce/dtype:fp32/mode:in_place/ranks:16: "
                       "peak busbw 40.00 GB/s at 268435456 B, 90% of it from 67108864 B; " +
                           note))
      << text.out;
  EXPECT_TRUE(contains(text.out, "execution 2 of 2: allreduce/dtype:fp32/mode:in_place/ranks:16"))
      << text.out;
  EXPECT_TRUE(contains(text.out,
                       "ranks:8: peak busbw 400.0 GB/s at 268435456 B, 90% of it from "
                       "16777216 B, scaling efficiency vs 2 ranks 0.950\n"))
      << text.out;
  const CliResult js = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const auto j = nlohmann::json::parse(js.out);
  ASSERT_EQ(j["nodes"].size(), 1u) << js.out;
  EXPECT_EQ(j["nodes"][0]["summary"]["series"][0]["scaling_note"], note);
}

}  // namespace
}  // namespace gpubench::allreduce_test
