#include "compare/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include <limits>
#include <map>

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
  if (e.by_execution) {
    // Executions shrink the between-execution part: v (2 / E) + history's part <= allowed.
    const double v = e.execution_noise.variance;
    const double room = allowed - e.history_variance;
    if (v > 0 && room > 0) {
      const double executions = std::ceil(2.0 * v / room);
      const double now = static_cast<double>(std::min(e.base.executions, e.candidate.executions));
      if (executions <= k_max_suggested) {
        const long n = static_cast<long>(std::max({executions, now + 1, 2.0}));
        return "; about " + std::to_string(n) + " executions a side would decide it (gpubench run " +
               "--executions " + std::to_string(n) + ", or --until-decided)";
      }
    }
    return "; too noisy between executions to decide with a practical number of them";
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

// The estimate's figures into the entry; false (and an inconclusive verdict with the reason) when
// the values could not be estimated.
bool take_estimate(Entry& e, const LogRatioEstimate& r) {
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
  return true;
}

// "3 executions" / "6 executions in 2 runs".
std::string executions_text(const SideStats& s) {
  return std::to_string(s.executions) + " execution" + (s.executions == 1 ? "" : "s") +
         (s.runs > 1 ? " in " + std::to_string(s.runs) + " runs" : "");
}

// What the interval's noise lacks, for the reason ("" when it holds run-to-run noise).
std::string noise_clause(const Entry& e) {
  if (e.base.per_run && e.candidate.per_run) return "";
  if (e.by_execution) {
    // Both sides' executions are named; a side with one execution a run lends no spread.
    std::string out = "; base " + executions_text(e.base) + ", candidate " +
                      executions_text(e.candidate);
    for (const auto& [side, name] : {std::pair{&e.base, "base"}, std::pair{&e.candidate, "candidate"}}) {
      if (side->executions <= side->runs) {
        out += std::string(" (") + name +
               "'s run has one execution a suite, from before executions: the spread between "
               "executions comes from the other side alone)";
      }
    }
    return out;
  }
  if (e.history_variance > 0) return "";
  // Runs stored before executions (or imported files): one process per suite a run, so the
  // interval holds that process's repetitions only.
  const std::size_t found = e.history_runs_found;
  std::string out =
      "; interval lacks run-to-run noise: one execution of the suite a run on both sides (runs "
      "stored before gpubench measured executions, or imported), so it holds one process's "
      "repetitions only";
  if (found > 0 && found < k_min_history_runs) {
    out += " (" + std::to_string(found) + " run(s) of history, fewer than the " +
           std::to_string(k_min_history_runs) + " needed to add run-to-run noise)";
  }
  return out;
}

}  // namespace

void estimate_by_execution(std::vector<Entry>& entries, const Options& options) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::map<std::string, std::vector<Entry*>> suites;
  for (Entry& e : entries) {
    if (e.reason == k_pending_executions) suites[e.key.suite].push_back(&e);
  }
  for (auto& [suite, list] : suites) {
    // The suite's executions a side (every series' executions are among them), ascending.
    std::vector<int64_t> b_ids, c_ids;
    for (const Entry* e : list) {
      b_ids.insert(b_ids.end(), e->base.execution_ids.begin(), e->base.execution_ids.end());
      c_ids.insert(c_ids.end(), e->candidate.execution_ids.begin(),
                   e->candidate.execution_ids.end());
    }
    for (auto* ids : {&b_ids, &c_ids}) {
      std::sort(ids->begin(), ids->end());
      ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
    }
    // Each series' means at its executions' places (NaN where it has none), oriented so that a
    // slow process is positive for every series (time up, throughput down): the suite's shared
    // effect is their mean, and opposite signs would cancel it.
    auto placed = [nan](const SideStats& side, const std::vector<int64_t>& ids, double sign) {
      std::vector<double> out(ids.size(), nan);
      for (std::size_t i = 0; i < side.execution_ids.size(); ++i) {
        const auto at = std::lower_bound(ids.begin(), ids.end(), side.execution_ids[i]);
        out[static_cast<std::size_t>(at - ids.begin())] = sign * side.execution_means[i];
      }
      return out;
    };
    auto varies = [](const std::vector<double>& means) {
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (double m : means) {
        if (!std::isfinite(m)) continue;
        lo = std::min(lo, m);
        hi = std::max(hi, m);
      }
      return hi > lo;
    };
    // Series whose executions all agree (counters, sizes) stay out of the suite's model: they
    // would dilute the shared effect. Their own spread (zero) is their noise.
    SuiteExecutionMeans means;
    std::vector<std::size_t> slot(list.size(), SIZE_MAX);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const Entry& e = *list[i];
      const double sign = e.direction == results::Direction::higher ? -1.0 : 1.0;
      std::vector<double> b = placed(e.base, b_ids, sign);
      std::vector<double> c = placed(e.candidate, c_ids, sign);
      if (!varies(b) && !varies(c)) continue;
      slot[i] = means.base.size();
      means.base.push_back(std::move(b));
      means.candidate.push_back(std::move(c));
    }
    const std::vector<SeriesExecutionNoise> noise = execution_noise(means);
    for (std::size_t i = 0; i < list.size(); ++i) {
      Entry& e = *list[i];
      SeriesExecutionNoise n;
      if (slot[i] != SIZE_MAX) {
        n = noise[slot[i]];
      } else {
        const ExecutionVariance own =
            pooled_execution_variance(e.base.execution_means, e.candidate.execution_means);
        n.own = n.variance = own.variance;
        n.own_df = n.df = own.df;
      }
      e.execution_noise = n;
      if (!(n.df > 0) || !std::isfinite(n.variance)) {
        e.verdict = Verdict::inconclusive;
        e.reason = "no spread between executions to build an interval from (base " +
                   executions_text(e.base) + ", candidate " + executions_text(e.candidate) +
                   "; a value that is not positive, or one execution a side)";
        continue;
      }
      LogRatioOptions o;
      o.confidence = options.confidence;
      // History's runs hold a whole run's state (a boot, a node, a thermal state) that one run's
      // executions cannot see: its remainder beyond one run's execution noise, for each side's
      // runs.
      if (e.history) {
        const double per_run = static_cast<double>(e.base.executions) /
                               static_cast<double>(std::max<std::size_t>(1, e.base.runs));
        const RunNoise rn = run_noise_from_history(
            e.history->log_sd * e.history->log_sd, static_cast<double>(e.history->runs),
            n.variance, n.df, per_run);
        const double share =
            1.0 / static_cast<double>(std::max<std::size_t>(1, e.base.runs)) +
            1.0 / static_cast<double>(std::max<std::size_t>(1, e.candidate.runs));
        o.extra_variance = rn.variance * share;
        o.extra_df = rn.df;
      }
      const LogRatioEstimate r =
          two_level_estimate(e.base.execution_means, e.candidate.execution_means, n.variance,
                             n.df, o);
      if (!take_estimate(e, r)) continue;
      const std::size_t now = std::max<std::size_t>(
          2, std::min(e.base.executions, e.candidate.executions));
      e.executions_needed = size_executions(n, now, e.delta, options.confidence).executions_needed;
      e.noise_source = "between executions";
      if (e.history && r.var_extra > 0) {
        e.noise_source += " + history (" + std::to_string(e.history->runs) + " runs" +
                          (e.history->gpu_note.empty() ? "" : ": " + e.history->gpu_note) + ")";
      }
      e.reason = "pending";
    }
  }
}

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
  const LogRatioEstimate r = log_ratio_estimate(e.base.values, e.candidate.values, o);
  if (!take_estimate(e, r)) return false;
  bool per_run = e.base.per_run || e.candidate.per_run;
  e.noise_source = per_run ? "per-run medians" : "one execution (no run-to-run noise)";
  if (e.history && r.var_extra > 0) {
    e.noise_source = (per_run ? "per-run medians" : "one execution") + std::string(" + history (") +
                     std::to_string(e.history->runs) + " runs" +
                     (e.history->gpu_note.empty() ? "" : ": " + e.history->gpu_note) + ")";
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
  const std::string noise = noise_clause(e);
  if (excludes_one && beyond) {
    if (e.q_value >= options.alpha) {
      e.verdict = Verdict::inconclusive;
      e.reason = figures + " excludes 1 (p=" + sig(e.p_value) + ") but not after Benjamini-" +
                 "Hochberg over " + std::to_string(tested) + " series (q=" + sig(e.q_value) + ")" +
                 what_would_decide(e, options.confidence) + noise;
      return;
    }
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
