// gpubench-allreduce under mpirun with two real ranks (host reference only; no GPU here):
// bootstrap, gathering every rank's identity through rank 0, the host allreduce itself, one JSON
// file written by rank 0 alone, a failure on one rank failing that case on both ranks while the
// suite goes on (the rank-agreement protocol), a rank killed mid-run ending the job instead of
// hanging it, with the cases finished before the kill kept in the JSON file, and the runs refused
// before any case: the bundle's build without MPI under mpirun, random interleaving.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "harness/process/process.hpp"
#include "tests/allreduce/mpi_support.hpp"
#include "util/fs.hpp"

namespace gpubench::allreduce_test {
namespace {

namespace fs = std::filesystem;

struct MpiRun {
  harness::ProcessResult result;
  std::string json_text;
  std::string console;
};

// The quick host sweep, one repetition, on `ranks` ranks.
MpiRun run_suite(const fs::path& dir, int ranks,
                 std::vector<std::pair<std::string, std::string>> env = {},
                 double timeout_s = 120) {
  harness::ProcessSpec spec;
  const fs::path out = dir / "out.json";
  spec.argv = {mpirun_path(),
               "-np",
               std::to_string(ranks),
               "--oversubscribe",
               (fs::path(GPUBENCH_BIN_DIR) / "gpubench-allreduce").string(),
               "--benchmark_out=" + out.string(),
               "--benchmark_out_format=json",
               "--benchmark_repetitions=1",
               "--benchmark_filter=device:host"};
  spec.env = mpi_env();
  spec.env.emplace_back("GPUBENCH_PROFILE", "quick");
  spec.env.insert(spec.env.end(), env.begin(), env.end());
  spec.stdout_path = dir / "console.txt";
  spec.stderr_tail_bytes = 1 << 16;
  spec.timeout_s = timeout_s;
  MpiRun r;
  r.result = harness::run_process(spec);
  std::error_code ec;
  if (fs::exists(out, ec)) r.json_text = read_file(out);
  r.console = read_file(spec.stdout_path);
  return r;
}

bool errored(const nlohmann::json& b) {
  const auto it = b.find("error_occurred");
  return it != b.end() && it->is_boolean() && it->get<bool>();
}
std::string message_of(const nlohmann::json& b) {
  const auto it = b.find("error_message");
  return it != b.end() && it->is_string() ? it->get<std::string>() : std::string();
}

TEST(MpiSuite, TwoRanksGatherAndMeasureTheHostAllreduce) {
  GPUBENCH_REQUIRE_MPI();
  TempDir dir("gpubench-mpi");
  const MpiRun r = run_suite(dir.path(), 2);
  ASSERT_TRUE(r.result.succeeded()) << r.result.stderr_tail;
  const auto doc = nlohmann::json::parse(r.json_text);
  // Bootstrap and gathering: rank 0's context lists both ranks with their host and local rank.
  const auto ranks = nlohmann::json::parse(doc["context"]["gpubench.ranks"].get<std::string>());
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0]["rank"], 0);
  EXPECT_EQ(ranks[1]["rank"], 1);
  EXPECT_EQ(ranks[1]["local_rank"], 1);
  EXPECT_EQ(ranks[0]["host"], ranks[1]["host"]);
  EXPECT_NE(ranks[0]["mpi"].get<std::string>().find("MPI"), std::string::npos);
  EXPECT_EQ(ranks[1]["env"]["GPUBENCH_PROFILE"], "quick");
  // The host allreduce: every size of both placements, checked and measured on 2 ranks.
  int measured = 0;
  for (const auto& b : doc["benchmarks"]) {
    const std::string name = b["name"];
    ASSERT_NE(name.find("/ranks:2/device:host"), std::string::npos) << name;
    ASSERT_FALSE(b.value("error_occurred", false)) << name << ": " << b.value("error_message", "");
    ASSERT_GT(b["busbw_GB_per_s"].get<double>(), 0) << name;
    // ranks:2: busbw = algbw x 2(n-1)/n = algbw.
    EXPECT_DOUBLE_EQ(b["busbw_GB_per_s"].get<double>(), b["algbw_GB_per_s"].get<double>());
    ++measured;
  }
  EXPECT_EQ(measured, 2 * 9);  // in place and out of place, 8 B .. 512 KiB by x4
  const auto summary =
      nlohmann::json::parse(doc["context"]["gpubench.allreduce.summary"].get<std::string>());
  ASSERT_EQ(summary["series"].size(), 2u);
  EXPECT_GT(summary["series"][0]["peak_busbw_GB_per_s"].get<double>(), 0);
  EXPECT_TRUE(summary["series"][0]["knee_bytes"].is_number());
  // Only rank 0 printed: one console report, not two.
  const auto first = r.console.find("device:host");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(r.console.find("Run on ("), r.console.rfind("Run on (")) << r.console;
}

TEST(MpiSuite, AFailureOnOneRankFailsTheCaseOnBothAndTheSuiteGoesOn) {
  GPUBENCH_REQUIRE_MPI();
  TempDir dir("gpubench-mpi-inject");
  // Rank 1 fails one case before its first MPI_Allreduce (as an out-of-memory would); rank 0 is
  // ready. Without agreement rank 0 would wait in that case's MPI_Allreduce forever.
  const std::string target = "mode:out_of_place/bytes:2048/ranks:2/device:host";
  const auto start = std::chrono::steady_clock::now();
  const MpiRun r =
      run_suite(dir.path(), 2, {{"GPUBENCH_ALLREDUCE_INJECT_FAILURE", target + ":1"}}, 60);
  const double took_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.result.timed_out) << "the suite hung after one rank failed a case";
  ASSERT_TRUE(r.result.succeeded()) << r.result.stderr_tail;
  EXPECT_LT(took_s, 30.0);
  const auto doc = nlohmann::json::parse(r.json_text);
  int failed = 0, measured_after = 0, measured = 0;
  bool after = false;
  for (const auto& b : doc["benchmarks"]) {
    const std::string name = b["name"];
    if (name.find(target) != std::string::npos) {
      // Rank 0 (which was fine) failed the case with rank 1's reason.
      EXPECT_TRUE(errored(b)) << name;
      EXPECT_NE(message_of(b).find("rank 1: injected failure"), std::string::npos) << message_of(b);
      ++failed;
      after = true;
      continue;
    }
    ASSERT_FALSE(errored(b)) << name << ": " << message_of(b);
    EXPECT_GT(b["busbw_GB_per_s"].get<double>(), 0) << name;
    ++measured;
    if (after) ++measured_after;
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(measured, 2 * 9 - 1);  // every other case ran and was measured
  EXPECT_GE(measured_after, 9);    // ... including all later ones (the in-place series too)
  // Both ranks left the case, each saying so on stderr.
  EXPECT_NE(r.result.stderr_tail.find("rank 0 of 2: allreduce/allreduce/dtype:fp32/" + target),
            std::string::npos)
      << r.result.stderr_tail;
  EXPECT_NE(r.result.stderr_tail.find("rank 1 of 2: allreduce/allreduce/dtype:fp32/" + target),
            std::string::npos)
      << r.result.stderr_tail;
}

TEST(MpiSuite, AMalformedInjectionFailsEveryHostCaseWithTheUsage) {
  GPUBENCH_REQUIRE_MPI();
  TempDir dir("gpubench-mpi-inject-bad");
  const MpiRun r =
      run_suite(dir.path(), 2, {{"GPUBENCH_ALLREDUCE_INJECT_FAILURE", "no-rank-given"}}, 60);
  ASSERT_TRUE(r.result.succeeded()) << r.result.stderr_tail;
  const auto doc = nlohmann::json::parse(r.json_text);
  ASSERT_EQ(doc["benchmarks"].size(), 18u);
  for (const auto& b : doc["benchmarks"]) {
    EXPECT_NE(message_of(b).find("must be <case regex>:<rank>"), std::string::npos)
        << message_of(b);
  }
}

TEST(MpiSuite, ABuildWithoutMpiUnderMpirunRefusesOnEveryTask) {
  GPUBENCH_REQUIRE_MPI();
  const std::string single = GPUBENCH_TEST_SINGLE_ALLREDUCE;
  if (single.empty()) GTEST_SKIP() << "no build without MPI (the bundle's) in this build";
  TempDir dir("gpubench-mpi-no-mpi");
  harness::ProcessSpec spec;
  const fs::path out = dir.path() / "out.json";
  spec.argv = {mpirun_path(),
               "-np",
               "2",
               "--oversubscribe",
               single,
               "--benchmark_out=" + out.string(),
               "--benchmark_out_format=json"};
  spec.env = mpi_env();
  spec.env.emplace_back("GPUBENCH_PROFILE", "quick");
  spec.stdout_path = dir.path() / "console.txt";
  spec.stderr_tail_bytes = 1 << 16;
  spec.timeout_s = 60;
  const auto r = harness::run_process(spec);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.succeeded());
  // Two one-rank worlds, each refusing with the cause and the fix, and no result file.
  const std::string& err = r.stderr_tail;
  const std::string why =
      "gpubench-allreduce: error: rank 0 of 1: gpubench-allreduce was built without MPI, but the "
      "launcher started 2 tasks (OMPI_COMM_WORLD_SIZE=2)";
  const auto first = err.find(why);
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_NE(err.find(why, first + 1), std::string::npos) << "only one task refused: " << err;
  EXPECT_NE(err.find("ci/setup"), std::string::npos) << err;
  std::error_code ec;
  EXPECT_FALSE(fs::exists(out, ec));
}

TEST(MpiSuite, AnMpiBuildStartedAloneByALauncherItCannotReadSaysHowToFix) {
  GPUBENCH_REQUIRE_MPI();
  // srun --mpi=pmi2 (or MPICH's Hydra) says PMI_SIZE=2, but this Open MPI build came up as a
  // singleton: two such tasks would each measure alone.
  TempDir dir("gpubench-mpi-singleton");
  harness::ProcessSpec spec;
  spec.argv = {(fs::path(GPUBENCH_BIN_DIR) / "gpubench-allreduce").string(),
               "--benchmark_filter=device:host"};
  spec.env = {{"PMI_SIZE", "2"}};
  spec.stdout_path = dir.path() / "console.txt";
  spec.stderr_tail_bytes = 1 << 16;
  spec.timeout_s = 60;
  const auto r = harness::run_process(spec);
  EXPECT_FALSE(r.succeeded());
  EXPECT_NE(r.stderr_tail.find("MPI started this process as a world of 1, but the launcher "
                               "started 2 tasks (PMI_SIZE=2)"),
            std::string::npos)
      << r.stderr_tail;
  EXPECT_NE(r.stderr_tail.find("--mpi=pmix"), std::string::npos) << r.stderr_tail;
}

TEST(MpiSuite, RandomInterleavingIsRefusedUnderALauncher) {
  GPUBENCH_REQUIRE_MPI();
  TempDir dir("gpubench-mpi-interleave");
  harness::ProcessSpec spec;
  spec.argv = {mpirun_path(),
               "-np",
               "2",
               "--oversubscribe",
               (fs::path(GPUBENCH_BIN_DIR) / "gpubench-allreduce").string(),
               "--benchmark_enable_random_interleaving=true",
               "--benchmark_filter=device:host"};
  spec.env = mpi_env();
  spec.stdout_path = dir.path() / "console.txt";
  spec.stderr_tail_bytes = 1 << 16;
  spec.timeout_s = 60;
  const auto r = harness::run_process(spec);
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.succeeded());
  EXPECT_NE(r.stderr_tail.find("shuffles each rank's cases on its own"), std::string::npos)
      << r.stderr_tail;
  EXPECT_EQ(read_file(spec.stdout_path).find("Run on ("), std::string::npos);  // nothing ran
}

TEST(MpiSuite, AKilledRankKeepsTheCasesFinishedBeforeIt) {
  GPUBENCH_REQUIRE_MPI();
  TempDir dir("gpubench-mpi-kill-late");
  // Rank 1 vanishes in the in-place series: the out-of-place cases were finished and written.
  const MpiRun r = run_suite(
      dir.path(), 2, {{"GPUBENCH_ALLREDUCE_TEST_KILL_RANK", "1:mode:in_place/bytes:2048/"}}, 90);
  EXPECT_FALSE(r.result.timed_out) << "the job hung after a rank died";
  EXPECT_FALSE(r.result.succeeded());
  ASSERT_FALSE(r.json_text.empty()) << "a killed suite lost what it had measured";
  const auto doc = nlohmann::json::parse(r.json_text);
  int out_of_place = 0;
  for (const auto& b : doc["benchmarks"]) {
    const std::string name = b["name"];
    EXPECT_EQ(name.find("mode:in_place/bytes:2048/"), std::string::npos) << name;
    if (name.find("mode:out_of_place") != std::string::npos) ++out_of_place;
  }
  // The out-of-place series (9 cases) finished before the kill, and a finished series is written
  // whatever the rewrite throttle says (the file may lag only inside the series under way).
  EXPECT_EQ(out_of_place, 9);
}

TEST(MpiSuite, AKilledRankFailsTheJobWithinTheTimeout) {
  GPUBENCH_REQUIRE_MPI();
  TempDir dir("gpubench-mpi-kill");
  const MpiRun r = run_suite(dir.path(), 2, {{"GPUBENCH_ALLREDUCE_TEST_KILL_RANK", "1"}}, 90);
  EXPECT_FALSE(r.result.timed_out) << "the job hung after a rank died";
  EXPECT_FALSE(r.result.succeeded());
  // Open MPI names the rank that died; rank 0 wrote nothing (it never reached the end).
  EXPECT_NE(r.result.stderr_tail.find("signal 9"), std::string::npos) << r.result.stderr_tail;
  EXPECT_TRUE(r.json_text.empty());
}

}  // namespace
}  // namespace gpubench::allreduce_test
