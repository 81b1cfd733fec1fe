// Two levels of noise: executions within runs (compare/stats/executions.hpp, issue 35). Each rule
// has a test that fails when the rule is taken out.
#include <gtest/gtest.h>

#include <boost/math/special_functions/trigamma.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "compare/stats/executions.hpp"

namespace gpubench::compare {
namespace {

TEST(Executions, AnExecutionIsTheMedianOfItsLogsBelowEightValues) {
  // One 3x outlier of three repetitions leaves the median; the mean of logs would move by log(3)/3.
  EXPECT_DOUBLE_EQ(execution_log_mean(std::vector<double>{10, 10.5, 30}), std::log(10.5));
  // Eight or more: the 20% trimmed mean of the logs, as log_ratio_estimate trims a side.
  std::vector<double> eight = {1, 2, 3, 4, 5, 6, 7, 1000};
  std::vector<double> logs;
  for (double v : eight) logs.push_back(std::log(v));
  EXPECT_DOUBLE_EQ(execution_log_mean(eight), trimmed_summary(logs, 0.2).mean);
  EXPECT_TRUE(std::isnan(execution_log_mean(std::vector<double>{1, -2, 3})));
  EXPECT_TRUE(std::isnan(execution_log_mean(std::vector<double>{})));
}

TEST(Executions, PooledVarianceOfExecutionMeans) {
  // Base means {0, 0.02, 0.04}: ss 0.0008 on 2 df; candidate {0.1, 0.1}: ss 0 on 1 df.
  const ExecutionVariance v = pooled_execution_variance(std::vector<double>{0, 0.02, 0.04},
                                                        std::vector<double>{0.1, 0.1});
  EXPECT_DOUBLE_EQ(v.df, 3);
  EXPECT_NEAR(v.variance, 0.0008 / 3, 1e-15);
  // The floor holds tied executions away from a zero variance.
  EXPECT_DOUBLE_EQ(pooled_execution_variance(std::vector<double>{1, 1}, std::vector<double>{1, 1},
                                             1e-6)
                       .variance,
                   1e-6);
  // One execution a side: no between-execution variance at all.
  EXPECT_EQ(pooled_execution_variance(std::vector<double>{1}, std::vector<double>{2}).df, 0);
}

TEST(Executions, TrigammaInverse) {
  for (double y : {0.3, 1.0, 2.5, 10.0, 400.0}) {
    EXPECT_NEAR(trigamma_inverse(boost::math::trigamma(y)), y, 1e-6 * y) << y;
  }
}

// Variances drawn as s0^2 chi2(d0)/d0 -- the prior -- then each series' s^2 as its variance times
// chi2(d)/d: the moments estimator must find d0 and s0^2 again.
TEST(Executions, PriorRecoversItsParameters) {
  std::mt19937_64 rng(7);
  const double s0 = 0.0004, d0 = 12, d = 4;
  std::chi_squared_distribution<double> prior_chi(d0), own_chi(d);
  std::vector<ExecutionVariance> series;
  for (int i = 0; i < 4000; ++i) {
    const double sigma2 = s0 * d0 / prior_chi(rng);  // scaled inverse chi-square: limma's prior
    series.push_back({sigma2 * own_chi(rng) / d, d});
  }
  const ExecutionPrior p = estimate_execution_prior(series);
  EXPECT_EQ(p.series, 4000u);
  EXPECT_NEAR(p.d0, d0, 3.0);
  EXPECT_NEAR(p.s0_squared, s0, 0.1 * s0);
  // Variances that agree beyond sampling: an infinite prior, every series takes s0^2.
  std::vector<ExecutionVariance> same(10, ExecutionVariance{0.001, 4});
  const ExecutionPrior inf = estimate_execution_prior(same);
  EXPECT_TRUE(std::isinf(inf.d0));
  EXPECT_NEAR(inf.s0_squared, 0.001, 1e-12);
  // Fewer than three series: no prior.
  EXPECT_EQ(estimate_execution_prior(std::vector<ExecutionVariance>(2, {0.001, 4})).d0, 0);
}

TEST(Executions, ModeratedBetweenOwnAndPriorUnlessClearlyLarger) {
  const ExecutionPrior prior{0.001, 12, 20};
  const ModeratedVariance m = moderate({0.0015, 4}, prior);
  EXPECT_FALSE(m.own);
  EXPECT_DOUBLE_EQ(m.df, 16);
  EXPECT_NEAR(m.variance, (12 * 0.001 + 4 * 0.0015) / 16, 1e-15);
  // 20x the prior on 4 df: clearly larger (F(4, 12) tail far below 1%), so it keeps its own, and
  // a noisy series is not pulled down to its neighbours.
  const ModeratedVariance noisy = moderate({0.02, 4}, prior);
  EXPECT_TRUE(noisy.own);
  EXPECT_DOUBLE_EQ(noisy.variance, 0.02);
  EXPECT_DOUBLE_EQ(noisy.df, 4);
  // With the rule off (clearly = 0) the same series would be shrunk: the rule is what keeps it.
  EXPECT_LT(moderate({0.02, 4}, prior, 0.0).variance, 0.01);
}

// The suite's execution effect is seen once per execution, however many series see it: its
// variance keeps the executions' degrees of freedom. Pooling the whole variance over the series
// (the rule removed) would claim ~ 20 x 4 df for it.
TEST(Executions, SharedExecutionEffectKeepsTheExecutionsDegreesOfFreedom) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> tiny(0.0, 0.0005);
  SuiteExecutionMeans suite;
  const std::vector<double> base_effect = {0.0, 0.05, -0.05};  // one slow and one fast process
  const std::vector<double> cand_effect = {0.03, -0.03, 0.0};
  for (int s = 0; s < 20; ++s) {
    std::vector<double> b, c;
    for (double e : base_effect) b.push_back(s + e + tiny(rng));
    for (double e : cand_effect) c.push_back(s + e + tiny(rng));
    suite.base.push_back(b);
    suite.candidate.push_back(c);
  }
  const std::vector<SeriesExecutionNoise> noise = execution_noise(suite);
  ASSERT_EQ(noise.size(), 20u);
  for (const SeriesExecutionNoise& n : noise) {
    EXPECT_DOUBLE_EQ(n.shared_df, 4);
    EXPECT_NEAR(n.shared, (0.0025 * 2 + 0.0009 * 2) / 4, 2e-4);
    EXPECT_LT(n.own, 1e-5);
    EXPECT_LT(n.df, 4.5);  // the shared part dominates: about its own 4 df
    EXPECT_GT(n.variance, n.shared);
  }
  // The estimate it gives: no change, and an interval as wide as 4 df make it.
  const LogRatioEstimate r =
      two_level_estimate(suite.base[0], suite.candidate[0], noise[0].variance, noise[0].df);
  ASSERT_TRUE(r.valid);
  EXPECT_GT(r.p_value, 0.5);
  EXPECT_GT(r.ci_high / r.ci_low, 1.1);
}

TEST(Executions, FewerThanThreeSeriesKeepTheirOwnVariance) {
  SuiteExecutionMeans suite;
  suite.base = {{0.0, 0.02, 0.04}, {1.0, 1.0, 1.0}};
  suite.candidate = {{0.1, 0.1, 0.1}, {1.0, 1.02, 1.04}};
  const std::vector<SeriesExecutionNoise> noise = execution_noise(suite);
  ASSERT_EQ(noise.size(), 2u);
  EXPECT_DOUBLE_EQ(noise[0].shared, 0);
  EXPECT_DOUBLE_EQ(noise[0].df, 4);
  EXPECT_NEAR(noise[0].variance, 0.0008 / 4, 1e-15);
  EXPECT_FALSE(noise[0].own_moderated);
}

TEST(Executions, EstimateIsOneTStatistic) {
  // Means 0, 0, 0 against log 1.1 each: t = log(1.1) / sqrt(v (1/3 + 1/3)).
  const double v = 0.0009, df = 8;
  const std::vector<double> base = {-0.01, 0.0, 0.01};
  const std::vector<double> cand = {std::log(1.1) - 0.01, std::log(1.1), std::log(1.1) + 0.01};
  const LogRatioEstimate r = two_level_estimate(base, cand, v, df);
  ASSERT_TRUE(r.valid);
  EXPECT_NEAR(r.ratio, 1.1, 1e-12);
  const double se = std::sqrt(v * 2.0 / 3.0);
  EXPECT_NEAR(r.std_error, se, 1e-15);
  EXPECT_DOUBLE_EQ(r.df, df);
  EXPECT_NEAR(r.p_value, student_t_two_sided_p(std::log(1.1) / se, df), 1e-15);
  const double q = student_t_quantile(0.995, df);
  EXPECT_NEAR(std::log(r.ci_high), std::log(1.1) + q * se, 1e-12);
  // p < 0.01 exactly when the interval excludes 1.
  EXPECT_EQ(r.p_value < 0.01, r.ci_low > 1.0);
  // History's run noise widens it, with its own degrees of freedom.
  LogRatioOptions o;
  o.extra_variance = 0.002;
  o.extra_df = 9;
  const LogRatioEstimate h = two_level_estimate(base, cand, v, df, o);
  EXPECT_GT(h.ci_high, r.ci_high);
  EXPECT_LT(h.df, df + 9);
}

TEST(Executions, RunNoiseIsWhatHistoryHoldsBeyondOneRunsExecutions) {
  // History run means vary by 0.0005; one run's executions explain 0.0003 / 3 = 0.0001 of it.
  const RunNoise r = run_noise_from_history(0.0005, 10, 0.0003, 40, 3);
  EXPECT_NEAR(r.variance, 0.0004, 1e-15);
  EXPECT_LT(r.df, 9);  // a remainder is known worse than the history variance it comes from
  EXPECT_GT(r.df, 4);
  // History no noisier than the executions: no run noise on top.
  EXPECT_EQ(run_noise_from_history(0.00005, 10, 0.0003, 40, 3).variance, 0);
  // Fewer than 3 runs: none.
  EXPECT_EQ(run_noise_from_history(0.0005, 2, 0.0003, 40, 3).variance, 0);
}

}  // namespace
}  // namespace gpubench::compare

namespace gpubench::compare {
namespace {

// How many executions a side bring a series' minimum detectable effect under the threshold.
TEST(Executions, SizingFindsTheExecutionsForTheThreshold) {
  SeriesExecutionNoise noise;
  noise.shared = 0.0001;  // 1% sd shared by the suite
  noise.shared_df = 4;
  noise.own = 0.0003;
  noise.own_df = 40;
  noise.variance = 0.0004;  // 2% sd an execution
  noise.df = 0.0004 * 0.0004 / (0.0001 * 0.0001 / 4 + 0.0003 * 0.0003 / 40);
  const ExecutionSizing s = size_executions(noise, 3, 0.02);
  // With 3 a side: t(df 33.7) 2.73 x sqrt(2 x 0.0004 / 3) = 4.6%, above 2% (15 a side reach it).
  EXPECT_GT(s.mde, 0.04);
  EXPECT_LT(s.mde, 0.05);
  ASSERT_GT(s.executions_needed, 3u);
  // The answer is the fewest: one execution less does not reach 2%.
  const SeriesExecutionNoise& n = noise;
  EXPECT_LE(size_executions(n, s.executions_needed, 0.02).mde, 0.02);
  EXPECT_GT(size_executions(n, s.executions_needed - 1, 0.02).mde, 0.02);
  // A threshold nothing reaches within the bound: 0.
  EXPECT_EQ(size_executions(noise, 3, 0.0001, 0.99, 50).executions_needed, 0u);
}

}  // namespace
}  // namespace gpubench::compare
