// Two levels of noise (issue 35): samples within executions (one process of a suite) within runs.
// Repetitions inside one process share its clock state, buffer placement and machine load, so
// their spread understates what a second process sees. The unit of the interval is therefore the
// execution: each execution of a series is summarised by the mean of its log values, and the
// spread of those means between executions (which holds the within-execution noise as it reaches
// a mean, Kalibera & Jones 2013) is the noise of a run.
//
// Three executions a side leave 4 degrees of freedom: a t quantile of 4.6 at 99% and little power.
// An execution's effect has two parts. One is shared by every series of the suite measured in
// that process (a slow process is slow for all of them): it is seen once per execution whatever
// the number of series, so its variance keeps the executions' degrees of freedom; pooling it over
// series would claim degrees of freedom that do not exist (verdict_sim shows the lost coverage).
// The other part is each series' own, independent between series: the series of a suite lend
// each other degrees of freedom for it through an empirical-Bayes prior (Smyth 2004, the moderated
// t of limma), and a series whose own part is clearly larger than the prior keeps its own (a noisy
// series is never pulled down to its quieter neighbours). compare/README.md "Executions" has the
// simulation evidence (compare/tools/verdict_sim).
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include "compare/stats/stats.hpp"

namespace gpubench::compare {

// One execution's summary on the log scale: the mean of its log values, 20% trimmed from each end
// when it has 8 or more (as log_ratio_estimate). NaN when empty or a value is not positive.
double execution_log_mean(std::span<const double> values);

// The between-execution variance of one series in one comparison: the pooled sample variance of
// both sides' execution log means, ((E_b - 1) s_b^2 + (E_c - 1) s_c^2) / (E_b + E_c - 2) on
// E_b + E_c - 2 degrees of freedom (a side with one execution adds none). Held at least `floor`
// (the resolution of the data, log_resolution^2 / 12). df 0 when neither side has two executions.
struct ExecutionVariance {
  double variance = std::numeric_limits<double>::quiet_NaN();
  double df = 0;
};
ExecutionVariance pooled_execution_variance(std::span<const double> base_means,
                                            std::span<const double> candidate_means,
                                            double floor = 0);

// The prior of a suite's between-execution variances (limma's fitFDist by moments on log s^2):
// s0^2 and d0 degrees of freedom. d0 is infinite when the series' variances agree more closely
// than sampling alone explains (then every series takes s0^2), and 0 (no prior) with fewer than
// 3 series that have a variance.
struct ExecutionPrior {
  double s0_squared = 0;
  double d0 = 0;
  std::size_t series = 0;  // how many series it was estimated from
};
ExecutionPrior estimate_execution_prior(std::span<const ExecutionVariance> series);

// The variance one series' interval uses: (d0 s0^2 + d s^2) / (d0 + d) on d0 + d degrees of
// freedom, or its own s^2 on its own d when that is clearly larger than the prior (one-sided F
// test s^2 / s0^2 ~ F(d, d0) at level `clearly`). With no prior (d0 = 0): its own.
struct ModeratedVariance {
  double variance = std::numeric_limits<double>::quiet_NaN();
  double df = 0;
  bool own = true;  // the series' own variance (no prior, or clearly larger than it)
};
ModeratedVariance moderate(const ExecutionVariance& own, const ExecutionPrior& prior,
                           double clearly = 0.01);

// A suite's execution log means, both sides: base[s][e] is series s in the base side's
// execution e. Executions are aligned by index within a side (execution e is one process for every
// series of the suite); NaN where a series has no value in an execution.
struct SuiteExecutionMeans {
  std::vector<std::vector<double>> base;
  std::vector<std::vector<double>> candidate;
};

// The between-execution noise of one series of a suite: the shared part (the suite's execution
// effects, on the executions' degrees of freedom) plus its own part (moderated over the suite's
// series), and their sum on Welch-Satterthwaite degrees of freedom.
struct SeriesExecutionNoise {
  double shared = 0;
  double shared_df = 0;
  double own = std::numeric_limits<double>::quiet_NaN();  // the series' own part, as used
  double own_df = 0;
  bool own_moderated = false;  // false: the series' own estimate (no prior, or clearly larger)
  double variance = std::numeric_limits<double>::quiet_NaN();  // shared + own, of one execution
  double df = 0;
};

// Splits each series' execution means, per side, into the series' mean + the suite's execution
// effect (the median over the series that have every execution of that side of their
// deviations, centred: one series far noisier than the rest does not lend its noise to the
// others; compare/README.md has the simulation) + a residual. Shared:
// the pooled variance of the execution effects; own: each series' residual variance, moderated
// over the suite. With fewer than 3 series complete on both sides there is no split: each series
// takes its own pooled_execution_variance (shared 0); so does a series that lacks an execution
// (NaN there), from the executions it has.
// `floor` holds every variance at least that (log_resolution^2 / 12).
std::vector<SeriesExecutionNoise> execution_noise(const SuiteExecutionMeans& suite,
                                                  double floor = 0, double clearly = 0.01);

// The two-level estimate from execution log means: log ratio = mean(candidate means) -
// mean(base means); se^2 = variance (1/E_b + 1/E_c) + options.extra_variance (history's
// run-to-run variance, on options.extra_df); df by Welch-Satterthwaite over the two terms;
// interval and p from one t, as log_ratio_estimate (options.trim and min_n_to_trim are not used
// here). Invalid with no execution a side or no variance.
LogRatioEstimate two_level_estimate(std::span<const double> base_means,
                                    std::span<const double> candidate_means, double variance,
                                    double df, const LogRatioOptions& options = {});

// The run-level variance that executions cannot see (a whole run's state: a boot, a node, a
// thermal state), from history: the variance of per-run means over `runs` history runs holds it
// plus the execution noise of one run (v / E, E executions a run), so
//     sigma_r^2 = max(0, history_variance - v / E)
// on Welch-Satterthwaite degrees of freedom of that difference (a small remainder of a large
// history variance is known poorly: its df are fewer than the history's runs - 1). Zero, on
// infinite df, without at least 3 runs.
struct RunNoise {
  double variance = 0;
  double df = std::numeric_limits<double>::infinity();
};
RunNoise run_noise_from_history(double history_variance, double runs, double execution_variance,
                                double execution_df, double executions_per_run);

// Sizing at the execution level (Kalibera & Jones 2013: repeat where the variance is): the
// minimum detectable effect of a series whose execution noise is `noise`, measured with
// `executions` a side (the interval's half-width at `confidence`, as a fraction), and the fewest
// executions a side that bring it to `threshold` or below (0 when even `max_executions` do not).
// With E executions a side the shared part has 2 (E - 1) degrees of freedom and the own part
// gains 2 per added execution; the variance of one execution stays what it was measured to be.
struct ExecutionSizing {
  double mde = std::numeric_limits<double>::quiet_NaN();
  std::size_t executions_needed = 0;
};
ExecutionSizing size_executions(const SeriesExecutionNoise& noise, std::size_t executions,
                                double threshold, double confidence = 0.99,
                                std::size_t max_executions = 100);

// Inverse of the trigamma function (Smyth's Newton iteration), x > 0.
double trigamma_inverse(double x);

}  // namespace gpubench::compare
