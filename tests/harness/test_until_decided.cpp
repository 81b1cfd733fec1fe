// What limits --until-decided when its reruns are spent (issue 26): the base side's few samples,
// a base of one execution a suite (issue 35), series too noisy between executions. Comparisons are in-memory FIXTURES (no run).
#include <gtest/gtest.h>

#include "harness/run/until_decided.hpp"

namespace gpubench::harness {
namespace {

compare::Entry inconclusive(std::size_t base_n, std::size_t cand_n) {
  compare::Entry e;
  e.key = {"calibration", "calibration/x", "calls_per_s", "host"};
  e.verdict = compare::Verdict::inconclusive;
  e.base.n = base_n;
  e.base.runs = 1;
  e.candidate.n = cand_n;
  e.candidate.runs = cand_n / 3;
  return e;
}

bool any_contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines) {
    if (l.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(UntilDecided, NamesTheBaseWhenItsSamplesAreTheBottleneck) {
  compare::Comparison cmp;
  cmp.entries.push_back(inconclusive(3, 12));  // 1 base run of 3 repetitions vs 4 candidate runs
  UntilDecidedOptions options;
  const auto lines = what_limits(cmp, options);
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(any_contains(lines, "limited by the base: 3 sample(s) from 1 run(s)")) << lines[0];
  EXPECT_TRUE(any_contains(lines, "--base-last")) << lines[0];
}

TEST(UntilDecided, NamesABaseOfOneExecution) {
  compare::Comparison cmp;
  compare::Entry e = inconclusive(9, 9);  // base not the bottleneck
  e.base.runs = 1;
  e.base.executions = 1;  // a run stored before executions
  cmp.entries.push_back(e);
  const auto lines = what_limits(cmp, UntilDecidedOptions{});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(any_contains(lines, "have a base of one execution a suite a run")) << lines[0];
  EXPECT_FALSE(any_contains(lines, "limited by the base"));
}

TEST(UntilDecided, NamesSeriesTooNoisyBetweenExecutions) {
  compare::Comparison cmp;
  compare::Entry e = inconclusive(3, 3);
  e.base.runs = e.candidate.runs = 1;
  e.base.executions = e.candidate.executions = 3;
  e.by_execution = true;
  e.executions_needed = 0;  // size_executions found no number up to 100
  cmp.entries.push_back(e);
  const auto lines = what_limits(cmp, UntilDecidedOptions{});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(any_contains(lines, "even 100 a side")) << lines[0];
  e.executions_needed = 12;
  cmp.entries = {e};
  EXPECT_TRUE(any_contains(what_limits(cmp, UntilDecidedOptions{}), "about 12 executions a side"));
}

TEST(UntilDecided, NothingToSayWhenDecidedAndBudgetOtherwise) {
  compare::Comparison cmp;
  EXPECT_TRUE(what_limits(cmp, UntilDecidedOptions{}).empty());
  cmp.entries.push_back(inconclusive(9, 9));
  const auto lines = what_limits(cmp, UntilDecidedOptions{});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(any_contains(lines, "--max-extra-runs more than 3")) << lines[0];
}

}  // namespace
}  // namespace gpubench::harness
