// Comparisons of runs measured in several executions (issue 35): the interval is built from the
// executions' log means, with the suite's shared execution effect and each series' own part
// (compare/verdict.cpp estimate_by_execution). Sides are in-memory FIXTURES: seeded draws, not
// measurements. Each test names the rule it guards; removing the rule fails it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compare/compare.hpp"
#include "compare/noisy_series.hpp"
#include "fixtures.hpp"

using namespace gpubench::compare;
using namespace gpubench::compare::testing;
using gpubench::results::Direction;
using gpubench::results::ResultRow;

namespace {

struct Shape {
  int series = 20;
  int executions = 3;
  int repetitions = 1;
  double within_cv = 0.002;       // repetitions inside one process
  double own_sd = 0.002;          // each series' own execution effect (log)
  std::vector<double> shared;     // the suite's effect per execution (log), one per execution
  double change = 0;              // candidate's true change on series 0 (log), else 0
  bool mixed_directions = false;  // odd series are throughputs (higher is better)
};

// One run of `shape`: execution e is suite run id run * 100 + e, listed in the run's
// suite_run_ids (as the store lists them) unless `unlisted`.
Side executions_side(const std::string& sel, int64_t run, const Shape& shape, unsigned seed,
                     bool candidate = false) {
  Side side;
  side.selection = sel;
  side.runs.push_back(run_detail(run, "560.1"));
  std::mt19937 gen(seed);
  std::normal_distribution<double> z(0, 1);
  for (int e = 0; e < shape.executions; ++e) {
    const int64_t id = run * 100 + e;
    side.runs[0].suite_run_ids.push_back(id);
    const double shared = e < static_cast<int>(shape.shared.size()) ? shape.shared[e] : 0.0;
    for (int s = 0; s < shape.series; ++s) {
      const bool higher = shape.mixed_directions && s % 2 == 1;
      const double own = shape.own_sd * z(gen);
      const double change = candidate && s == 0 ? shape.change : 0.0;
      std::vector<double> values;
      for (int r = 0; r < shape.repetitions; ++r) {
        const double log_time = std::log(1000.0 * (s + 1)) + shared + own + change +
                                shape.within_cv * z(gen);
        // A throughput sees the same slow process as a lower value.
        values.push_back(higher ? 1e9 / std::exp(log_time) : std::exp(log_time));
      }
      ResultRow r = row("fusion/case" + std::to_string(s), higher ? "items_per_second" : "real_time",
                        higher ? "1/s" : "ns", higher ? Direction::higher : Direction::lower,
                        values);
      r.suite_run_id = id;
      side.results.push_back(std::move(r));
    }
  }
  return side;
}

const Entry& find(const Comparison& c, const std::string& bench) {
  for (const Entry& e : c.entries) {
    if (e.key.benchmark == bench) return e;
  }
  throw std::runtime_error("no entry " + bench);
}

}  // namespace

// The failure: identical work, processes differing by a few percent. Pooling every
// sample as if from one process calls many series changed; the executions' interval does not.
TEST(CompareExecutions, AProcessEffectIsNoiseNotAChange) {
  Shape base;
  base.shared = {0.00, 0.04, -0.03};
  Shape cand = base;
  cand.shared = {0.05, 0.01, 0.06};  // a slower set of processes, nothing changed
  const Comparison c = compare_sides(executions_side("A", 1, base, 1),
                                     executions_side("B", 2, cand, 2, true), Options{});
  std::size_t alarms = 0;
  for (const Entry& e : c.entries) {
    EXPECT_TRUE(e.by_execution) << e.reason;
    EXPECT_EQ(e.base.executions, 3u);
    EXPECT_EQ(e.base.runs, 1u);  // three executions of one run, not three runs
    EXPECT_FALSE(e.base.per_run);
    EXPECT_EQ(e.noise_source, "between executions");
    EXPECT_GT(e.execution_noise.shared, 0.0);  // the suite's shared part was found
    alarms += e.verdict == Verdict::regression || e.verdict == Verdict::improvement;
  }
  EXPECT_EQ(alarms, 0u);
  // One process a side (as before executions), its first, with 5 repetitions: the process effect
  // is invisible to the interval, which calls changes.
  Shape old_base = base, old_cand = cand;
  old_base.executions = old_cand.executions = 1;
  old_base.repetitions = old_cand.repetitions = 5;
  const Comparison old = compare_sides(executions_side("A", 1, old_base, 1),
                                       executions_side("B", 2, old_cand, 2, true), Options{});
  std::size_t old_alarms = 0;
  for (const Entry& e : old.entries) {
    EXPECT_FALSE(e.by_execution);
    old_alarms += e.verdict == Verdict::regression || e.verdict == Verdict::improvement;
  }
  EXPECT_GT(old_alarms, 10u);
}

// A real 10% slowdown of one series, quiet processes: found with 3 executions a side.
TEST(CompareExecutions, ARealChangeIsFound) {
  Shape shape;
  shape.shared = {0.0, 0.005, -0.004};
  shape.change = std::log(1.10);
  const Comparison c = compare_sides(executions_side("A", 1, shape, 3),
                                     executions_side("B", 2, shape, 4, true), Options{});
  EXPECT_EQ(find(c, "fusion/case0").verdict, Verdict::regression) << find(c, "fusion/case0").reason;
  EXPECT_NEAR(find(c, "fusion/case0").ratio, 1.10, 0.02);
  EXPECT_EQ(c.count(Verdict::regression), 1u);
}

// Rule: a slow process is slow for every series, times and throughputs alike; the shared effect
// is estimated on series oriented so it has one sign. Without the orientation, the throughputs
// cancel the times and the shared part vanishes into each series' "own" part, which is then
// wrongly moderated as if independent between series.
TEST(CompareExecutions, SharedEffectSeenAcrossTimesAndThroughputs) {
  Shape shape;
  shape.mixed_directions = true;
  shape.shared = {0.0, 0.05, -0.05};
  Shape cand = shape;
  cand.shared = {0.05, -0.05, 0.0};
  const Comparison c = compare_sides(executions_side("A", 1, shape, 5),
                                     executions_side("B", 2, cand, 6, true), Options{});
  for (const Entry& e : c.entries) {
    // The shared part holds the 5% effects: variance about 0.05^2 * 2/3 ... per execution.
    EXPECT_GT(e.execution_noise.shared, 0.001) << e.key.benchmark << " " << e.key.metric;
    EXPECT_NE(e.verdict, Verdict::regression) << e.reason;
    EXPECT_NE(e.verdict, Verdict::improvement) << e.reason;
  }
}

// Rule: the shared part keeps the executions' degrees of freedom (E_b + E_c - 2 = 4), however
// many series there are; pooling it over the series would claim 20 times more.
TEST(CompareExecutions, SharedPartKeepsTheExecutionsDegreesOfFreedom) {
  Shape shape;
  shape.shared = {0.0, 0.03, -0.03};
  Shape cand = shape;
  cand.shared = {0.02, -0.02, 0.03};
  const Comparison c = compare_sides(executions_side("A", 1, shape, 7),
                                     executions_side("B", 2, cand, 8, true), Options{});
  for (const Entry& e : c.entries) {
    EXPECT_DOUBLE_EQ(e.execution_noise.shared_df, 4.0);
    // The interval's df is dominated by the shared part: far below 20 series x 4.
    EXPECT_LT(e.df, 12.0) << e.key.benchmark;
  }
}

// Rule: counters that every execution reports alike stay out of the suite's model and compare
// exactly (a changed count is a change; an equal one is unchanged).
TEST(CompareExecutions, ConstantSeriesCompareExactly) {
  Shape shape;
  shape.shared = {0.0, 0.02, -0.02};
  Side a = executions_side("A", 1, shape, 9);
  Side b = executions_side("B", 2, shape, 10, true);
  for (Side* s : {&a, &b}) {
    for (int e = 0; e < 3; ++e) {
      ResultRow r = row("fusion/case0", "bytes", "B", Direction::unknown, {4096});
      r.suite_run_id = s->runs[0].run.id * 100 + e;
      s->results.push_back(r);
    }
  }
  const Comparison c = compare_sides(a, b, Options{});
  for (const Entry& e : c.entries) {
    if (e.key.metric != "bytes") continue;
    EXPECT_EQ(e.verdict, Verdict::unchanged) << e.reason;
    EXPECT_DOUBLE_EQ(e.ratio, 1.0);
  }
}

// A run stored before executions (one suite run a suite) against a run of executions: compared,
// with the spread from the candidate's executions, and the reason names both sides' counts.
TEST(CompareExecutions, MixedOldAndNewRunsSayWhatEachHas) {
  Shape shape;
  shape.shared = {0.0, 0.01, -0.01};
  Shape old_shape = shape;
  old_shape.executions = 1;
  old_shape.repetitions = 3;
  const Comparison c = compare_sides(executions_side("A", 1, old_shape, 11),
                                     executions_side("B", 2, shape, 12, true), Options{});
  const Entry& e = find(c, "fusion/case3");
  EXPECT_TRUE(e.by_execution);
  EXPECT_EQ(e.base.executions, 1u);
  EXPECT_EQ(e.candidate.executions, 3u);
  EXPECT_NE(e.reason.find("base 1 execution, candidate 3 executions"), std::string::npos)
      << e.reason;
  EXPECT_NE(e.reason.find("base's run has one execution a suite"), std::string::npos) << e.reason;
}

// Runs stored before executions on both sides: the old estimator, and the reason says that the
// interval lacks run-to-run noise (no allowance hides anything any more).
TEST(CompareExecutions, OldRunsSayTheirIntervalLacksRunToRunNoise) {
  Shape old_shape;
  old_shape.executions = 1;
  old_shape.repetitions = 5;
  old_shape.shared = {0.0};
  Shape cand = old_shape;
  cand.shared = {0.05};  // a 5% process effect: a regression to one-process eyes
  const Comparison c = compare_sides(executions_side("A", 1, old_shape, 13),
                                     executions_side("B", 2, cand, 14, true), Options{});
  const Entry& e = find(c, "fusion/case3");
  EXPECT_FALSE(e.by_execution);
  EXPECT_EQ(e.noise_source, "one execution (no run-to-run noise)");
  EXPECT_EQ(e.verdict, Verdict::regression);
  EXPECT_NE(e.reason.find("interval lacks run-to-run noise"), std::string::npos) << e.reason;
}

// A series that lost an execution (its process failed there) is estimated from the executions
// it has; the others keep the suite's model.
TEST(CompareExecutions, ASeriesMissingAnExecutionUsesItsOwn) {
  Shape shape;
  shape.executions = 4;
  shape.shared = {0.0, 0.01, -0.01, 0.005};
  Side a = executions_side("A", 1, shape, 15);
  Side b = executions_side("B", 2, shape, 16, true);
  std::erase_if(b.results, [](const ResultRow& r) {
    return r.benchmark == "fusion/case2" && r.suite_run_id == 201;
  });
  const Comparison c = compare_sides(a, b, Options{});
  const Entry& e = find(c, "fusion/case2");
  EXPECT_EQ(e.candidate.executions, 3u);
  EXPECT_EQ(e.execution_noise.shared, 0.0);  // outside the split: its own pooled variance
  EXPECT_DOUBLE_EQ(e.execution_noise.df, 5.0);  // (4 - 1) + (3 - 1)
  EXPECT_TRUE(std::isfinite(e.ci_low));
  EXPECT_GT(find(c, "fusion/case3").execution_noise.shared, 0.0);
}

// Sizing (Kalibera & Jones): a series noisy between executions gets the executions a side that
// would detect the threshold, and an inconclusive verdict says so.
TEST(CompareExecutions, InconclusiveNamesTheExecutionsThatWouldDecide) {
  Shape shape;
  shape.shared = {0.0, 0.0, 0.0};
  shape.own_sd = 0.03;  // 3% between processes, series by series
  shape.change = std::log(1.03);
  const Comparison c = compare_sides(executions_side("A", 1, shape, 17),
                                     executions_side("B", 2, shape, 18, true), Options{});
  std::size_t named = 0;
  for (const Entry& e : c.entries) {
    if (e.verdict != Verdict::inconclusive) continue;
    EXPECT_GT(e.executions_needed, 3u) << e.reason;
    named += e.reason.find("executions a side would decide it (gpubench run --executions") !=
             std::string::npos;
  }
  EXPECT_GT(named, 0u);
}

// show/report's noisy series (compare/noisy_series.hpp): a series whose executions spread by
// ~10% is listed with the executions a side that would detect 2%; a quiet one is not; a secondary
// metric is not; a run of one execution a suite gives nothing.
TEST(NoisySeries, ListsSeriesTooNoisyBetweenExecutionsWithTheirSizing) {
  NoisySeriesFinder finder;
  std::mt19937 gen(21);
  std::normal_distribution<double> z(0, 1);
  for (int e = 0; e < 3; ++e) {
    for (int s = 0; s < 6; ++s) {
      const double sd = s == 0 ? 0.10 : 0.001;  // series 0 is noisy between processes
      ResultRow r = row("fusion/case" + std::to_string(s), "real_time", "ns", Direction::lower,
                        {1000.0 * std::exp(sd * z(gen))});
      r.role = gpubench::results::MetricRole::primary;
      r.suite_run_id = 100 + e;
      finder.add(r);
      ResultRow secondary = r;
      secondary.metric = "bytes_per_second";
      secondary.role = gpubench::results::MetricRole::secondary;
      secondary.values = {1e9 * std::exp(0.2 * z(gen))};
      finder.add(secondary);
    }
  }
  const std::vector<NoisySeries> noisy = finder.find(0.02);
  ASSERT_EQ(noisy.size(), 1u);
  EXPECT_EQ(noisy[0].key.benchmark, "fusion/case0");
  EXPECT_EQ(noisy[0].executions, 3u);
  EXPECT_GT(noisy[0].mde, 0.02);
  EXPECT_GT(noisy[0].execution_cv, 0.02);
  EXPECT_EQ(finder.sized(), 6u);  // primary series only
  const std::vector<std::string> lines = noisy_series_lines(noisy, 0.02);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("fusion/case0 real_time"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("between executions; two runs of 3 detect"), std::string::npos)
      << lines[0];

  NoisySeriesFinder one_execution;
  for (int s = 0; s < 6; ++s) {
    ResultRow r = row("fusion/case" + std::to_string(s), "real_time", "ns", Direction::lower,
                      {1000, 1100, 900});
    r.suite_run_id = 7;
    one_execution.add(r);
  }
  EXPECT_TRUE(one_execution.find(0.02).empty());
  EXPECT_EQ(one_execution.sized(), 0u);
}
