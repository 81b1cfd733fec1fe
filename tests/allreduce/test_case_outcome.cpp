// The rank-agreement protocol (a failure on its own beating its peers' timeouts), the deadline
// state machine, the NCCL group guard and the init loop that owns every communicator at once, the
// failure-injection hook and its modes, and the series breaker, without MPI, NCCL or a GPU (fakes
// for the collective steps, the poll and the clock). The MPI tests run the same agreement over
// real ranks.
#include "suites/allreduce/case_outcome.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "suites/allreduce/group_guard.hpp"

namespace gpubench::allreduce {
namespace {

TEST(Agreement, TheWorstStatusWinsWithTheLowestSuchRanksReason) {
  const CaseOutcome ok;
  const CaseOutcome skip{CaseStatus::skipped, "out of memory"};
  const CaseOutcome fail2{CaseStatus::failed, "ncclSystemError: connect() failed"};
  const CaseOutcome fail3{CaseStatus::failed, "wrong result"};
  EXPECT_TRUE(combine_outcomes({ok, ok, ok}).ok());
  const CaseOutcome a = combine_outcomes({ok, skip, fail2, fail3});
  EXPECT_EQ(a.status, CaseStatus::failed);
  EXPECT_EQ(a.reason, "rank 2: ncclSystemError: connect() failed");
  const CaseOutcome b = combine_outcomes({ok, skip});
  EXPECT_EQ(b.status, CaseStatus::skipped);
  EXPECT_EQ(b.reason, "rank 1: out of memory");
  EXPECT_EQ(combine_outcomes({fail3}).reason, "wrong result");  // alone: no rank prefix
}

// A fake world of several ranks in which every collective step of rank `me` sees the other
// ranks' contributions computed from their outcomes (what MPI would deliver).
AgreementOps fake_ops(const std::vector<CaseOutcome>& all, int me, int* calls) {
  AgreementOps ops;
  ops.rank = me;
  ops.size = static_cast<int>(all.size());
  ops.max = [all, calls](int v) {
    ++*calls;
    for (const auto& o : all) v = std::max(v, severity(o));
    return v;
  };
  ops.min = [all, calls](int) {
    ++*calls;
    int worst = 0;
    for (const auto& o : all) worst = std::max(worst, severity(o));
    int who = INT_MAX;
    for (std::size_t r = 0; r < all.size(); ++r) {
      if (severity(all[r]) == worst) who = std::min(who, static_cast<int>(r));
    }
    return who;
  };
  // What the root sends: its timeout flag, then its reason.
  ops.broadcast = [all, calls](const std::string&, int root) {
    ++*calls;
    const CaseOutcome& o = all[static_cast<std::size_t>(root)];
    return std::string(o.timed_out ? "T" : "-") + o.reason;
  };
  return ops;
}

TEST(Agreement, EveryRankReachesTheCombinedOutcome) {
  const std::vector<CaseOutcome> all = {
      {}, {CaseStatus::failed, "injected"}, {}, {CaseStatus::skipped, "no GPU"}};
  for (int me = 0; me < 4; ++me) {
    int calls = 0;
    const CaseOutcome o =
        agree_outcome(all[static_cast<std::size_t>(me)], fake_ops(all, me, &calls));
    EXPECT_EQ(o.status, CaseStatus::failed) << me;
    EXPECT_EQ(o.reason, "rank 1: injected") << me;
    EXPECT_EQ(calls, 3);
  }
  // All ok: one collective step, no reason.
  int calls = 0;
  const std::vector<CaseOutcome> fine(3);
  EXPECT_TRUE(agree_outcome(fine[0], fake_ops(fine, 0, &calls)).ok());
  EXPECT_EQ(calls, 1);
}

CaseOutcome timeout(const std::string& reason) {
  CaseOutcome o{CaseStatus::failed, reason};
  o.timed_out = true;
  return o;
}

TEST(Agreement, ARankThatFailedOnItsOwnWinsOverLowerRanksThatTimedOut) {
  // Rank 2 failed on its own; ranks 0 and 1 timed out waiting for it: rank 2's words are the cause.
  const std::vector<CaseOutcome> all = {
      timeout("allreduce did not finish within 60 s"),
      timeout("allreduce did not finish within 60 s"),
      {CaseStatus::failed, "CUDA error: an illegal memory access"},
      {}};
  for (int me = 0; me < 4; ++me) {
    int calls = 0;
    const CaseOutcome o =
        agree_outcome(all[static_cast<std::size_t>(me)], fake_ops(all, me, &calls));
    EXPECT_EQ(o.status, CaseStatus::failed) << me;
    EXPECT_EQ(o.reason, "rank 2: CUDA error: an illegal memory access") << me;
    EXPECT_FALSE(o.timed_out) << me;
  }
  const CaseOutcome c = combine_outcomes(all);
  EXPECT_EQ(c.reason, "rank 2: CUDA error: an illegal memory access");
  // Only timeouts: the lowest such rank, and every rank learns that it was a timeout.
  const std::vector<CaseOutcome> hung = {{}, timeout("barrier hung"), timeout("calls hung")};
  for (int me = 0; me < 3; ++me) {
    int calls = 0;
    const CaseOutcome o =
        agree_outcome(hung[static_cast<std::size_t>(me)], fake_ops(hung, me, &calls));
    EXPECT_EQ(o.reason, "rank 1: barrier hung") << me;
    EXPECT_TRUE(o.timed_out) << me;
  }
  // A timeout still beats a skip.
  EXPECT_TRUE(combine_outcomes({{CaseStatus::skipped, "oom"}, timeout("hung")}).timed_out);
}

// A clock that advances only when the code under test sleeps (plus 1 us per poll).
struct FakeClock {
  double t = 0;
  int sleeps = 0;
  WaitClock clock() {
    return {[this] { return t += 1e-6; },
            [this](double s) {
              ++sleeps;
              t += s;
            }};
  }
};

TEST(Deadline, DoneWorkReturnsWithoutAbort) {
  FakeClock fc;
  int polls = 0, aborts = 0;
  const WaitResult r = wait_with_deadline(
      [&] {
        return PollResult{++polls < 50 ? Progress::pending : Progress::done, ""};
      },
      10, [&] { ++aborts; }, "allreduce", fc.clock());
  EXPECT_TRUE(r.outcome.ok());
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(polls, 50);
  EXPECT_EQ(aborts, 0);
}

TEST(Deadline, AHangIsAbortedOnceAtTheDeadline) {
  FakeClock fc;
  int aborts = 0;
  const WaitResult r = wait_with_deadline(
      [] {
        return PollResult{Progress::pending, ""};
      },
      5, [&] { ++aborts; }, "allreduce of 8 B on 2 GPUs", fc.clock());
  EXPECT_TRUE(r.timed_out);
  EXPECT_TRUE(r.aborted);
  EXPECT_EQ(aborts, 1);
  EXPECT_EQ(r.outcome.status, CaseStatus::failed);
  EXPECT_NE(r.outcome.reason.find("allreduce of 8 B on 2 GPUs did not finish within 5 s"),
            std::string::npos)
      << r.outcome.reason;
  EXPECT_GE(r.waited_s, 5.0);
  EXPECT_LT(r.waited_s, 5.01);  // sleeps are at most 1 ms: the deadline is kept closely
  EXPECT_GT(fc.sleeps, 1000);   // it slept instead of spinning for 5 s
}

TEST(Deadline, WithoutAnAbortTheTimeoutSaysTheRanksAbortAfterAgreeing) {
  FakeClock fc;
  const WaitResult r = wait_with_deadline(
      [] {
        return PollResult{Progress::pending, ""};
      },
      2, {}, "the timed calls", fc.clock());
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.aborted);
  EXPECT_TRUE(r.outcome.timed_out);  // what the series breaker counts
  EXPECT_NE(r.outcome.reason.find("the communicators are aborted once the ranks agreed"),
            std::string::npos)
      << r.outcome.reason;
  EXPECT_EQ(r.outcome.reason.find("the communicator was aborted"), std::string::npos);
  // A failure is not a timeout.
  const WaitResult f = wait_with_deadline(
      [] {
        return PollResult{Progress::failed, "ncclRemoteError"};
      },
      2, {}, "x", fc.clock());
  EXPECT_FALSE(f.outcome.timed_out);
}

TEST(Deadline, AnAsyncErrorAbortsAndNamesNcclsWords) {
  FakeClock fc;
  int polls = 0, aborts = 0;
  const WaitResult r = wait_with_deadline(
      [&] {
        return ++polls < 3 ? PollResult{Progress::pending, ""}
                           : PollResult{Progress::failed, "ncclRemoteError: peer gone"};
      },
      60, [&] { ++aborts; }, "allgather", fc.clock());
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(aborts, 1);
  EXPECT_EQ(r.outcome.reason, "allgather failed: ncclRemoteError: peer gone");
}

TEST(Deadline, TimeoutGrowsWithBytesAndHonoursTheOverride) {
  EXPECT_DOUBLE_EQ(wait_timeout_s(8, 20, nullptr), 60.0 + 20 * 8 / 0.5e9);
  EXPECT_NEAR(wait_timeout_s(std::size_t{1} << 30, 20, nullptr), 60 + 42.9, 0.1);
  EXPECT_DOUBLE_EQ(wait_timeout_s(1 << 30, 20, "5"), 5.0);
  EXPECT_DOUBLE_EQ(wait_timeout_s(8, 20, "garbage"), 60.0 + 20 * 8 / 0.5e9);
  EXPECT_DOUBLE_EQ(wait_timeout_s(8, 20, "-1"), 60.0 + 20 * 8 / 0.5e9);
}

TEST(GroupGuard, AnExceptionInsideTheGroupStillEndsIt) {
  int starts = 0, ends = 0;
  auto start = [&] { return ++starts, 0; };
  auto end = [&] { return ++ends, 0; };
  try {
    BasicGroupGuard<int, decltype(start), decltype(end)> g(start, end, 0);
    throw std::runtime_error("enqueue failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(ends, 1);
  {
    BasicGroupGuard<int, decltype(start), decltype(end)> g(start, end, 0);
    EXPECT_EQ(g.end(), 0);
    EXPECT_EQ(g.end(), 0);  // a second end() does not end again
  }
  EXPECT_EQ(ends, 2);  // and the destructor did not end it a third time
  auto bad_start = [] { return 5; };
  {
    BasicGroupGuard<int, decltype(bad_start), decltype(end)> g(bad_start, end, 0);
    EXPECT_FALSE(g.started());
    EXPECT_EQ(g.end(), 5);  // the start's error, not a group end
  }
  EXPECT_EQ(ends, 2);
}

TEST(GroupGuard, InitInGroupOwnsEveryHandleBeforeAFailureCanSkipIt) {
  // Fake handles: index + 100. The init of index 2 fails; without adopting each handle right after
  // its init, handles 100 and 101 (whose init the group end starts) would belong to nobody.
  int starts = 0, ends = 0;
  auto start = [&] { return ++starts, 0; };
  auto end = [&] { return ++ends, 0; };
  std::vector<std::pair<int, int>> adopted;
  const std::vector<int> indices = {0, 1, 2, 3};
  EXPECT_THROW((init_in_group<int>(
                   indices, start, end, 0,
                   [](int i, int* h) {
                     *h = i + 100;
                     return i == 2 ? 7 : 0;  // 7: an init error
                   },
                   [&](int i, int h) { adopted.emplace_back(i, h); },
                   [](int status, int) {
                     if (status != 0) throw std::runtime_error("init failed");
                   })),
               std::runtime_error);
  EXPECT_EQ(adopted, (std::vector<std::pair<int, int>>{{0, 100}, {1, 101}, {2, 102}}));
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(ends, 1);  // the group was ended on the way out
  // A throw from the init itself (e.g. cudaSetDevice) after two inits: both still owned.
  adopted.clear();
  EXPECT_THROW((init_in_group<int>(
                   indices, start, end, 0,
                   [](int i, int* h) {
                     if (i == 2) throw std::runtime_error("cudaSetDevice failed");
                     *h = i + 100;
                     return 0;
                   },
                   [&](int i, int h) { adopted.emplace_back(i, h); }, [](int, int) {})),
               std::runtime_error);
  EXPECT_EQ(adopted, (std::vector<std::pair<int, int>>{{0, 100}, {1, 101}}));
  EXPECT_EQ(ends, 2);
  // All fine: every handle owned, the group end's status returned.
  adopted.clear();
  auto end_in_progress = [&] { return ++ends, 5; };  // 5: ncclInProgress, say
  EXPECT_EQ(init_in_group<int>(
                indices, start, end_in_progress, 0,
                [](int i, int* h) {
                  *h = i;
                  return 0;
                },
                [&](int i, int h) { adopted.emplace_back(i, h); }, [](int, int) {}),
            5);
  EXPECT_EQ(adopted.size(), 4u);
}

TEST(InjectedFailure, ParsesRegexAndRankFromTheLastColon) {
  EXPECT_FALSE(parse_injected_failure(nullptr));
  EXPECT_FALSE(parse_injected_failure(""));
  const auto f = parse_injected_failure("bytes:2048/ranks:2/device:host:1");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->rank, 1);
  EXPECT_EQ(f->text, "bytes:2048/ranks:2/device:host");
  EXPECT_TRUE(
      f->matches("allreduce/allreduce/dtype:fp32/mode:in_place/bytes:2048/ranks:2/device:host", 1));
  EXPECT_FALSE(
      f->matches("allreduce/allreduce/dtype:fp32/mode:in_place/bytes:2048/ranks:2/device:host", 0));
  EXPECT_FALSE(
      f->matches("allreduce/allreduce/dtype:fp32/mode:in_place/bytes:8/ranks:2/device:host", 1));
  EXPECT_EQ(f->mode, InjectedMode::fail);
  EXPECT_EQ(f->reason(),
            "injected failure (GPUBENCH_ALLREDUCE_INJECT_FAILURE=bytes:2048/ranks:2/device:host:1, "
            "a test hook)");
  EXPECT_THROW(parse_injected_failure("no-rank"), std::invalid_argument);
  EXPECT_THROW(parse_injected_failure("x:"), std::invalid_argument);
  EXPECT_THROW(parse_injected_failure("x:one"), std::invalid_argument);
  EXPECT_THROW(parse_injected_failure("([:1"), std::invalid_argument);
}

TEST(InjectedFailure, ATrailingModeWordChoosesSetupOrHang) {
  const auto hang = parse_injected_failure("mode:in_place/bytes:1024/ranks:2/$:1:hang");
  ASSERT_TRUE(hang);
  EXPECT_EQ(hang->mode, InjectedMode::hang);
  EXPECT_EQ(hang->rank, 1);
  EXPECT_EQ(hang->text, "mode:in_place/bytes:1024/ranks:2/$");
  EXPECT_NE(hang->reason().find("=mode:in_place/bytes:1024/ranks:2/$:1:hang,"), std::string::npos);
  const auto setup = parse_injected_failure("ranks:4:3:setup");
  ASSERT_TRUE(setup);
  EXPECT_EQ(setup->mode, InjectedMode::setup);
  EXPECT_EQ(setup->rank, 3);
  EXPECT_EQ(setup->text, "ranks:4");
  const auto fail = parse_injected_failure("ranks:4:0:fail");
  ASSERT_TRUE(fail);
  EXPECT_EQ(fail->mode, InjectedMode::fail);
  EXPECT_EQ(fail->text, "ranks:4");
  EXPECT_THROW(parse_injected_failure("ranks:hang"), std::invalid_argument);       // no rank
  EXPECT_THROW(parse_injected_failure("ranks:4:1:crash"), std::invalid_argument);  // no such mode
}

TEST(SeriesBreaker, ASetupFailureBlocksTheSeriesWithItsCauseAndNoOther) {
  SeriesBreaker b;
  EXPECT_FALSE(b.blocked("world/8"));
  b.setup_failed("world/8", "allreduce/allreduce/dtype:fp32/mode:out_of_place/bytes:8/ranks:8",
                 {CaseStatus::failed, "rank 3: ncclSystemError: connect() failed"});
  const auto why = b.blocked("world/8");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("setup of this series failed at allreduce/allreduce/dtype:fp32/"
                      "mode:out_of_place/bytes:8/ranks:8: rank 3: ncclSystemError"),
            std::string::npos)
      << *why;
  EXPECT_NE(why->find("the rest of the series is skipped"), std::string::npos);
  EXPECT_FALSE(b.blocked("world/4"));
  EXPECT_FALSE(b.blocked("inter_node/2"));
}

TEST(SeriesBreaker, TwoTimeoutsInARowBlockTheSeriesOtherOutcomesReset) {
  SeriesBreaker b;
  b.case_finished("world/2", "a", timeout("hung"));
  EXPECT_FALSE(b.blocked("world/2"));
  b.case_finished("world/2", "b", {});  // a success in between resets the count
  b.case_finished("world/2", "c", timeout("hung"));
  b.case_finished("world/2", "d", {CaseStatus::failed, "wrong result"});  // so does a failure
  b.case_finished("world/2", "e", timeout("hung"));
  EXPECT_FALSE(b.blocked("world/2"));
  b.case_finished("world/4", "x", timeout("hung"));  // another series counts on its own
  b.case_finished("world/2", "f", timeout("rank 1: the timed calls did not finish"));
  const auto why = b.blocked("world/2");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("(e, then f: rank 1: the timed calls did not finish)"), std::string::npos)
      << *why;
  EXPECT_FALSE(b.blocked("world/4"));
}

}  // namespace
}  // namespace gpubench::allreduce
