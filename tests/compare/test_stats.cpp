// Reference values computed with scipy 1.17.1 (independent implementation), script:
//   import numpy as np; from scipy import stats, special
//   x=[10.1,10.3,9.9,10.0,10.2,10.4]; y=[10.9,11.2,10.8,11.0,11.3,10.7,11.1]
//   stats.ttest_ind(x,y,equal_var=False)                  # welch
//   stats.t.ppf(0.995,8); stats.t.ppf(0.975,3.7); stats.t.cdf(1.5,4.5); stats.t.ppf(0.995,2)
//   special.betainc(2.5,0.5,0.3); stats.norm.ppf(0.995)
//   a=[1,2,2,3,4,5,5,5]; b=[3,4,5,6,6,7,8]
//   stats.mannwhitneyu(a,b,method='asymptotic',use_continuity=True,alternative='two-sided')
//   stats.false_discovery_control([0.01,0.04,0.03,0.005,0.5])
//   stats.median_abs_deviation([1,2,3,4,100], scale='normal') / 3     # robust CV
//   # ratio interval: logs, Welch se/df, exp(log(median(y)/median(x)) +- t.ppf(0.995,df)*se)
//   # geomean: l=np.log([1.05,0.98,1.10,1.02]); exp(l.mean() +- t.ppf(0.995,3)*l.std(ddof=1)/2)
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compare/stats/stats.hpp"

namespace gc = gpubench::compare;

namespace {
const std::vector<double> k_x = {10.1, 10.3, 9.9, 10.0, 10.2, 10.4};
const std::vector<double> k_y = {10.9, 11.2, 10.8, 11.0, 11.3, 10.7, 11.1};
}  // namespace

TEST(Stats, MedianMeanCv) {
  EXPECT_DOUBLE_EQ(gc::median(k_x), 10.15);
  EXPECT_DOUBLE_EQ(gc::median(k_y), 11.0);
  EXPECT_TRUE(std::isnan(gc::median(std::vector<double>{})));
  EXPECT_DOUBLE_EQ(gc::mean(std::vector<double>{1, 2, 3, 4}), 2.5);
  // sd of {1,2,3,4} = sqrt(5/3) (n-1 denominator); CV = sd / mean.
  EXPECT_NEAR(gc::coefficient_of_variation(std::vector<double>{1, 2, 3, 4}),
              std::sqrt(5.0 / 3.0) / 2.5, 1e-12);
  EXPECT_TRUE(std::isnan(gc::coefficient_of_variation(std::vector<double>{1})));
  EXPECT_NEAR(gc::robust_cv(std::vector<double>{1, 2, 3, 4, 100}), 0.4942007395018673, 1e-12);
}

TEST(Stats, IncompleteBetaAndStudentT) {
  EXPECT_NEAR(gc::incomplete_beta(2.5, 0.5, 0.3), 0.018927124071945658, 1e-12);
  EXPECT_NEAR(gc::student_t_quantile(0.995, 8), 3.355387331333395, 1e-9);
  EXPECT_NEAR(gc::student_t_quantile(0.975, 3.7), 2.8675207071911895, 1e-9);
  EXPECT_NEAR(gc::student_t_quantile(0.995, 2), 9.924843200918287, 1e-8);
  EXPECT_NEAR(gc::student_t_quantile(0.005, 8), -3.355387331333395, 1e-9);
  EXPECT_NEAR(gc::student_t_cdf(1.5, 4.5), 0.8998904571719233, 1e-12);
  EXPECT_NEAR(gc::normal_quantile(0.995), 2.5758293035489004, 1e-9);
}

TEST(Stats, WelchMatchesScipy) {
  gc::WelchResult w = gc::welch_t_test(k_y, k_x);  // scipy's t is mean(x)-mean(y) ordering
  ASSERT_TRUE(w.valid);
  EXPECT_NEAR(w.t, -7.602631123499279, 1e-9);
  EXPECT_NEAR(w.df, 10.993485342019545, 1e-9);
  EXPECT_NEAR(w.p_value, 1.0604165382068855e-05, 1e-12);
  EXPECT_FALSE(gc::welch_t_test(std::vector<double>{1}, k_x).valid);
}

TEST(Stats, RatioOfMediansInterval) {
  gc::RatioEstimate r = gc::ratio_of_medians(k_x, k_y, 0.99);
  ASSERT_TRUE(r.valid);
  EXPECT_NEAR(r.ratio, 1.0837438423645323, 1e-12);
  EXPECT_NEAR(r.ci_low, 1.0486614788075819, 1e-9);
  EXPECT_NEAR(r.ci_high, 1.1199998661136559, 1e-9);
  EXPECT_NEAR(r.p_value, 1.1236491409410719e-05, 1e-11);
  EXPECT_NEAR(r.df, 10.880128404509206, 1e-9);
  // Non-positive values have no log: not valid, never a made-up figure.
  EXPECT_FALSE(gc::ratio_of_medians(std::vector<double>{0, 1}, k_y).valid);
}

// Tails: scipy 1.17.1, 2 * stats.t.sf(t, df). The old 1 - cdf printed 0 below ~1e-16.
TEST(Stats, TwoSidedTTailsAreAccurateDownTo1e300) {
  struct Case {
    double t, df, p;
  };
  for (const Case& c : std::vector<Case>{{10, 5, 0.00017094757574296363},
                                         {8, 3.7, 0.0018250909626747335},
                                         {5, 2, 0.037749551350623724},
                                         {40, 8, 1.6785718879145792e-10},
                                         {1e3, 4.5, 3.319854052401165e-13},
                                         {100, 10, 2.44968955541983e-16},
                                         {30, 30, 6.25179163060889e-24},
                                         {150, 100, 1.5717245073714075e-119},
                                         {1e5, 60, 2.267735476870932e-248},
                                         {1e5, 71, 4.948265609251739e-291},
                                         {2e5, 68, 6.597088252572617e-300}}) {
    double p = gc::student_t_two_sided_p(c.t, c.df);
    EXPECT_NEAR(p / c.p, 1.0, 1e-6) << "t=" << c.t << " df=" << c.df << " p=" << p;
    EXPECT_DOUBLE_EQ(gc::student_t_two_sided_p(-c.t, c.df), p);  // two-sided: symmetric
  }
}

// Yuen's trimmed test on logs, against scipy 1.17.1:
//   x=np.log([10.1,10.3,9.9,10.0,10.2,10.4,13.0,10.05,9.95,10.15])
//   y=np.log([10.9,11.2,10.8,11.0,11.3,10.7,11.1,10.95,30.0,11.05])
//   stats.ttest_ind(y,x,equal_var=False,trim=0.2)   # t, p, df
//   exp(d +- t.ppf(0.995,df)*se), d = trim_mean(y,.2) - trim_mean(x,.2), se = d / t
TEST(Stats, LogRatioEstimateIsYuenOnLogs) {
  std::vector<double> x = {10.1, 10.3, 9.9, 10.0, 10.2, 10.4, 13.0, 10.05, 9.95, 10.15};
  std::vector<double> y = {10.9, 11.2, 10.8, 11.0, 11.3, 10.7, 11.1, 10.95, 30.0, 11.05};
  gc::LogRatioEstimate r = gc::log_ratio_estimate(x, y);
  ASSERT_TRUE(r.valid);
  EXPECT_NEAR(r.ratio, 1.0888238316227588, 1e-12);
  EXPECT_NEAR(r.ci_low, 1.0567233227627897, 1e-9);
  EXPECT_NEAR(r.ci_high, 1.1218994705351004, 1e-9);
  EXPECT_NEAR(r.p_value / 4.235924285247464e-06, 1.0, 1e-6);
  EXPECT_NEAR(r.df, 9.928684486557067, 1e-9);
  // Interval and test are one statistic: p < 0.01 exactly when the 99% interval excludes 1.
  EXPECT_LT(r.p_value, 0.01);
  EXPECT_GT(r.ci_low, 1.0);
  // Below 8 samples a side nothing is trimmed: Welch on the logs (the ratio of geometric means).
  gc::LogRatioEstimate w = gc::log_ratio_estimate(k_x, k_y);
  double gm_x = 0, gm_y = 0;
  for (double v : k_x) gm_x += std::log(v) / static_cast<double>(k_x.size());
  for (double v : k_y) gm_y += std::log(v) / static_cast<double>(k_y.size());
  EXPECT_NEAR(w.ratio, std::exp(gm_y - gm_x), 1e-12);
  // Extra (run-to-run) variance widens the interval and lowers the df toward its own.
  gc::LogRatioOptions o;
  o.extra_variance = 0.01 * 0.01;
  o.extra_df = 4;
  gc::LogRatioEstimate h = gc::log_ratio_estimate(x, y, o);
  EXPECT_NEAR(h.std_error * h.std_error, r.std_error * r.std_error + 1e-4, 1e-15);
  EXPECT_LT(h.ci_low, r.ci_low);
  EXPECT_GT(h.ci_high, r.ci_high);
  EXPECT_DOUBLE_EQ(h.ratio, r.ratio);
  EXPECT_FALSE(gc::log_ratio_estimate(std::vector<double>{0, 1, 2}, y).valid);
}

TEST(Stats, MannWhitneyWithTies) {
  std::vector<double> a = {1, 2, 2, 3, 4, 5, 5, 5};
  std::vector<double> b = {3, 4, 5, 6, 6, 7, 8};
  gc::MannWhitneyResult m = gc::mann_whitney_u(a, b);
  ASSERT_TRUE(m.valid);
  EXPECT_DOUBLE_EQ(m.u, 9.5);
  EXPECT_NEAR(m.p_value, 0.03489001932168141, 1e-12);
  // All tied: no information.
  EXPECT_FALSE(gc::mann_whitney_u(std::vector<double>{1, 1}, std::vector<double>{1, 1}).valid);
}

TEST(Stats, BenjaminiHochberg) {
  std::vector<double> q = gc::benjamini_hochberg(std::vector<double>{0.01, 0.04, 0.03, 0.005, 0.5});
  std::vector<double> expected = {0.025, 0.05, 0.05, 0.025, 0.5};
  ASSERT_EQ(q.size(), expected.size());
  for (std::size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(q[i], expected[i], 1e-12) << i;
}

TEST(Stats, GeometricMeanOfRatios) {
  gc::GeoMean g = gc::geometric_mean_ratio(std::vector<double>{1.05, 0.98, 1.10, 1.02});
  EXPECT_NEAR(g.value, 1.0365781686197846, 1e-12);
  EXPECT_NEAR(g.ci_low, 0.8992681521367363, 1e-9);
  EXPECT_NEAR(g.ci_high, 1.1948541679209461, 1e-9);
  gc::GeoMean one = gc::geometric_mean_ratio(std::vector<double>{1.2}, 0.99, 1.1, 1.3);
  EXPECT_DOUBLE_EQ(one.ci_low, 1.1);
  EXPECT_DOUBLE_EQ(one.ci_high, 1.3);
}

TEST(Stats, MinimumDetectableEffect) {
  // t_{0.995,8} * sqrt(2/5) = 2.1221 and t_{0.995,4} * sqrt(2/3) = 3.7592 (scipy): the smallest
  // change (in CVs) whose 99% interval excludes zero. METHODOLOGY rule 17 quotes 2.7x / 4.5x,
  // which also budgets for power; either way 3 samples need a much bigger effect than 5.
  EXPECT_NEAR(gc::minimum_detectable_effect(5, 5, 1.0, 0.01), 2.1221332798175183, 1e-9);
  EXPECT_NEAR(gc::minimum_detectable_effect(3, 3, 1.0, 0.01), 3.759227720724147, 1e-9);
  EXPECT_TRUE(std::isnan(gc::minimum_detectable_effect(1, 5, 0.01)));
}

// Issue 23: tied, coarsely rounded samples (whole units). Trimming leaves all 20s against all 21s,
// whose variance is 0; the estimate used to report +5.00% with the interval [+5.00%, +5.00%] and
// p = 0. The data's resolution (1 unit: a log gap of log(21/20)) floors each side's spread.
TEST(Stats, TiedSamplesNeverGiveAZeroWidthInterval) {
  std::vector<double> base(8, 20.0);
  base.insert(base.end(), 2, 21.0);
  std::vector<double> cand(1, 20.0);
  cand.insert(cand.end(), 9, 21.0);
  EXPECT_NEAR(gc::log_resolution(base, cand), std::log(21.0 / 20.0), 1e-12);
  gc::LogRatioEstimate r = gc::log_ratio_estimate(base, cand);
  ASSERT_TRUE(r.valid);
  EXPECT_NEAR(r.ratio, 1.05, 1e-12);
  EXPECT_LT(r.ci_low, 1.05 - 0.005);
  EXPECT_GT(r.ci_high, 1.05 + 0.005);
  EXPECT_GT(r.p_value, 0.0);
  // The floor: each side's 6 trimmed values carry (n - 1) (r^2 / 12) / (h (h - 1)).
  const double floor = std::pow(std::log(1.05), 2) / 12.0 * 9.0 / 30.0;
  EXPECT_NEAR(r.var_base, floor, 1e-15);
  EXPECT_NEAR(r.var_candidate, floor, 1e-15);
  // The same rule in accept's estimator.
  gc::RatioEstimate m = gc::ratio_of_medians(base, cand);
  ASSERT_TRUE(m.valid);
  EXPECT_LT(m.ci_low, m.ci_high);
  EXPECT_GT(m.p_value, 0.0);
}

TEST(Stats, IdenticalConstantsGetTheWidthOfTheirLastDecimalPlace) {
  // Every value 20 on both sides: no gap, so the resolution is the last written place (1 unit).
  const std::vector<double> same(10, 20.0);
  EXPECT_NEAR(gc::log_resolution(same, same), std::log1p(1.0 / 20.0), 1e-12);
  gc::LogRatioEstimate r = gc::log_ratio_estimate(same, same);
  ASSERT_TRUE(r.valid);
  EXPECT_DOUBLE_EQ(r.ratio, 1.0);
  EXPECT_LT(r.ci_low, 1.0);
  EXPECT_GT(r.ci_high, 1.0);
  EXPECT_NEAR(gc::log_resolution(std::vector<double>(4, 1.25), {}), std::log1p(0.01 / 1.25), 1e-12);
}

TEST(Stats, ContinuousSamplesAreNotWidenedByTheResolutionFloor) {
  const std::vector<double> x = {10.1, 10.3, 9.9, 10.0, 10.2, 10.4};
  const std::vector<double> y = {10.9, 11.2, 10.8, 11.0, 11.3, 10.7, 11.1};
  gc::LogRatioEstimate r = gc::log_ratio_estimate(x, y);
  std::vector<double> lx, ly;
  for (double v : x) lx.push_back(std::log(v));
  for (double v : y) ly.push_back(std::log(v));
  EXPECT_NEAR(r.var_base, std::pow(gc::stddev(lx), 2) / 6.0, 1e-15);
  EXPECT_NEAR(r.var_candidate, std::pow(gc::stddev(ly), 2) / 7.0, 1e-15);
}
