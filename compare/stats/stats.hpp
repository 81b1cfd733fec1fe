// Statistics behind compare/accept (DESIGN.md "Statistics", METHODOLOGY rules 15-17).
// Pure functions over samples: no database, no I/O. Inputs are samples (one per repetition);
// empty or too-short inputs give NaN figures rather than throwing, so callers can say
// "too few samples" instead of guessing.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace gpubench::compare {

double median(std::span<const double> values);  // NaN when empty
double mean(std::span<const double> values);    // NaN when empty
// Sample standard deviation (n - 1 denominator); NaN with fewer than 2 values.
double stddev(std::span<const double> values);
// Coefficient of variation = sample sd / |mean|, as a fraction (0.02 = 2%); NaN with < 2 values.
double coefficient_of_variation(std::span<const double> values);

// Robust coefficient of variation: 1.4826 x median absolute deviation / |median| (the MAD scaled
// to estimate a normal sd, as scipy.stats.median_abs_deviation(scale="normal")). One outlier
// repetition barely moves it, unlike the sd. NaN with < 2 values.
double robust_cv(std::span<const double> values);

// Regularised incomplete beta I_x(a, b) (Boost.Math).
double incomplete_beta(double a, double b, double x);
// Student t distribution with `df` (> 0, may be fractional) degrees of freedom (Boost.Math).
double student_t_cdf(double t, double df);
// Two-sided p = 2 P(T > |t|), computed as a complement (the tail itself, never 1 - cdf): accurate
// to ~1e-15 relative down to the smallest normal double (scipy: 2 * t.sf(|t|, df)).
double student_t_two_sided_p(double t, double df);
double student_t_quantile(double p, double df);  // inverse of the cdf, p in (0, 1)
double normal_cdf(double z);
double normal_quantile(double p);

// Welch's unequal-variance t test of mean(y) - mean(x).
struct WelchResult {
  double t = 0;
  double df = 0;
  double p_value = 1;    // two-sided
  double diff = 0;       // mean(y) - mean(x)
  double std_error = 0;  // of diff
  bool valid = false;    // false with fewer than 2 samples a side
};
WelchResult welch_t_test(std::span<const double> x, std::span<const double> y);

// 20%-trimmed mean of `values` and the variance of that mean from the winsorised variance (Yuen
// 1974; Wilcox, "Introduction to Robust Estimation" 5.3): g = floor(trim x n) values are cut from
// each end, h = n - 2g remain, variance_of_mean = (n - 1) s_w^2 / (h (h - 1)), df = h - 1.
// With n < 5 nothing is trimmed (the plain mean and s^2 / n).
struct TrimmedSummary {
  std::size_t n = 0;
  std::size_t trimmed = 0;  // g, per end
  double mean = 0;
  double variance_of_mean = 0;
  double df = 0;  // 0 when fewer than 2 values remain
};
TrimmedSummary trimmed_summary(std::span<const double> values, double trim = 0.2);

// The resolution of the data on the log scale (compare/README.md "Ties and coarse values"): the
// smallest nonzero gap between distinct log values of `a` and `b` pooled; when every value is the
// same, the last decimal place the value is written to (20 -> 1, 1.25 -> 0.01), relative to it.
// 0 when neither gives one (non-positive values). The estimators hold each side's per-sample
// variance of the logs at least resolution^2 / 12 (the variance of a uniform rounding error), so
// tied or coarsely rounded samples never give a zero-width interval or p = 0.
double log_resolution(std::span<const double> a, std::span<const double> b);

// THE estimator of compare (compare/README.md "Method" has the simulation evidence): Yuen's
// trimmed-mean difference on log values. One statistic gives the point, the interval and p:
//   log_ratio = trimmed_mean(log candidate) - trimmed_mean(log base)
//   se^2 = var_base + var_candidate + extra_variance   (extra: run-to-run noise from history;
//          each side's per-sample variance at least log_resolution^2 / 12)
//   df   = Welch-Satterthwaite over the three components
//   interval = exp(log_ratio +- t_{(1+confidence)/2, df} se),  p = 2 P(T_df > |log_ratio / se|)
// so p < 1 - confidence exactly when the interval excludes 1. Trimming 20% a side keeps one or
// two wild repetitions out of both the point and the variance. Values must be > 0.
struct LogRatioOptions {
  double confidence = 0.99;
  double trim = 0.2;
  // Sides with fewer samples are not trimmed (Welch on logs): with 5 samples, trimming one a side
  // leaves 3 and 2 df, and costs more power than it buys (compare/README.md, simulation).
  std::size_t min_n_to_trim = 8;
  double extra_variance = 0;                                  // added to se^2, on the log scale
  double extra_df = std::numeric_limits<double>::infinity();  // degrees of freedom of that term
};
struct LogRatioEstimate {
  double log_ratio = 0;
  double ratio = 1;  // exp(log_ratio): ratio of the trimmed geometric means
  double ci_low = 0;
  double ci_high = 0;
  double half_width = 0;  // of the log interval
  double p_value = 1;
  double df = 0;
  double std_error = 0;  // of log_ratio
  double var_base = 0;
  double var_candidate = 0;
  double var_extra = 0;
  bool valid = false;  // false when a side has < 2 values or a non-positive value
};
LogRatioEstimate log_ratio_estimate(std::span<const double> base, std::span<const double> candidate,
                                    const LogRatioOptions& options = {});

// Older estimator, kept for `accept` (compare/accept/accept.cpp) until it moves to
// log_ratio_estimate: ratio candidate/base of medians with a confidence interval from Welch's t on
// log values: log(ratio) = log(median(cand)) - log(median(base)), interval = exp(log(ratio) +- t_q
// * se) where se and df come from Welch on the logs (the spread of the log samples is the noise).
// p_value is Welch's two-sided p on the log values. Values must be > 0.
struct RatioEstimate {
  double ratio = 1;  // median(candidate) / median(base)
  double ci_low = 0;
  double ci_high = 0;
  double p_value = 1;
  double df = 0;
  bool valid = false;  // false when a side has < 2 samples or a non-positive value
};
// `extra_variance` (log scale, with `extra_df` degrees of freedom) is added to se^2 as in
// log_ratio_estimate: run-to-run noise from history.
RatioEstimate ratio_of_medians(std::span<const double> base, std::span<const double> candidate,
                               double confidence = 0.99, double extra_variance = 0,
                               double extra_df = std::numeric_limits<double>::infinity());

// Mann-Whitney U (two-sided) with tie correction, normal approximation with continuity
// correction, as scipy.stats.mannwhitneyu(method="asymptotic", use_continuity=True).
struct MannWhitneyResult {
  double u = 0;        // U statistic of x
  double p_value = 1;  // two-sided
  bool valid = false;  // false when a side is empty or every value is tied
};
MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y);

// Benjamini-Hochberg adjusted p-values (q-values), in the input order, each <= 1.
std::vector<double> benjamini_hochberg(std::span<const double> p_values);

// Geometric mean of ratios with a t interval on the log ratios (n - 1 df). With one ratio the
// interval is that ratio's own (pass it via `single_low`/`single_high`).
struct GeoMean {
  double value = 1;
  double ci_low = 1;
  double ci_high = 1;
  std::size_t count = 0;
};
GeoMean geometric_mean_ratio(std::span<const double> ratios, double confidence = 0.99,
                             double single_low = 0, double single_high = 0);

// Smallest relative change (fraction) that a two-sided test at `alpha` can tell from noise
// with n_base and n_candidate samples and coefficient of variation `cv`:
//   t_{1-alpha/2, n_base+n_candidate-2} * sqrt(1/n_base + 1/n_candidate) * cv.
// NaN when a side has fewer than 2 samples.
double minimum_detectable_effect(std::size_t n_base, std::size_t n_candidate, double cv,
                                 double alpha = 0.01);

}  // namespace gpubench::compare
