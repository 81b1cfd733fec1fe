// The rank-agreement protocol, the deadline/abort state machine, the NCCL group guard and the
// failure-injection hook, without MPI, NCCL or a GPU (fakes for the collective steps, the poll
// and the clock). The MPI tests run the same agreement over two real ranks.
#include "suites/allreduce/case_outcome.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <stdexcept>

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
    for (const auto& o : all) v = std::max(v, static_cast<int>(o.status));
    return v;
  };
  ops.min = [all, calls](int) {
    ++*calls;
    int worst = 0;
    for (const auto& o : all) worst = std::max(worst, static_cast<int>(o.status));
    int who = INT_MAX;
    for (std::size_t r = 0; r < all.size(); ++r) {
      if (static_cast<int>(all[r].status) == worst) who = std::min(who, static_cast<int>(r));
    }
    return who;
  };
  ops.broadcast = [all, calls](const std::string&, int root) {
    ++*calls;
    return all[static_cast<std::size_t>(root)].reason;
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
  EXPECT_THROW(parse_injected_failure("no-rank"), std::invalid_argument);
  EXPECT_THROW(parse_injected_failure("x:"), std::invalid_argument);
  EXPECT_THROW(parse_injected_failure("x:one"), std::invalid_argument);
  EXPECT_THROW(parse_injected_failure("([:1"), std::invalid_argument);
}

}  // namespace
}  // namespace gpubench::allreduce
