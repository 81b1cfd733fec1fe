#include "compare/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "compare/allowance.hpp"
#include "compare/run_noise.hpp"
#include "compare/stats/stats.hpp"
#include "util/strings.hpp"

namespace gpubench::compare::detail {
namespace {

// Most samples a suggestion names; beyond that the honest answer is "not by repetition".
constexpr double k_max_suggested = 1000;

std::string sig(double v) {
  return format_significant(v, 2);
}

std::string interval_text(const Entry& e) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%+.2f%%, %+.2f%%]", (e.ci_low - 1) * 100, (e.ci_high - 1) * 100);
  return buf;
}

// How many repetitions (or runs) a side would make the interval decide, at the current point
// estimate and variances: the half-width must fall below the distance from the point to 1 (to
// flag the change) or to the nearer edge of +-delta (to call it unchanged).
std::string what_would_decide(const Entry& e, double confidence) {
  double log_ratio = std::log(e.ratio);
  double up = std::log1p(e.delta);
  double down = std::log1p(-e.delta);
  bool beyond = log_ratio > up || log_ratio < down;
  double target = beyond ? std::fabs(log_ratio) : std::min(up - log_ratio, log_ratio - down);
  if (!(target > 0) || !(e.std_error > 0)) return "";
  // Half-width relative to the standard error (the t quantile); with more data df grows, so
  // the normal quantile is the estimate's floor.
  double q =
      std::max(normal_quantile(0.5 + confidence / 2), std::log(e.ci_high / e.ratio) / e.std_error);
  double allowed = (target / q) * (target / q);  // variance that would decide it
  if (target < 0.1 * e.delta) {
    return "; the estimate sits on the threshold, so more data will not settle it soon";
  }
  double within = e.std_error * e.std_error - e.history_variance;
  bool per_run = e.base.per_run && e.candidate.per_run;
  double n = static_cast<double>(std::max(e.base.n, e.candidate.n));
  if (!per_run && allowed > e.history_variance && within > 0) {
    double k = within / (allowed - e.history_variance);
    double reps = std::ceil(k * n);
    if (reps <= k_max_suggested) {
      return "; about " + std::to_string(static_cast<long>(reps)) +
             " repetitions a side would decide it";
    }
  }
  // Runs shrink both parts; with one run a side today, r runs a side divide the variance by r.
  double runs_now = static_cast<double>(std::min(e.base.runs, e.candidate.runs));
  double runs = std::ceil(std::max(1.0, runs_now) * (e.std_error * e.std_error) / allowed);
  if (runs <= k_max_suggested) {
    return "; about " + std::to_string(static_cast<long>(std::max(runs, runs_now + 1))) +
           " runs a side would decide it (gpubench run --until-decided)";
  }
  return "; too noisy to decide with a practical number of runs";
}

}  // namespace

std::string pct(double fraction) {
  return format_significant(fraction * 100.0, 3) + "%";
}

bool estimate(Entry& e, const Options& options) {
  LogRatioOptions o;
  o.confidence = options.confidence;
  // Run-to-run variance from history, for each side whose samples are repetitions of its runs
  // (a side of per-run medians already has it in its spread): sd^2 / runs of that side.
  if (e.history) {
    double share = 0;
    if (!e.base.per_run) share += 1.0 / static_cast<double>(std::max<std::size_t>(1, e.base.runs));
    if (!e.candidate.per_run)
      share += 1.0 / static_cast<double>(std::max<std::size_t>(1, e.candidate.runs));
    o.extra_variance = e.history->log_sd * e.history->log_sd * share;
    o.extra_df = static_cast<double>(e.history->runs) - 1.0;
  }
  LogRatioEstimate r = log_ratio_estimate(e.base.values, e.candidate.values, o);
  if (!r.valid) {
    e.verdict = Verdict::inconclusive;
    e.reason = "values are not all positive; no ratio interval";
    return false;
  }
  e.ratio = r.ratio;
  e.ci_low = r.ci_low;
  e.ci_high = r.ci_high;
  e.p_value = r.p_value;
  e.df = r.df;
  e.std_error = r.std_error;
  e.history_variance = r.var_extra;
  e.mde = std::expm1(r.half_width);
  bool per_run = e.base.per_run || e.candidate.per_run;
  e.noise_source = per_run ? "per-run medians" : "within run";
  if (e.history && r.var_extra > 0) {
    e.noise_source += " + history (" + std::to_string(e.history->runs) + " runs)";
  }
  return true;
}

void decide(Entry& e, const Options& options, std::size_t tested) {
  double lo = e.ci_low;
  double hi = e.ci_high;
  bool excludes_one = lo > 1.0 || hi < 1.0;
  bool beyond = e.ratio > 1.0 + e.delta || e.ratio < 1.0 - e.delta;
  bool inside = lo >= 1.0 - e.delta && hi <= 1.0 + e.delta;
  char change[32];
  std::snprintf(change, sizeof change, "%+.2f%%", (e.ratio - 1.0) * 100.0);
  std::string figures = std::string(change) + " " + interval_text(e);
  std::string noise;
  if (e.history_variance <= 0 && !(e.base.per_run && e.candidate.per_run)) {
    // Say how much history there was: 1 or 2 runs are too few (k_min_history_runs), and a reader
    // must not take the narrow interval for one that holds run-to-run noise.
    const std::size_t found = e.history_runs_found;
    noise = found > 0 && found < k_min_history_runs
                ? "; interval holds within-run noise only (" + std::to_string(found) +
                      " run(s) of history, fewer than the " + std::to_string(k_min_history_runs) +
                      " needed for run-to-run noise)"
                : "; interval holds within-run noise only (no history of this series)";
  }
  if (excludes_one && beyond) {
    if (e.q_value >= options.alpha) {
      e.verdict = Verdict::inconclusive;
      e.reason = figures + " excludes 1 (p=" + sig(e.p_value) + ") but not after Benjamini-" +
                 "Hochberg over " + std::to_string(tested) + " series (q=" + sig(e.q_value) + ")" +
                 what_would_decide(e, options.confidence) + noise;
      return;
    }
    // Beyond the within-run interval but inside the suite's run-to-run allowance, and no
    // history to say whether runs differ this much: not an alarm (compare/allowance.hpp).
    if (hold_within_run_to_run_allowance(e, figures)) return;
    if (e.direction == results::Direction::unknown) {
      e.verdict = Verdict::changed;
      e.reason = "changed by " + figures + "; direction unknown, so no good/bad call" + noise;
      return;
    }
    bool worse = (e.direction == results::Direction::higher) == (e.ratio < 1.0);
    e.verdict = worse ? Verdict::regression : Verdict::improvement;
    e.reason = std::string(worse ? "worse: " : "better: ") + figures + " beyond +-" + pct(e.delta) +
               " (q=" + sig(e.q_value) + ")" + noise;
    return;
  }
  if (inside) {
    e.verdict = Verdict::unchanged;
    e.reason = "interval " + interval_text(e) + " within +-" + pct(e.delta) + noise;
    return;
  }
  e.verdict = Verdict::inconclusive;
  e.reason = "interval " + interval_text(e) +
             (excludes_one ? " excludes 1, but the point is within +-" + pct(e.delta) +
                                 " and the interval reaches beyond it"
                           : " includes 1 and reaches beyond +-" + pct(e.delta)) +
             what_would_decide(e, options.confidence) + noise;
}

}  // namespace gpubench::compare::detail
