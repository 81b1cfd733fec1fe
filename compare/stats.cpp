#include "compare/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

namespace gpubench::compare {
namespace {

constexpr double k_nan = std::numeric_limits<double>::quiet_NaN();

// Continued fraction for the incomplete beta (modified Lentz), Numerical Recipes 3rd ed. 6.4.
double beta_continued_fraction(double a, double b, double x) {
  constexpr int k_max_iterations = 300;
  constexpr double k_eps = 1e-15;
  constexpr double k_tiny = 1e-300;
  double qab = a + b;
  double qap = a + 1.0;
  double qam = a - 1.0;
  double c = 1.0;
  double d = 1.0 - qab * x / qap;
  if (std::fabs(d) < k_tiny) d = k_tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= k_max_iterations; ++m) {
    double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < k_tiny) d = k_tiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < k_tiny) c = k_tiny;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    if (std::fabs(d) < k_tiny) d = k_tiny;
    c = 1.0 + aa / c;
    if (std::fabs(c) < k_tiny) c = k_tiny;
    d = 1.0 / d;
    double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) < k_eps) break;
  }
  return h;
}

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

}  // namespace

double median(std::span<const double> values) {
  if (values.empty()) return k_nan;
  std::vector<double> v(values.begin(), values.end());
  std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
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
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  double front = std::exp(log_front);
  // The continued fraction converges fast for x < (a+1)/(a+b+2); use the symmetry otherwise.
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(a, b, x) / a;
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

double student_t_cdf(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return k_nan;
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  double x = df / (df + t * t);
  double tail = 0.5 * incomplete_beta(df / 2.0, 0.5, x);  // P(T > |t|)
  return t > 0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return k_nan;
  if (p == 0.5) return 0;
  double target = p < 0.5 ? 1.0 - p : p;
  // Newton on the cdf from the normal quantile (a few steps for usual df), guarded by a bracket
  // and falling back to bisection when a step leaves it; compare calls this once per series.
  double log_norm =
      std::lgamma((df + 1) / 2) - std::lgamma(df / 2) - 0.5 * std::log(df * std::numbers::pi);
  auto pdf = [&](double t) { return std::exp(log_norm - (df + 1) / 2 * std::log1p(t * t / df)); };
  double lo = 0;
  double hi = 1;
  while (student_t_cdf(hi, df) < target && hi < 1e12) hi *= 2;
  double x = std::clamp(normal_quantile(target), lo, hi);
  for (int i = 0; i < 100; ++i) {
    double f = student_t_cdf(x, df) - target;
    if (f < 0) {
      lo = x;
    } else {
      hi = x;
    }
    if (std::fabs(f) < 1e-15 || hi - lo < 1e-13 * std::max(1.0, hi)) break;
    double d = pdf(x);
    double next = d > 0 ? x - f / d : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::fabs(next - x) < 1e-14 * std::max(1.0, std::fabs(x))) {
      x = next;
      break;
    }
    x = next;
  }
  return p < 0.5 ? -x : x;
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
  r.p_value = std::min(1.0, 2.0 * (1.0 - student_t_cdf(std::fabs(r.t), r.df)));
  return r;
}

RatioEstimate ratio_of_medians(std::span<const double> base, std::span<const double> candidate,
                               double confidence) {
  RatioEstimate r;
  bool ok_base = false;
  bool ok_cand = false;
  std::vector<double> lb = logs_of(base, ok_base);
  std::vector<double> lc = logs_of(candidate, ok_cand);
  if (!ok_base || !ok_cand || lb.empty() || lc.empty()) return r;
  r.ratio = median(candidate) / median(base);
  WelchResult w = welch_t_test(lb, lc);
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
  r.p_value = std::min(1.0, 2.0 * (1.0 - normal_cdf(z)));
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

}  // namespace gpubench::compare
