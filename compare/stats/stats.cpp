#include "compare/stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include <boost/math/distributions/students_t.hpp>
#include <boost/math/special_functions/beta.hpp>

#include "compare/stats/math_policy.hpp"
#include "util/median.hpp"

namespace gpubench::compare {
namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

// Bad arguments give NaN (callers check), never an exception from inside the statistics.
using Policy = detail::MathPolicy;
constexpr Policy k_policy = detail::k_math_policy;

std::vector<double> logs_of(std::span<const double> values, bool& ok) {
  std::vector<double> out;
  out.reserve(values.size());
  ok = true;
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) {
      ok = false;
      return {};
    }
    out.push_back(std::log(v));
  }
  return out;
}

// The last decimal place `v` is written to, relative to v: 20 -> 1/20, 1.25 -> 0.01/1.25.
double decimal_resolution(double v) {
  if (!(v > 0) || !std::isfinite(v)) return 0;
  double scale = 1;
  for (int k = 0; k <= 15; ++k, scale *= 10) {
    const double x = v * scale;
    if (std::fabs(x - std::round(x)) <= 1e-9 * x) return 1.0 / (scale * v);
  }
  return 0;
}

// Per-sample variance floor on the log scale from the data's resolution (uniform rounding).
double resolution_floor(std::span<const double> log_base, std::span<const double> log_cand,
                        std::span<const double> raw) {
  std::vector<double> all(log_base.begin(), log_base.end());
  all.insert(all.end(), log_cand.begin(), log_cand.end());
  std::sort(all.begin(), all.end());
  double gap = std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i < all.size(); ++i) {
    if (all[i] > all[i - 1]) gap = std::min(gap, all[i] - all[i - 1]);
  }
  if (!std::isfinite(gap)) gap = raw.empty() ? 0 : std::log1p(decimal_resolution(raw.front()));
  return gap * gap / 12.0;
}

}  // namespace

double log_resolution(std::span<const double> a, std::span<const double> b) {
  bool ok_a = false;
  bool ok_b = false;
  std::vector<double> la = logs_of(a, ok_a);
  std::vector<double> lb = logs_of(b, ok_b);
  if (!ok_a || !ok_b) return 0;
  return std::sqrt(12.0 * resolution_floor(la, lb, a.empty() ? b : a));
}

double median(std::span<const double> values) {
  if (values.empty()) return k_nan;
  std::vector<double> v(values.begin(), values.end());
  return median_in_place(v.data(), v.data() + v.size());  // as the store's series medians
}

double mean(std::span<const double> values) {
  if (values.empty()) return k_nan;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double stddev(std::span<const double> values) {
  if (values.size() < 2) return k_nan;
  double m = mean(values);
  double ss = 0;
  for (double v : values) ss += (v - m) * (v - m);
  return std::sqrt(ss / static_cast<double>(values.size() - 1));
}

double coefficient_of_variation(std::span<const double> values) {
  double m = mean(values);
  if (values.size() < 2 || m == 0) return k_nan;
  return stddev(values) / std::fabs(m);
}

double robust_cv(std::span<const double> values) {
  if (values.size() < 2) return k_nan;
  double m = median(values);
  if (m == 0) return k_nan;
  std::vector<double> dev;
  dev.reserve(values.size());
  for (double v : values) dev.push_back(std::fabs(v - m));
  constexpr double k_normal_scale = 1.482602218505602;  // 1 / Phi^-1(3/4)
  return k_normal_scale * median(dev) / std::fabs(m);
}

double incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || std::isnan(x)) return k_nan;
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  return boost::math::ibeta(a, b, x, k_policy);
}

double student_t_cdf(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return k_nan;
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  return boost::math::cdf(boost::math::students_t_distribution<double, Policy>(df), t);
}

double student_t_two_sided_p(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return k_nan;
  if (std::isinf(t)) return 0.0;
  // The complement is computed directly (incomplete beta of the tail), never as 1 - cdf, so it
  // keeps its relative accuracy down to the smallest normal double.
  double tail = boost::math::cdf(boost::math::complement(
      boost::math::students_t_distribution<double, Policy>(df), std::fabs(t)));
  return std::min(1.0, 2.0 * tail);
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return k_nan;
  return boost::math::quantile(boost::math::students_t_distribution<double, Policy>(df), p);
}

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) return k_nan;
  // Acklam's rational approximation (relative error < 1.2e-9), then one Halley step on erfc.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p > 1 - 0.02425) {
    double q = std::sqrt(-2 * std::log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    double q = p - 0.5;
    double r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  double e = normal_cdf(x) - p;
  double u = e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

WelchResult welch_t_test(std::span<const double> x, std::span<const double> y) {
  WelchResult r;
  if (x.size() < 2 || y.size() < 2) return r;
  double nx = static_cast<double>(x.size());
  double ny = static_cast<double>(y.size());
  double vx = std::pow(stddev(x), 2) / nx;
  double vy = std::pow(stddev(y), 2) / ny;
  r.diff = mean(y) - mean(x);
  r.std_error = std::sqrt(vx + vy);
  r.valid = true;
  if (r.std_error == 0) {
    // No spread at all: identical constants are no change; different constants are certain.
    r.t = r.diff == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), r.diff);
    r.df = nx + ny - 2;
    r.p_value = r.diff == 0 ? 1.0 : 0.0;
    return r;
  }
  r.t = r.diff / r.std_error;
  r.df = (vx + vy) * (vx + vy) / (vx * vx / (nx - 1) + vy * vy / (ny - 1));
  r.p_value = student_t_two_sided_p(r.t, r.df);
  return r;
}

RatioEstimate ratio_of_medians(std::span<const double> base, std::span<const double> candidate,
                               double confidence, double extra_variance, double extra_df) {
  RatioEstimate r;
  bool ok_base = false;
  bool ok_cand = false;
  std::vector<double> lb = logs_of(base, ok_base);
  std::vector<double> lc = logs_of(candidate, ok_cand);
  if (!ok_base || !ok_cand || lb.empty() || lc.empty()) return r;
  r.ratio = median(candidate) / median(base);
  WelchResult w = welch_t_test(lb, lc);
  if (w.valid) {
    // The resolution floor (log_resolution): tied samples must not claim certainty.
    const double floor = resolution_floor(lb, lc, base);
    const double nb = static_cast<double>(lb.size());
    const double nc = static_cast<double>(lc.size());
    const double vb = std::max(std::pow(stddev(lb), 2), floor) / nb;
    const double vc = std::max(std::pow(stddev(lc), 2), floor) / nc;
    const double ve = std::isfinite(extra_variance) && extra_variance > 0 ? extra_variance : 0.0;
    w.std_error = std::sqrt(vb + vc + ve);
    if (w.std_error > 0) {
      double denom = vb * vb / (nb - 1) + vc * vc / (nc - 1);
      if (ve > 0 && std::isfinite(extra_df) && extra_df > 0) denom += ve * ve / extra_df;
      w.df = denom > 0 ? (vb + vc + ve) * (vb + vc + ve) / denom : nb + nc - 2;
      w.t = w.diff / w.std_error;
      w.p_value = student_t_two_sided_p(w.t, w.df);
    }
  }
  if (!w.valid) {
    r.ci_low = r.ci_high = r.ratio;
    return r;
  }
  double log_ratio = std::log(r.ratio);
  double q = w.std_error == 0 ? 0 : student_t_quantile(0.5 + confidence / 2.0, w.df);
  r.ci_low = std::exp(log_ratio - q * w.std_error);
  r.ci_high = std::exp(log_ratio + q * w.std_error);
  r.p_value = w.p_value;
  r.df = w.df;
  r.valid = true;
  return r;
}

MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y) {
  MannWhitneyResult r;
  std::size_t n1 = x.size();
  std::size_t n2 = y.size();
  if (n1 == 0 || n2 == 0) return r;
  struct Item {
    double value;
    bool from_x;
  };
  std::vector<Item> all;
  all.reserve(n1 + n2);
  for (double v : x) all.push_back({v, true});
  for (double v : y) all.push_back({v, false});
  std::sort(all.begin(), all.end(), [](const Item& a, const Item& b) { return a.value < b.value; });
  double rank_sum_x = 0;
  double tie_term = 0;  // sum over tie groups of (t^3 - t)
  std::size_t i = 0;
  while (i < all.size()) {
    std::size_t j = i;
    while (j + 1 < all.size() && all[j + 1].value == all[i].value) ++j;
    double avg_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    double t = static_cast<double>(j - i + 1);
    tie_term += t * t * t - t;
    for (std::size_t k = i; k <= j; ++k) {
      if (all[k].from_x) rank_sum_x += avg_rank;
    }
    i = j + 1;
  }
  double dn1 = static_cast<double>(n1);
  double dn2 = static_cast<double>(n2);
  double n = dn1 + dn2;
  r.u = rank_sum_x - dn1 * (dn1 + 1) / 2.0;
  double mu = dn1 * dn2 / 2.0;
  double variance = dn1 * dn2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(variance > 0)) return r;
  // scipy: U = max(U1, U2), z = (U - mu - 0.5) / sd, p = 2 * sf(z).
  double u_max = std::max(r.u, dn1 * dn2 - r.u);
  double z = (u_max - mu - 0.5) / std::sqrt(variance);
  r.p_value = std::min(1.0, std::erfc(z / std::numbers::sqrt2));  // 2 x upper tail, no 1 - x
  r.valid = true;
  return r;
}

std::vector<double> benjamini_hochberg(std::span<const double> p_values) {
  std::size_t m = p_values.size();
  std::vector<double> q(m, 1.0);
  if (m == 0) return q;
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  double running_min = 1.0;
  for (std::size_t k = m; k-- > 0;) {
    std::size_t idx = order[k];
    double adjusted = p_values[idx] * static_cast<double>(m) / static_cast<double>(k + 1);
    running_min = std::min(running_min, adjusted);
    q[idx] = std::min(1.0, running_min);
  }
  return q;
}

GeoMean geometric_mean_ratio(std::span<const double> ratios, double confidence, double single_low,
                             double single_high) {
  GeoMean g;
  std::vector<double> logs;
  for (double r : ratios) {
    if (r > 0 && std::isfinite(r)) logs.push_back(std::log(r));
  }
  g.count = logs.size();
  if (logs.empty()) return g;
  double m = mean(logs);
  g.value = std::exp(m);
  if (logs.size() == 1) {
    g.ci_low = single_low > 0 ? single_low : g.value;
    g.ci_high = single_high > 0 ? single_high : g.value;
    return g;
  }
  double se = stddev(logs) / std::sqrt(static_cast<double>(logs.size()));
  double q = se == 0
                 ? 0
                 : student_t_quantile(0.5 + confidence / 2.0, static_cast<double>(logs.size() - 1));
  g.ci_low = std::exp(m - q * se);
  g.ci_high = std::exp(m + q * se);
  return g;
}

double minimum_detectable_effect(std::size_t n_base, std::size_t n_candidate, double cv,
                                 double alpha) {
  if (n_base < 2 || n_candidate < 2 || std::isnan(cv)) return k_nan;
  double df = static_cast<double>(n_base + n_candidate - 2);
  double q = student_t_quantile(1.0 - alpha / 2.0, df);
  return q * std::sqrt(1.0 / static_cast<double>(n_base) + 1.0 / static_cast<double>(n_candidate)) *
         cv;
}

TrimmedSummary trimmed_summary(std::span<const double> values, double trim) {
  TrimmedSummary s;
  s.n = values.size();
  if (s.n == 0) return s;
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  s.trimmed = static_cast<std::size_t>(std::floor(trim * static_cast<double>(s.n)));
  std::size_t g = s.trimmed;
  std::size_t h = s.n - 2 * g;
  double sum = 0;
  for (std::size_t i = g; i < s.n - g; ++i) sum += v[i];
  s.mean = sum / static_cast<double>(h);
  if (h < 2) return s;
  // Winsorised values: the g smallest set to the (g+1)-th, the g largest to the (n-g)-th.
  double lo = v[g];
  double hi = v[s.n - g - 1];
  double wsum = 0;
  for (double x : v) wsum += std::clamp(x, lo, hi);
  double wmean = wsum / static_cast<double>(s.n);
  double ss = 0;
  for (double x : v) {
    double d = std::clamp(x, lo, hi) - wmean;
    ss += d * d;
  }
  double winsorized_var = ss / static_cast<double>(s.n - 1);
  double dh = static_cast<double>(h);
  s.variance_of_mean = static_cast<double>(s.n - 1) * winsorized_var / (dh * (dh - 1));
  s.df = dh - 1;
  return s;
}

LogRatioEstimate log_ratio_estimate(std::span<const double> base, std::span<const double> candidate,
                                    const LogRatioOptions& options) {
  LogRatioEstimate r;
  bool ok_base = false;
  bool ok_cand = false;
  std::vector<double> lb = logs_of(base, ok_base);
  std::vector<double> lc = logs_of(candidate, ok_cand);
  if (!ok_base || !ok_cand || lb.size() < 2 || lc.size() < 2) return r;
  auto trim_of = [&](std::size_t n) { return n >= options.min_n_to_trim ? options.trim : 0.0; };
  TrimmedSummary sb = trimmed_summary(lb, trim_of(lb.size()));
  TrimmedSummary sc = trimmed_summary(lc, trim_of(lc.size()));
  if (sb.df < 1 || sc.df < 1) return r;
  // The resolution floor (log_resolution) on each side's per-sample variance, scaled as the
  // trimmed mean's variance is: (n - 1) s^2 / (h (h - 1)).
  const double floor = resolution_floor(lb, lc, base);
  for (TrimmedSummary* t : {&sb, &sc}) {
    const double h = static_cast<double>(t->n - 2 * t->trimmed);
    const double floor_of_mean = static_cast<double>(t->n - 1) * floor / (h * (h - 1));
    t->variance_of_mean = std::max(t->variance_of_mean, floor_of_mean);
  }
  double extra = std::isfinite(options.extra_variance) && options.extra_variance > 0
                     ? options.extra_variance
                     : 0.0;
  r.log_ratio = sc.mean - sb.mean;
  r.ratio = std::exp(r.log_ratio);
  r.var_base = sb.variance_of_mean;
  r.var_candidate = sc.variance_of_mean;
  r.var_extra = extra;
  double var = r.var_base + r.var_candidate + extra;
  r.std_error = std::sqrt(var);
  r.valid = true;
  if (var == 0) {
    // No spread anywhere: identical constants are no change; different constants are certain.
    r.df = sb.df + sc.df;
    r.p_value = r.log_ratio == 0 ? 1.0 : 0.0;
    r.ci_low = r.ci_high = r.ratio;
    return r;
  }
  // Welch-Satterthwaite over every variance component, each with its own degrees of freedom
  // (an infinite extra_df contributes nothing to the denominator).
  double denom = r.var_base * r.var_base / sb.df + r.var_candidate * r.var_candidate / sc.df;
  if (extra > 0 && std::isfinite(options.extra_df) && options.extra_df > 0) {
    denom += extra * extra / options.extra_df;
  }
  r.df = denom > 0 ? var * var / denom : sb.df + sc.df;
  double t = r.log_ratio / r.std_error;
  r.p_value = student_t_two_sided_p(t, r.df);
  double q = student_t_quantile(0.5 + options.confidence / 2.0, r.df);
  r.half_width = q * r.std_error;
  r.ci_low = std::exp(r.log_ratio - r.half_width);
  r.ci_high = std::exp(r.log_ratio + r.half_width);
  return r;
}

}  // namespace gpubench::compare
