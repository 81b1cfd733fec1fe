// The case runner (case_runner.hpp) against a fake collective backend and a fake world of two
// ranks in one process: the order of the phases and agreements, the hold always released, the
// communicators dropped only after the ranks agreed, the series breaker, and the test hook's three
// modes. The same runner over real MPI ranks: test_mpi_protocol.cpp.
#include "suites/allreduce/case_runner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpubench::allreduce {
namespace {

// This process is rank 0 of 2; rank 1's outcome of each agreement comes from a script (ok when
// the script is empty). Every agreement is logged, so the backend's log shows what came first.
struct FakeWorld {
  std::deque<CaseOutcome> peer;
  std::vector<std::string>* log = nullptr;
  CaseOutcome current;  // rank 1's outcome of the agreement under way
  int worst = 0;

  AgreementOps ops() {
    AgreementOps o;
    o.rank = 0;
    o.size = 2;
    o.max = [this](int mine) {
      current = peer.empty() ? CaseOutcome{} : peer.front();
      if (!peer.empty()) peer.pop_front();
      log->push_back("agree");
      worst = std::max(mine, severity(current));
      return worst;
    };
    o.min = [this](int mine) { return std::min(mine, severity(current) == worst ? 1 : INT_MAX); };
    o.broadcast = [this](const std::string& sent, int root) {
      if (root == 0) return sent;
      return std::string(current.timed_out ? "T" : "-") + current.reason;
    };
    return o;
  }
};

struct FakeBackend : CollectiveBackend {
  std::vector<std::string>* log = nullptr;
  std::vector<int> here = {0};
  CaseOutcome open, prep, warm, queue, finish;
  bool throw_in_warm_up = false;
  std::vector<int> open_leave_out, queue_leave_out;

  std::vector<int> ranks_here() const override { return here; }
  CaseOutcome open_series(const std::vector<int>& leave_out) override {
    open_leave_out = leave_out;
    log->push_back("open");
    return open;
  }
  CaseOutcome prepare() override {
    log->push_back("prepare");
    return prep;
  }
  CaseOutcome warm_up() override {
    log->push_back("warm_up");
    if (throw_in_warm_up) throw std::runtime_error("a backend bug");
    return warm;
  }
  CaseOutcome queue_timed(const std::vector<int>& leave_out) override {
    queue_leave_out = leave_out;
    log->push_back("queue");
    return queue;
  }
  void release() noexcept override { log->push_back("release"); }
  CaseOutcome finish_timed(OwnTimes& times) override {
    log->push_back("finish");
    if (finish.ok()) {
      times.slowest_call_s = 2e-6;
      times.own = {{0, 2e-6}};
    }
    return finish;
  }
  void drop() noexcept override { log->push_back("drop"); }
};

CaseOutcome timeout(const std::string& reason) {
  CaseOutcome o{CaseStatus::failed, reason};
  o.timed_out = true;
  return o;
}

struct Fixture : ::testing::Test {
  std::vector<std::string> log;
  FakeWorld world;
  FakeBackend backend;
  SeriesBreaker breaker;
  std::optional<InjectedFailure> injected;
  void SetUp() override {
    world.log = &log;
    backend.log = &log;
  }
  RepetitionResult run(const std::string& name = "allreduce/x/bytes:8/ranks:2",
                       const std::string& series = "world/2") {
    CaseRunner runner(world.ops(), breaker, injected);
    return runner.run(backend, series, name);
  }
};

using Runner = Fixture;

TEST_F(Runner, PhasesAgreeInOrderAndTheHoldIsReleasedAfterTheQueueingIsAgreed) {
  const RepetitionResult r = run();
  EXPECT_TRUE(r.outcome.ok()) << r.outcome.reason;
  EXPECT_DOUBLE_EQ(r.times.slowest_call_s, 2e-6);
  EXPECT_EQ(log, (std::vector<std::string>{"open", "agree", "prepare", "agree", "warm_up", "agree",
                                           "queue", "agree", "release", "finish", "agree"}));
}

TEST_F(Runner, AFailureIsDroppedOnlyAfterTheRanksAgreedOnIt) {
  world.peer = {{}, {}, {CaseStatus::failed, "ncclUnhandledCudaError: Xid 79"}};
  const RepetitionResult r = run();
  EXPECT_EQ(r.outcome.status, CaseStatus::failed);
  EXPECT_EQ(r.outcome.reason, "rank 1: ncclUnhandledCudaError: Xid 79");
  // This rank's warm-up was fine; it aborts only once the agreement said rank 1 failed, and never
  // queues the timed calls.
  EXPECT_EQ(log, (std::vector<std::string>{"open", "agree", "prepare", "agree", "warm_up", "agree",
                                           "drop"}));
  EXPECT_TRUE(r.times.own.empty());
}

TEST_F(Runner, AFailedQueueingStillReleasesTheHoldBeforeTheDrop) {
  world.peer = {{}, {}, {}, {CaseStatus::failed, "spin kernel launch failed"}};
  const RepetitionResult r = run();
  EXPECT_EQ(r.outcome.reason, "rank 1: spin kernel launch failed");
  EXPECT_EQ(log, (std::vector<std::string>{"open", "agree", "prepare", "agree", "warm_up", "agree",
                                           "queue", "agree", "release", "drop"}));
}

TEST_F(Runner, ASetupFailureSkipsTheRestOfTheSeriesWithoutRetrying) {
  world.peer = {timeout("NCCL communicator setup for 2 ranks did not finish within 60 s")};
  const RepetitionResult first = run("case-a");
  EXPECT_EQ(first.outcome.status, CaseStatus::failed);
  EXPECT_EQ(log, (std::vector<std::string>{"open", "agree", "drop"}));
  log.clear();
  const RepetitionResult again = run("case-a");  // the next repetition
  const RepetitionResult next = run("case-b");   // and the next case of the series
  EXPECT_TRUE(log.empty()) << "the series was set up again";
  for (const auto& r : {again, next}) {
    EXPECT_EQ(r.outcome.status, CaseStatus::skipped);
    EXPECT_NE(r.outcome.reason.find("setup of this series failed at case-a: rank 1: NCCL "
                                    "communicator setup for 2 ranks did not finish"),
              std::string::npos)
        << r.outcome.reason;
  }
  // Another series still runs.
  EXPECT_TRUE(run("case-c", "world/4").outcome.ok());
}

TEST_F(Runner, TwoTimeoutsInARowSkipTheRestOfTheSeries) {
  backend.finish = timeout("the timed calls did not finish within 60 s");
  EXPECT_TRUE(run("a").outcome.timed_out);
  EXPECT_TRUE(run("b").outcome.timed_out);
  log.clear();
  const RepetitionResult r = run("c");
  EXPECT_TRUE(log.empty());
  EXPECT_EQ(r.outcome.status, CaseStatus::skipped);
  EXPECT_NE(r.outcome.reason.find("two cases of this series in a row timed out (a, then b"),
            std::string::npos)
      << r.outcome.reason;
}

TEST_F(Runner, ASkipAtPrepareKeepsTheSeriesOpen) {
  backend.prep = {CaseStatus::skipped, "out of memory (allreduce of 8 GiB)"};
  const RepetitionResult r = run();
  EXPECT_EQ(r.outcome.status, CaseStatus::skipped);
  EXPECT_EQ(log, (std::vector<std::string>{"open", "agree", "prepare", "agree"}));  // no drop
}

TEST_F(Runner, AThrowingPhaseFailsTheCaseThroughTheAgreement) {
  backend.throw_in_warm_up = true;
  const RepetitionResult r = run();
  EXPECT_EQ(r.outcome.status, CaseStatus::failed);
  EXPECT_EQ(r.outcome.reason, "rank 0: a backend bug");
  EXPECT_EQ(log.back(), "drop");
}

TEST_F(Runner, TheTestHookReachesEachPhaseForTheRanksHere) {
  backend.here = {0, 1, 2, 3};  // one process driving four GPUs
  injected = parse_injected_failure("bytes:8/ranks:4$:2:hang");
  RepetitionResult r = run("allreduce/x/bytes:8/ranks:4", "world/4");
  EXPECT_EQ(backend.queue_leave_out, std::vector<int>{2});
  EXPECT_TRUE(backend.open_leave_out.empty());
  r = run("allreduce/x/bytes:16/ranks:4", "world/4");  // not matched: nothing left out
  EXPECT_TRUE(backend.queue_leave_out.empty());

  injected = parse_injected_failure("ranks:4$:3:setup");
  r = run("allreduce/x/bytes:8/ranks:4", "world/4b");
  EXPECT_EQ(backend.open_leave_out, std::vector<int>{3});

  log.clear();
  injected = parse_injected_failure("ranks:4$:1");
  r = run("allreduce/x/bytes:8/ranks:4", "world/4c");
  EXPECT_EQ(r.outcome.status, CaseStatus::failed);
  EXPECT_NE(r.outcome.reason.find("injected failure (GPUBENCH_ALLREDUCE_INJECT_FAILURE=ranks:4$:1"),
            std::string::npos)
      << r.outcome.reason;
  EXPECT_EQ(log, (std::vector<std::string>{"open", "agree", "prepare", "agree", "drop"}));

  // A rank this process does not drive is not its business.
  backend.here = {0};
  r = run("allreduce/x/bytes:8/ranks:4", "world/4d");
  EXPECT_TRUE(r.outcome.ok());
}

}  // namespace
}  // namespace gpubench::allreduce
