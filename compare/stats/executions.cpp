// Two levels of noise: executions within runs (compare/stats/executions.hpp).
#include "compare/stats/executions.hpp"

#include <algorithm>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/polygamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>
#include <cmath>
#include <vector>

#include "compare/stats/math_policy.hpp"

namespace gpubench::compare {

namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();
constexpr double k_inf = std::numeric_limits<double>::infinity();

using Policy = detail::MathPolicy;
constexpr Policy k_policy = detail::k_math_policy;

double digamma(double x) {
  return boost::math::digamma(x, k_policy);
}
double trigamma(double x) {
  return boost::math::trigamma(x, k_policy);
}

// Sample variance and its degrees of freedom (n - 1); 0 df for fewer than 2 values.
void add_spread(std::span<const double> means, double& sum_squares, double& df) {
  if (means.size() < 2) return;
  const double m = mean(means);
  for (double x : means) sum_squares += (x - m) * (x - m);
  df += static_cast<double>(means.size() - 1);
}

}  // namespace

double execution_log_mean(std::span<const double> values) {
  if (values.empty()) return k_nan;
  std::vector<double> logs;
  logs.reserve(values.size());
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) return k_nan;
    logs.push_back(std::log(v));
  }
  if (logs.size() < 8) return median(logs);
  return trimmed_summary(logs, 0.2).mean;
}

ExecutionVariance pooled_execution_variance(std::span<const double> base_means,
                                            std::span<const double> candidate_means,
                                            double floor) {
  ExecutionVariance out;
  for (auto side : {base_means, candidate_means}) {
    for (double m : side) {
      if (!std::isfinite(m)) return out;
    }
  }
  double sum_squares = 0;
  double df = 0;
  add_spread(base_means, sum_squares, df);
  add_spread(candidate_means, sum_squares, df);
  if (df <= 0) return out;
  out.df = df;
  out.variance = std::max(sum_squares / df, std::max(floor, 0.0));
  return out;
}

double trigamma_inverse(double x) {
  if (!(x > 0)) return k_nan;
  if (x > 1e7) return 1.0 / std::sqrt(x);
  if (x < 1e-6) return 1.0 / x;
  double y = 0.5 + 1.0 / x;
  for (int i = 0; i < 50; ++i) {
    const double tri = trigamma(y);
    const double dif = tri * (1.0 - tri / x) / boost::math::polygamma(2, y, k_policy);
    y += dif;
    if (-dif / y < 1e-8) break;
  }
  return y;
}

ExecutionPrior estimate_execution_prior(std::span<const ExecutionVariance> series) {
  // e_g = log s_g^2 - digamma(d_g / 2) + log(d_g / 2) has mean log s0^2 - digamma(d0/2) +
  // log(d0/2) and variance trigamma(d0 / 2) + trigamma(d_g / 2) under the prior (Smyth 2004).
  std::vector<double> e;
  double trigamma_sum = 0, pooled_ss = 0, pooled_df = 0;
  for (const ExecutionVariance& s : series) {
    if (!(s.df > 0) || !(s.variance > 0) || !std::isfinite(s.variance)) continue;
    const double half = s.df / 2.0;
    e.push_back(std::log(s.variance) - digamma(half) + std::log(half));
    trigamma_sum += trigamma(half);
    pooled_ss += s.df * s.variance;
    pooled_df += s.df;
  }
  ExecutionPrior prior;
  prior.series = e.size();
  if (e.size() < 3) return prior;  // no prior: every series keeps its own variance
  const double n = static_cast<double>(e.size());
  const double e_mean = mean(e);
  double e_var = 0;
  for (double x : e) e_var += (x - e_mean) * (x - e_mean);
  e_var = e_var / (n - 1) - trigamma_sum / n;
  if (e_var > 0) {
    prior.d0 = 2.0 * trigamma_inverse(e_var);
    prior.s0_squared =
        std::exp(e_mean + digamma(prior.d0 / 2.0) - std::log(prior.d0 / 2.0));
  } else {
    // The variances agree beyond sampling: the pooled variance, the scale's maximum-likelihood
    // estimate (limma since 2017; exp(e_mean), the limit of the branch above, is larger).
    prior.d0 = k_inf;
    prior.s0_squared = pooled_ss / pooled_df;
  }
  return prior;
}

ModeratedVariance moderate(const ExecutionVariance& own, const ExecutionPrior& prior,
                           double clearly) {
  ModeratedVariance out;
  if (!(own.df > 0) || !std::isfinite(own.variance)) return out;
  out.variance = own.variance;
  out.df = own.df;
  out.own = true;
  if (!(prior.d0 > 0) || !(prior.s0_squared > 0)) return out;
  // Clearly larger than the prior: keep the series' own variance (one-sided F test). An infinite
  // d0 is a chi-square / d, which F(d, 1e9) matches to nine digits.
  const double d0 = std::isfinite(prior.d0) ? prior.d0 : 1e9;
  const boost::math::fisher_f_distribution<double, Policy> f(own.df, d0);
  if (boost::math::cdf(boost::math::complement(f, own.variance / prior.s0_squared)) < clearly) {
    return out;
  }
  out.own = false;
  if (!std::isfinite(prior.d0)) {
    out.variance = prior.s0_squared;
    out.df = k_inf;
    return out;
  }
  out.variance = (prior.d0 * prior.s0_squared + own.df * own.variance) / (prior.d0 + own.df);
  out.df = prior.d0 + own.df;
  return out;
}

std::vector<SeriesExecutionNoise> execution_noise(const SuiteExecutionMeans& suite, double floor,
                                                  double clearly) {
  const std::size_t n = std::min(suite.base.size(), suite.candidate.size());
  std::vector<SeriesExecutionNoise> out(n);
  auto complete = [](const std::vector<double>& means) {
    return std::all_of(means.begin(), means.end(), [](double m) { return std::isfinite(m); });
  };
  // Executions a side: the most any series has (a complete series has them all).
  std::size_t e_base = 0, e_cand = 0;
  for (std::size_t s = 0; s < n; ++s) {
    e_base = std::max(e_base, suite.base[s].size());
    e_cand = std::max(e_cand, suite.candidate[s].size());
  }
  std::vector<std::size_t> full;
  for (std::size_t s = 0; s < n; ++s) {
    if (suite.base[s].size() == e_base && suite.candidate[s].size() == e_cand &&
        complete(suite.base[s]) && complete(suite.candidate[s])) {
      full.push_back(s);
    }
  }
  // A series outside the split (too few complete series, or it lacks an execution): its own
  // pooled variance holds both parts, on its own degrees of freedom.
  auto own_only = [&](std::size_t s) {
    auto finite = [](const std::vector<double>& means) {
      std::vector<double> kept;
      for (double m : means) {
        if (std::isfinite(m)) kept.push_back(m);
      }
      return kept;
    };
    const ExecutionVariance v =
        pooled_execution_variance(finite(suite.base[s]), finite(suite.candidate[s]), floor);
    SeriesExecutionNoise& o = out[s];
    o.own = o.variance = v.variance;
    o.own_df = o.df = v.df;
  };
  if (full.size() < 3) {
    for (std::size_t s = 0; s < n; ++s) own_only(s);
    return out;
  }
  const double k = static_cast<double>(full.size());
  double shared_ss = 0, shared_df = 0;
  std::vector<double> own_ss(n, 0.0);
  double own_df = 0;
  for (const auto* side : {&suite.base, &suite.candidate}) {
    const std::size_t e_count = side == &suite.base ? e_base : e_cand;
    if (e_count < 2) continue;
    std::vector<double> effect(e_count, 0.0);
    std::vector<double> series_mean(n, 0.0);
    for (std::size_t s : full) series_mean[s] = mean((*side)[s]);
    // The suite's effect of an execution: the median of its series' deviations, so one series
    // far noisier than the rest does not lend its noise to all of them; centred over the side.
    for (std::size_t e = 0; e < e_count; ++e) {
      std::vector<double> deviations;
      for (std::size_t s : full) deviations.push_back((*side)[s][e] - series_mean[s]);
      effect[e] = median(deviations);
    }
    const double centre = mean(effect);
    for (double& c : effect) c -= centre;
    for (double c : effect) shared_ss += c * c;
    shared_df += static_cast<double>(e_count - 1);
    for (std::size_t s : full) {
      for (std::size_t e = 0; e < e_count; ++e) {
        const double r = (*side)[s][e] - series_mean[s] - effect[e];
        own_ss[s] += r * r;
      }
    }
    // Removing the suite's effect of each execution costs each series 1/k of a df per execution.
    own_df += static_cast<double>(e_count - 1) * (k - 1.0) / k;
  }
  const double shared = shared_df > 0 ? shared_ss / shared_df : 0.0;
  std::vector<ExecutionVariance> own(n);
  for (std::size_t s : full) {
    own[s].variance = std::max(own_ss[s] / own_df, std::max(floor, 0.0));
    own[s].df = own_df;
  }
  const ExecutionPrior prior = estimate_execution_prior(own);
  std::vector<bool> in_split(n, false);
  for (std::size_t s : full) in_split[s] = true;
  for (std::size_t s = 0; s < n; ++s) {
    if (!in_split[s]) {
      own_only(s);
      continue;
    }
    const ModeratedVariance m = moderate(own[s], prior, clearly);
    SeriesExecutionNoise& o = out[s];
    o.shared = shared;
    o.shared_df = shared_df;
    o.own = m.variance;
    o.own_df = m.df;
    o.own_moderated = !m.own;
    o.variance = std::max(shared + m.variance, std::max(floor, 0.0));
    double denom = shared > 0 ? shared * shared / shared_df : 0.0;
    if (std::isfinite(m.df)) denom += m.variance * m.variance / m.df;
    o.df = denom > 0 ? (shared + m.variance) * (shared + m.variance) / denom : k_inf;
  }
  return out;
}

RunNoise run_noise_from_history(double history_variance, double runs, double execution_variance,
                                double execution_df, double executions_per_run) {
  RunNoise out;
  if (!(runs >= 3) || !(history_variance > 0) || !(executions_per_run >= 1)) return out;
  const double per_run = std::isfinite(execution_variance) && execution_variance > 0
                             ? execution_variance / executions_per_run
                             : 0.0;
  const double rest = history_variance - per_run;
  if (!(rest > 0)) return out;
  out.variance = rest;
  double denom = history_variance * history_variance / (runs - 1.0);
  if (per_run > 0 && std::isfinite(execution_df) && execution_df > 0) {
    denom += per_run * per_run / execution_df;
  }
  out.df = rest * rest / denom;
  return out;
}

ExecutionSizing size_executions(const SeriesExecutionNoise& noise, std::size_t executions,
                                double threshold, double confidence, std::size_t max_executions) {
  ExecutionSizing out;
  if (executions < 2 || !(noise.variance > 0) || !(noise.df > 0)) return out;
  auto mde_at = [&](std::size_t e) {
    const double added = 2.0 * (static_cast<double>(e) - static_cast<double>(executions));
    const double shared_df = noise.shared > 0 ? 2.0 * (static_cast<double>(e) - 1.0) : 0.0;
    const double own_df = noise.own_df + added;
    const double own = std::isfinite(noise.own) ? noise.own : 0.0;
    double denom = 0;
    if (noise.shared > 0) denom += noise.shared * noise.shared / shared_df;
    if (own > 0 && std::isfinite(own_df)) denom += own * own / own_df;
    double df = denom > 0 ? noise.variance * noise.variance / denom : 1e9;
    if (noise.shared <= 0 && !(own > 0)) df = noise.df + added;
    const double q = student_t_quantile(0.5 + confidence / 2.0, df);
    return std::expm1(q * std::sqrt(2.0 * noise.variance / static_cast<double>(e)));
  };
  out.mde = mde_at(executions);
  for (std::size_t e = 2; e <= max_executions; ++e) {
    if (mde_at(e) <= threshold) {
      out.executions_needed = e;
      break;
    }
  }
  return out;
}

LogRatioEstimate two_level_estimate(std::span<const double> base_means,
                                    std::span<const double> candidate_means, double variance,
                                    double df, const LogRatioOptions& options) {
  LogRatioEstimate r;
  if (base_means.empty() || candidate_means.empty()) return r;
  if (!(variance >= 0) || !(df > 0)) return r;
  const double mb = mean(base_means);
  const double mc = mean(candidate_means);
  if (!std::isfinite(mb) || !std::isfinite(mc)) return r;
  const double extra = std::isfinite(options.extra_variance) && options.extra_variance > 0
                           ? options.extra_variance
                           : 0.0;
  const double nb = static_cast<double>(base_means.size());
  const double nc = static_cast<double>(candidate_means.size());
  const double var_exec = variance * (1.0 / nb + 1.0 / nc);
  r.log_ratio = mc - mb;
  r.ratio = std::exp(r.log_ratio);
  // Each side's share of the one pooled execution term, for readers of the estimate.
  r.var_base = variance / nb;
  r.var_candidate = variance / nc;
  r.var_extra = extra;
  const double var = var_exec + extra;
  r.std_error = std::sqrt(var);
  r.valid = true;
  if (var == 0) {
    r.df = df;
    r.p_value = r.log_ratio == 0 ? 1.0 : 0.0;
    r.ci_low = r.ci_high = r.ratio;
    return r;
  }
  double denom = std::isfinite(df) ? var_exec * var_exec / df : 0.0;
  if (extra > 0 && std::isfinite(options.extra_df) && options.extra_df > 0) {
    denom += extra * extra / options.extra_df;
  }
  r.df = denom > 0 ? var * var / denom : 1e9;  // every term known exactly: the normal limit
  const double t = r.log_ratio / r.std_error;
  r.p_value = student_t_two_sided_p(t, r.df);
  const double q = student_t_quantile(0.5 + options.confidence / 2.0, r.df);
  r.half_width = q * r.std_error;
  r.ci_low = std::exp(r.log_ratio - r.half_width);
  r.ci_high = std::exp(r.log_ratio + r.half_width);
  return r;
}

}  // namespace gpubench::compare
