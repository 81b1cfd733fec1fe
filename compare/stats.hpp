// Statistics behind compare/accept (DESIGN.md "Statistics", METHODOLOGY rules 15-17).
// Pure functions over samples: no database, no I/O. Inputs are samples (one per repetition);
// empty or too-short inputs give NaN figures rather than throwing, so callers can say
// "too few samples" instead of guessing.
#pragma once

#include <cstddef>
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

// Regularised incomplete beta I_x(a, b) (continued fraction, Numerical Recipes 6.4).
double incomplete_beta(double a, double b, double x);
// Student t distribution with `df` (> 0, may be fractional) degrees of freedom.
double student_t_cdf(double t, double df);
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

// Ratio candidate/base of medians with a confidence interval from Welch's t on log values:
// log(ratio) = log(median(cand)) - log(median(base)), interval = exp(log(ratio) +- t_q * se)
// where se and df come from Welch on the logs (the spread of the log samples is the noise).
// p_value is Welch's two-sided p on the log values. Values must be > 0.
struct RatioEstimate {
  double ratio = 1;  // median(candidate) / median(base)
  double ci_low = 0;
  double ci_high = 0;
  double p_value = 1;
  double df = 0;
  bool valid = false;  // false when a side has < 2 samples or a non-positive value
};
RatioEstimate ratio_of_medians(std::span<const double> base, std::span<const double> candidate,
                               double confidence = 0.99);

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
