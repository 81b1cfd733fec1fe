// compare/changepoints: E-divisive change points (issue 25). Otava's test data and expected
// indexes (tests/analysis_test.py, change_point_divisive_test.py, tigerbeetle_test.py of
// github.com/apache/otava) pin the method; seeded FIXTURE series pin gpubench's detector.
#include "compare/stats/changepoints.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "otava_fixture.hpp"

namespace gpubench::compare {
namespace {

std::vector<std::size_t> indexes(const std::vector<ChangePoint>& points) {
  std::vector<std::size_t> out;
  for (const ChangePoint& p : points) out.push_back(p.index);
  return out;
}

// FIXTURE (Otava tests/analysis_test.py): a halving at index 10.
const std::vector<double> k_otava_single = {1.02, 0.95, 0.99, 1.00, 1.12, 1.00, 1.01,
                                            0.98, 1.01, 0.96, 0.50, 0.51, 0.48, 0.48,
                                            0.55, 0.50, 0.49, 0.51, 0.50, 0.49};
// FIXTURE (Otava tests/change_point_divisive_test.py): levels 0, 99, 149; changes at 5 and 8.
const std::vector<double> k_otava_sequence = {0.3,  2.4,   1.5,   -0.9,  -0.5,  99.7,  98.3,
                                              99.1, 149.0, 149.7, 149.5, 149.1, 148.8, 150.0};

TEST(OtavaParity, SingleSeriesSplitMerge) {
  EXPECT_EQ(indexes(otava_change_points(k_otava_single, 10, 0.0001)),
            (std::vector<std::size_t>{10}));
}

TEST(OtavaParity, DivisiveTTest) {
  EXPECT_EQ(indexes(e_divisive_ttest(k_otava_sequence, 0.01)), (std::vector<std::size_t>{5, 8}));
}

TEST(OtavaParity, DivisivePermutation) {
  // Otava: 100 permutations, p <= 0.01 gives [5, 8]. Our p is (1 + extreme) / (1 + permutations),
  // so its floor is 1/101 ~ 0.0099: the same level is reachable.
  ChangePointOptions o;
  o.max_pvalue = 0.01;
  o.permutations = 100;
  o.min_segment = 1;
  o.min_magnitude = 0;
  o.scale = ValueScale::linear;
  o.short_interval_ttest = false;  // the permutation test itself, however short
  const auto points = detect_change_points(k_otava_sequence, o);
  EXPECT_EQ(indexes(points), (std::vector<std::size_t>{5, 8}));
  for (const ChangePoint& p : points) EXPECT_TRUE(p.by_permutation);
  // Otava's test_single_series_original asks p <= 0.0001 of 100 permutations (its p can be 0);
  // ours needs 9999 permutations to reach that level.
  o.max_pvalue = 0.0001;
  o.permutations = 9999;
  EXPECT_EQ(indexes(detect_change_points(k_otava_single, o)), (std::vector<std::size_t>{10}));
}

TEST(OtavaParity, TTestStats) {
  // Otava test_significance_tester: equal halves p ~ 1, a 20% drop p < 0.001.
  const std::vector<double> same = {1.00, 1.02, 1.05, 0.95, 0.98, 1.00, 1.02, 1.05, 0.95, 0.98};
  const auto s = two_sample_stats(std::span(same).first(5), std::span(same).subspan(5));
  EXPECT_GT(s.p_value, 0.99);
  const std::vector<double> drop = {1.00, 1.02, 1.05, 0.95, 0.98, 0.80, 0.82, 0.85, 0.79, 0.77};
  const auto d = two_sample_stats(std::span(drop).first(5), std::span(drop).subspan(5));
  EXPECT_GT(d.p_value, 0.0);
  EXPECT_LT(d.p_value, 0.001);
}

struct TigerbeetleCase {
  double max_pvalue;
  double min_magnitude;
  std::vector<std::size_t> expected;  // Otava's assertion
};

TEST(OtavaParity, Tigerbeetle) {
  const std::vector<TigerbeetleCase> cases = {
      {0.01, 0.05, {15, 71}},
      {0.05, 0.05, {15, 71}},
      {0.1, 0.05, {10, 11, 15, 71, 363}},
      {0.2, 0.05, {10, 11, 15, 71}},
      {0.1, 0.0, {3,   6,   10,  11,  15,  16,  28,  29,  35,  37,  39,  41,
                  44,  48,  49,  61,  71,  95,  117, 131, 142, 148, 165, 169,
                  192, 206, 212, 260, 265, 268, 278, 282, 288, 305, 363}},
      {0.01, 0.0, {15, 26, 61, 71, 95, 117, 131, 142, 148, 165, 169, 192, 212, 260}},
      {0.001, 0.0, {15, 61, 71, 95, 117, 131, 142, 148, 192, 212, 260}},
      {0.0001, 0.0, {71, 95, 117, 131, 142, 148, 192, 212}},
      {0.00001, 0.0, {71, 95, 131, 192, 212}},
  };
  for (const auto& c : cases) {
    const auto found = indexes(
        otava_change_points(test::otava_tigerbeetle_series(), 30, c.max_pvalue, c.min_magnitude));
    EXPECT_EQ(found, c.expected) << "p " << c.max_pvalue << " magnitude " << c.min_magnitude;
  }
}

// FIXTURE: `runs` per-run log medians around log(100) with `noise_sd` run-to-run noise (normal,
// Box-Muller on mt19937_64 so every platform draws the same), times `step` from index `at` on.
std::vector<double> fixture_log_medians(uint64_t seed, std::size_t runs, double noise_sd,
                                        std::size_t at = 0, double step = 1.0) {
  std::mt19937_64 rng(seed);
  auto uniform = [&] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; };
  std::vector<double> out;
  for (std::size_t i = 0; i < runs; ++i) {
    const double z =
        std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform());
    out.push_back(std::log(100.0) + noise_sd * z + (i >= at && at > 0 ? std::log(step) : 0.0));
  }
  return out;
}

TEST(ChangePoints, StepOfMinus6PercentAtRun41) {
  // 60 runs, -6% from run 41 (index 40), 1% noise: exactly one change point, at index 40, for
  // every one of 20 seeds.
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const auto series = fixture_log_medians(seed, 60, 0.01, 40, 0.94);
    const auto points = detect_change_points(series);
    ASSERT_EQ(indexes(points), (std::vector<std::size_t>{40})) << "seed " << seed;
    EXPECT_NEAR(std::exp(points[0].stats.mean_after - points[0].stats.mean_before), 0.94, 0.01);
    EXPECT_LE(points[0].stats.p_value, 0.001);
  }
}

TEST(ChangePoints, AANoFalseChangePoints) {
  // 100 seeded A/A series of 60 runs with 1% noise: at most one change point in total.
  std::size_t total = 0;
  for (uint64_t seed = 1000; seed < 1100; ++seed) {
    total += detect_change_points(fixture_log_medians(seed, 60, 0.01)).size();
  }
  EXPECT_LE(total, 1u);
}

TEST(ChangePoints, AAWithoutMagnitudeFloorStillControlled) {
  // Without the delta floor the permutation test alone holds the false rate near max_pvalue.
  ChangePointOptions o;
  o.min_magnitude = 0;
  std::size_t total = 0;
  for (uint64_t seed = 1000; seed < 1100; ++seed) {
    total += detect_change_points(fixture_log_medians(seed, 60, 0.01), o).size();
  }
  EXPECT_LE(total, 1u);
}

TEST(ChangePoints, ShortSeriesUseTheCorrectedTTest) {
  // 6 runs then 6 at x1.3 with 3% noise: no permutation of 12 values reaches p <= 0.001; the
  // Bonferroni-corrected t-test finds the change at the 7th run.
  const auto series = fixture_log_medians(5, 12, 0.03, 6, 1.3);
  const auto points = detect_change_points(series);
  ASSERT_EQ(indexes(points), (std::vector<std::size_t>{6}));
  EXPECT_FALSE(points[0].by_permutation);
  ChangePointOptions o;
  o.short_interval_ttest = false;
  EXPECT_TRUE(detect_change_points(series, o).empty());
  // ... and keeps A/A series of 12 runs quiet: 100 seeded series, 3% noise, at most 1 in total.
  std::size_t total = 0;
  for (uint64_t seed = 2000; seed < 2100; ++seed) {
    total += detect_change_points(fixture_log_medians(seed, 12, 0.03)).size();
  }
  EXPECT_LE(total, 1u);
}

TEST(ChangePoints, MagnitudeFloorDropsSmallSteps) {
  // A real 1.5% step on 0.2% noise is significant but below the default delta of 2%.
  const auto series = fixture_log_medians(7, 40, 0.002, 20, 0.985);
  EXPECT_TRUE(detect_change_points(series).empty());
  ChangePointOptions o;
  o.min_magnitude = 0.01;
  EXPECT_EQ(indexes(detect_change_points(series, o)), (std::vector<std::size_t>{20}));
}

TEST(ChangePoints, MinSegmentKeepsShortTailsOut) {
  // A step in the last two runs: min_segment 3 cannot split there, min_segment 2 can.
  const auto series = fixture_log_medians(3, 30, 0.005, 28, 0.7);
  ChangePointOptions o;
  o.permutations = 9999;
  o.max_pvalue = 0.01;
  for (std::size_t index : indexes(detect_change_points(series, o))) EXPECT_NE(index, 28u);
  o.min_segment = 2;
  EXPECT_EQ(indexes(detect_change_points(series, o)), (std::vector<std::size_t>{28}));
}

TEST(ChangePoints, SeededAndDeterministic) {
  const auto series = fixture_log_medians(11, 50, 0.01, 25, 0.97);
  ChangePointOptions o;
  o.min_magnitude = 0;
  o.max_pvalue = 0.05;
  o.permutations = 199;
  const auto a = detect_change_points(series, o);
  const auto b = detect_change_points(series, o);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].stats.p_value, b[i].stats.p_value);
}

}  // namespace
}  // namespace gpubench::compare
