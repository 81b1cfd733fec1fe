// Per-suite run-to-run allowances (compare/allowance.hpp; issue 23 item 21). Fixture sides built
// in memory: ten repetitions a side, 0.5% CV, so the within-run interval excludes 1 for a 5% step.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "compare/allowance.hpp"
#include "compare/render/render.hpp"
#include "compare/run_noise.hpp"
#include "fixtures.hpp"

namespace gpubench::compare {
namespace {

using results::Direction;
using testing::normal_samples;
using testing::row;

Side side_of(const std::string& sel, int64_t id, results::ResultRow r) {
  Side s;
  s.selection = sel;
  s.runs.push_back(testing::run_detail(id, "560.1"));
  s.results.push_back(std::move(r));
  return s;
}

// One series of `benchmark` (higher is better) at 100 in base and 100 * scale in candidate.
Entry judged(const std::string& benchmark, double scale, std::optional<int> device,
             const Options& o = Options{}) {
  std::vector<double> base = normal_samples(100, 0.005, 10, 21);
  std::vector<double> cand = normal_samples(100 * scale, 0.005, 10, 22);
  const Comparison c = compare_sides(
      side_of("A", 1, row(benchmark, "GB_per_s", "GB/s", Direction::higher, base, device)),
      side_of("B", 2, row(benchmark, "GB_per_s", "GB/s", Direction::higher, cand, device)), o);
  return c.entries.at(0);
}

}  // namespace

TEST(RunToRunAllowance, EverySuiteHasARowWithAnAllowanceAboveTheDefaultThreshold) {
  for (const char* suite : {"allreduce", "calibration", "dataloader", "fusion", "gemm", "launch",
                            "memory", "transfer"}) {
    const auto host = run_to_run_allowance(suite, "host");
    const auto gpu = run_to_run_allowance(suite, "gpu0");
    ASSERT_TRUE(host && gpu) << suite;
    EXPECT_GT(*host, Options{}.threshold) << suite;
    EXPECT_GT(*gpu, Options{}.threshold) << suite;
    EXPECT_LT(*host, 0.5) << suite;
  }
  EXPECT_FALSE(run_to_run_allowance("some_other_suite", "host"));
  EXPECT_DOUBLE_EQ(*run_to_run_allowance("fusion", "host"), 0.10);
}

TEST(RunToRunAllowance, AStepInsideTheAllowanceWithoutHistoryIsInconclusiveWithTheReason) {
  const Entry e = judged("fusion/x/device:host", 0.95, std::nullopt);
  EXPECT_LT(e.ci_high, 1.0) << e.reason;  // the within-run interval alone would flag it
  EXPECT_EQ(e.verdict, Verdict::inconclusive) << e.reason;
  ASSERT_TRUE(e.held_by_allowance);
  EXPECT_DOUBLE_EQ(*e.held_by_allowance, 0.10);
  EXPECT_NE(e.reason.find("within fusion's run-to-run allowance of 10% (fewer than 3 runs of "
                          "history: 0)"),
            std::string::npos)
      << e.reason;
  // The text "why" column says the same, not "the interval crosses the threshold".
  const std::string why = plain_why(e, 0.99);
  EXPECT_NE(why.find("run-to-run allowance of 10%"), std::string::npos) << why;
  EXPECT_EQ(why.find("crosses"), std::string::npos) << why;
}

TEST(RunToRunAllowance, ImprovementsAndGpuSeriesUseTheirOwnColumn) {
  // fusion GPU series: 8% (the H200 A/A, compare/README.md). +6% is held back, +9.5% is not.
  EXPECT_EQ(judged("fusion/x/device:0", 1.06, 0).verdict, Verdict::inconclusive);
  EXPECT_EQ(judged("fusion/x/device:0", 1.095, 0).verdict, Verdict::improvement);
  // Host series of the same suite: 10%, so +9.5% is held back.
  EXPECT_EQ(judged("fusion/x/device:host", 1.095, std::nullopt).verdict, Verdict::inconclusive);
}

TEST(RunToRunAllowance, AStepBeyondTheAllowanceIsStillARegression) {
  const Entry e = judged("fusion/x/device:host", 0.80, std::nullopt);
  EXPECT_EQ(e.verdict, Verdict::regression) << e.reason;
  EXPECT_FALSE(e.held_by_allowance);
  EXPECT_EQ(e.reason.find("allowance"), std::string::npos) << e.reason;
}

TEST(RunToRunAllowance, ASuiteWithoutARowKeepsTheIntervalsVerdict) {
  EXPECT_EQ(judged("other/x/device:host", 0.95, std::nullopt).verdict, Verdict::regression);
}

TEST(RunToRunAllowance, ThreeRunsOfHistoryEndTheAllowance) {
  // A measured run-to-run sd of 0.1% over 3 runs: the history, not the allowance, speaks.
  HistoryNoise history;
  history[Key{"fusion", "fusion/x/device:host", "GB_per_s", "host"}] = {0.001, 3};
  Options o;
  o.history = &history;
  const Entry e = judged("fusion/x/device:host", 0.95, std::nullopt, o);
  EXPECT_EQ(e.verdict, Verdict::regression) << e.reason;
  EXPECT_FALSE(e.held_by_allowance);
}

TEST(RunToRunAllowance, OnlySeriesWithoutRunToRunNoiseQualify) {
  Entry e;
  EXPECT_TRUE(lacks_run_to_run_noise(e));
  e.history = SeriesNoise{0.01, 2};  // two runs: not yet a measurement
  EXPECT_TRUE(lacks_run_to_run_noise(e));
  e.history = SeriesNoise{0.01, k_min_history_runs};
  EXPECT_FALSE(lacks_run_to_run_noise(e));
  e.history.reset();
  e.base.per_run = e.candidate.per_run = true;  // sides of >= 3 runs: per-run medians
  EXPECT_FALSE(lacks_run_to_run_noise(e));
  e.candidate.per_run = false;
  EXPECT_TRUE(lacks_run_to_run_noise(e));
}

}  // namespace gpubench::compare
