// The allreduce suite's failure paths over real MPI ranks, with a fake collective backend in place
// of NCCL (allreduce_protocol_probe: the suite's case runner, agreement, series breaker, test hook
// and handshake; a missing peer leaves real non-blocking MPI requests pending until the deadline):
// one rank erroring, a rank whose calls hang, a setup that fails once and is not retried, and ranks
// that disagree on the case list.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "harness/process/process.hpp"
#include "tests/allreduce/mpi_support.hpp"
#include "util/fs.hpp"

namespace gpubench::allreduce_test {
namespace {

struct ProbeRun {
  harness::ProcessResult result;
  std::vector<nlohmann::json> cases;  // rank 0's line per case, in order
  nlohmann::json totals;              // {"opens", "drops"} of rank 0
  double took_s = 0;
};

ProbeRun run_probe(int ranks, std::vector<std::pair<std::string, std::string>> env) {
  const std::string probe = GPUBENCH_TEST_PROTOCOL_PROBE;
  TempDir dir("gpubench-protocol");
  harness::ProcessSpec spec;
  spec.argv = {mpirun_path(), "-np", std::to_string(ranks), "--oversubscribe", probe};
  spec.env = mpi_env();
  spec.env.emplace_back("GPUBENCH_ALLREDUCE_TIMEOUT_S", "1");
  spec.env.insert(spec.env.end(), env.begin(), env.end());
  spec.stdout_path = dir.path() / "out.txt";
  spec.stderr_tail_bytes = 1 << 16;
  spec.timeout_s = 90;
  ProbeRun r;
  const auto start = std::chrono::steady_clock::now();
  r.result = harness::run_process(spec);
  r.took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::istringstream lines(read_file(spec.stdout_path));
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    if (j.contains("case")) r.cases.push_back(j);
    if (j.contains("opens")) r.totals = j;
  }
  return r;
}

#define GPUBENCH_REQUIRE_PROBE()                                                       \
  do {                                                                                 \
    GPUBENCH_REQUIRE_MPI();                                                            \
    if (std::string(GPUBENCH_TEST_PROTOCOL_PROBE).empty()) GTEST_SKIP() << "no probe"; \
  } while (0)

std::string status_of(const nlohmann::json& c) {
  return c.value("status", std::string());
}
std::string reason_of(const nlohmann::json& c) {
  return c.value("reason", std::string());
}

TEST(MpiProtocol, ThreeRanksRunBothSeriesCleanly) {
  GPUBENCH_REQUIRE_PROBE();
  const ProbeRun r = run_probe(3, {});
  ASSERT_TRUE(r.result.succeeded()) << r.result.stderr_tail;
  ASSERT_EQ(r.cases.size(), 8u);
  for (const auto& c : r.cases) EXPECT_EQ(status_of(c), "ok") << c.dump();
  EXPECT_EQ(r.totals["opens"], 2);  // world/2 and world/3, each set up once
  EXPECT_EQ(r.totals["drops"], 0);
}

TEST(MpiProtocol, OneRankErroringFailsThatCaseOnEveryRankAndTheRestRuns) {
  GPUBENCH_REQUIRE_PROBE();
  const ProbeRun r = run_probe(3, {{"GPUBENCH_ALLREDUCE_INJECT_FAILURE", "world/3/case:1$:2"}});
  ASSERT_TRUE(r.result.succeeded()) << r.result.stderr_tail;
  ASSERT_EQ(r.cases.size(), 8u);
  for (const auto& c : r.cases) {
    if (c["case"] == "probe/world/3/case:1") {
      EXPECT_EQ(status_of(c), "failed");
      EXPECT_EQ(reason_of(c).rfind("rank 2: injected failure (GPUBENCH_ALLREDUCE_INJECT_FAILURE="
                                   "world/3/case:1$:2, a test hook)",
                                   0),
                0u)
          << reason_of(c);
      EXPECT_FALSE(c["timed_out"].get<bool>());
    } else {
      EXPECT_EQ(status_of(c), "ok") << c.dump();
    }
  }
  // The failed case dropped its series on every rank; the next case set it up afresh.
  EXPECT_EQ(r.totals["drops"], 1);
  EXPECT_EQ(r.totals["opens"], 3);
}

TEST(MpiProtocol, AHangingRankTimesOutItsPeersTwiceThenTheSeriesIsSkipped) {
  GPUBENCH_REQUIRE_PROBE();
  // Rank 2 leaves out its timed calls in every world/3 case: ranks 0 and 1 wait until the 1 s
  // deadline, the ranks agree, every rank drops the series; after two timeouts in a row the rest
  // of the series is skipped instead of waiting again.
  const ProbeRun r = run_probe(3, {{"GPUBENCH_ALLREDUCE_INJECT_FAILURE", "world/3/:2:hang"}});
  ASSERT_FALSE(r.result.timed_out) << "the ranks hung";
  ASSERT_TRUE(r.result.succeeded()) << r.result.stderr_tail;
  ASSERT_EQ(r.cases.size(), 8u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(status_of(r.cases[static_cast<std::size_t>(i)]), "ok");
  for (int i = 4; i < 6; ++i) {
    const auto& c = r.cases[static_cast<std::size_t>(i)];
    EXPECT_EQ(status_of(c), "failed") << c.dump();
    EXPECT_TRUE(c["timed_out"].get<bool>()) << c.dump();
    EXPECT_NE(reason_of(c).find("the fake timed calls of world/3 did not finish within 1 s"),
              std::string::npos)
        << reason_of(c);
    EXPECT_NE(reason_of(c).find("the communicators are aborted once the ranks agreed"),
              std::string::npos);
  }
  for (int i = 6; i < 8; ++i) {
    const auto& c = r.cases[static_cast<std::size_t>(i)];
    EXPECT_EQ(status_of(c), "skipped") << c.dump();
    EXPECT_NE(reason_of(c).find("two cases of this series in a row timed out "
                                "(probe/world/3/case:0, then probe/world/3/case:1"),
              std::string::npos)
        << reason_of(c);
  }
  EXPECT_EQ(r.totals["drops"], 2);
  EXPECT_LT(r.took_s, 30.0);  // two 1 s deadlines, not four, and no hang
}

TEST(MpiProtocol, ASetupFailureIsNamedOnceAndTheSeriesIsNotRetried) {
  GPUBENCH_REQUIRE_PROBE();
  // Rank 1 does not make its communicator for world/2: rank 0's setup waits until the deadline;
  // the case fails with rank 1's own reason (not rank 0's timeout), and the rest of world/2 is
  // skipped without another setup. world/3 is a different series and runs.
  const ProbeRun r = run_probe(3, {{"GPUBENCH_ALLREDUCE_INJECT_FAILURE", "world/2/:1:setup"}});
  ASSERT_TRUE(r.result.succeeded()) << r.result.stderr_tail;
  ASSERT_EQ(r.cases.size(), 8u);
  EXPECT_EQ(status_of(r.cases[0]), "failed");
  EXPECT_EQ(reason_of(r.cases[0]), "rank 1: injected setup failure of rank 1");
  for (int i = 1; i < 4; ++i) {
    const auto& c = r.cases[static_cast<std::size_t>(i)];
    EXPECT_EQ(status_of(c), "skipped") << c.dump();
    EXPECT_NE(reason_of(c).find("setup of this series failed at probe/world/2/case:0: rank 1: "
                                "injected setup failure"),
              std::string::npos)
        << reason_of(c);
  }
  for (int i = 4; i < 8; ++i) EXPECT_EQ(status_of(r.cases[static_cast<std::size_t>(i)]), "ok");
  EXPECT_EQ(r.totals["opens"], 2);  // world/2 once (not per case), world/3 once
}

TEST(MpiProtocol, RanksDisagreeingOnTheCaseListAreRefusedBeforeAnyCase) {
  GPUBENCH_REQUIRE_PROBE();
  const ProbeRun r = run_probe(3, {{"PROBE_EXTRA_CASE_RANK", "2"}});
  EXPECT_FALSE(r.result.timed_out);
  EXPECT_FALSE(r.result.succeeded());
  EXPECT_TRUE(r.cases.empty());
  EXPECT_NE(r.result.stderr_tail.find("disagree on the case list: rank 0 (host "),
            std::string::npos)
      << r.result.stderr_tail;
  EXPECT_NE(r.result.stderr_tail.find("has 8 cases"), std::string::npos);
  EXPECT_NE(r.result.stderr_tail.find("rank 2 (host "), std::string::npos);
  EXPECT_NE(r.result.stderr_tail.find("has 9 cases"), std::string::npos);
}

}  // namespace
}  // namespace gpubench::allreduce_test
