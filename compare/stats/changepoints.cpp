#include "compare/stats/changepoints.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "compare/stats/stats.hpp"

namespace gpubench::compare {
namespace {

// Half-open [begin, end) ranges of the series between change points.
struct Interval {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t size() const { return end - begin; }
};

// The intervals change points (sorted by index) leave in a series of n values; empty ones
// dropped (Otava's get_intervals).
std::vector<Interval> intervals_of(const std::vector<ChangePoint>& points, std::size_t n) {
  std::vector<Interval> out;
  std::size_t begin = 0;
  for (const ChangePoint& p : points) {
    if (p.index != begin) out.push_back({begin, p.index});
    begin = p.index;
  }
  if (begin != n) out.push_back({begin, n});
  return out;
}

struct Candidate {
  std::size_t index = 0;
  double qhat = -std::numeric_limits<double>::infinity();
  bool found = false;
};

// E-divisive's Q over one series. within(a, b) = sum_{a <= i < k < b} |v_i - v_k| is kept for
// every a < b (O(n^2) memory and time once), so every Q(tau, kappa) of any interval is O(1):
// the cross term is within(s, kappa) - within(s, tau) - within(tau, kappa).
class PairDistances {
 public:
  explicit PairDistances(std::span<const double> values)
      : m_n(values.size()), m_within((m_n + 1) * (m_n + 1), 0.0) {
    for (std::size_t b = 2; b <= m_n; ++b) {
      double column = 0;  // sum_{i = a}^{b - 2} |v_i - v_{b-1}|
      for (std::size_t a = b - 1; a-- > 0;) {
        column += std::fabs(values[a] - values[b - 1]);
        within(a, b) = within(a, b - 1) + column;
      }
    }
  }

  // The best split of [begin, end) with both sides at least `min_segment` long; not found when
  // the interval is too short. Ties go to the smallest tau, then kappa (numpy's argmax order).
  Candidate best(const Interval& iv, std::size_t min_segment) const {
    Candidate c;
    if (iv.size() < 2 * min_segment) return c;
    const std::size_t s = iv.begin;
    for (std::size_t tau = s + min_segment; tau + min_segment <= iv.end; ++tau) {
      const double n = static_cast<double>(tau - s);
      const double w_x = within(s, tau);
      for (std::size_t kappa = tau + min_segment; kappa <= iv.end; ++kappa) {
        const double m = static_cast<double>(kappa - tau);
        const double w_y = within(tau, kappa);
        const double cross = within(s, kappa) - w_x - w_y;
        double q = 2.0 / (m + n) * cross;
        if (n > 1) q -= 2.0 * m / ((m + n) * (n - 1)) * w_x;
        if (m > 1) q -= 2.0 * n / ((m + n) * (m - 1)) * w_y;
        if (q > c.qhat) {
          c.qhat = q;
          c.index = tau;
          c.found = true;
        }
      }
    }
    return c;
  }

  // The best candidate over every interval (the first of equal ones, as Python's max).
  Candidate best(const std::vector<Interval>& intervals, std::size_t min_segment) const {
    Candidate best_of_all;
    for (const Interval& iv : intervals) {
      if (iv.size() <= 1) continue;
      Candidate c = best(iv, min_segment);
      if (c.found && (!best_of_all.found || c.qhat > best_of_all.qhat)) best_of_all = c;
    }
    return best_of_all;
  }

 private:
  double& within(std::size_t a, std::size_t b) { return m_within[a * (m_n + 1) + b]; }
  double within(std::size_t a, std::size_t b) const { return m_within[a * (m_n + 1) + b]; }
  std::size_t m_n;
  std::vector<double> m_within;
};

double forward_change(double before, double after, ValueScale scale) {
  if (scale == ValueScale::log) return std::exp(after - before) - 1.0;
  return before == 0 ? 0.0 : after / before - 1.0;
}

double magnitude_of(const ChangePointStats& s, ValueScale scale) {
  return std::max(std::fabs(forward_change(s.mean_before, s.mean_after, scale)),
                  std::fabs(forward_change(s.mean_after, s.mean_before, scale)));
}

// Stats of a change point at `index` between the intervals around it: the one it splits (a new
// point) or the two it separates (an existing point, Otava's merge step).
ChangePointStats stats_at(std::span<const double> values, std::size_t index,
                          const std::vector<Interval>& intervals) {
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    const Interval& iv = intervals[i];
    Interval left, right;
    if (iv.end == index && i + 1 < intervals.size()) {
      left = iv;
      right = intervals[i + 1];
    } else if (iv.begin < index && index < iv.end) {
      left = {iv.begin, index};
      right = {index, iv.end};
    } else {
      continue;
    }
    return two_sample_stats(values.subspan(left.begin, left.size()),
                            values.subspan(right.begin, right.size()));
  }
  return {};
}

// Fisher-Yates with an unbiased bounded draw from mt19937_64 (whose sequence the standard fixes,
// unlike std::shuffle's use of it), so a seed gives the same permutations on every platform.
void shuffle(std::span<double> values, std::mt19937_64& rng) {
  for (std::size_t i = values.size(); i > 1; --i) {
    const uint64_t bound = i;
    const uint64_t limit =
        std::numeric_limits<uint64_t>::max() - (std::numeric_limits<uint64_t>::max() % bound);
    uint64_t r;
    do r = rng();
    while (r >= limit);
    std::swap(values[i - 1], values[r % bound]);
  }
}

// p of a candidate by permutation: shuffles inside every interval, finds the best Q again.
double permutation_p(std::span<const double> values, const std::vector<Interval>& intervals,
                     double qhat, const ChangePointOptions& options, std::mt19937_64& rng) {
  const double total = static_cast<double>(options.permutations) + 1.0;
  std::vector<double> shuffled(values.begin(), values.end());
  std::size_t extreme = 0;
  for (std::size_t p = 0; p < options.permutations; ++p) {
    for (const Interval& iv : intervals) {
      shuffle(std::span<double>(shuffled).subspan(iv.begin, iv.size()), rng);
    }
    const Candidate c = PairDistances(shuffled).best(intervals, options.min_segment);
    if (c.found && c.qhat >= qhat) ++extreme;
    // p can no longer reach max_pvalue: stop (the answer is "not significant" either way).
    if ((1.0 + static_cast<double>(extreme)) / total > options.max_pvalue) {
      return (1.0 + static_cast<double>(extreme)) / (2.0 + static_cast<double>(p));
    }
  }
  return (1.0 + static_cast<double>(extreme)) / total;
}

Interval interval_of(const std::vector<Interval>& intervals, std::size_t index) {
  for (const Interval& iv : intervals) {
    if (iv.begin < index && index < iv.end) return iv;
  }
  return {};
}

// C(size, side) < 2 / max_pvalue, without overflow.
bool too_short_to_permute(std::size_t size, std::size_t side, const ChangePointOptions& options) {
  const double needed = 2.0 / options.max_pvalue;
  double arrangements = 1;
  for (std::size_t i = 0; i < side; ++i) {
    arrangements *= static_cast<double>(size - i) / static_cast<double>(i + 1);
    if (arrangements >= needed) return false;
  }
  return arrangements < needed;
}

void insert_sorted(std::vector<ChangePoint>& points, ChangePoint point) {
  auto at = std::lower_bound(points.begin(), points.end(), point.index,
                             [](const ChangePoint& p, std::size_t i) { return p.index < i; });
  points.insert(at, point);
}

// The divisive loop (Otava's ChangePointDetector): the best candidate of all intervals, kept
// while significant.
std::vector<ChangePoint> divisive(std::span<const double> values, const ChangePointOptions& options,
                                  ValueScale scale) {
  std::vector<ChangePoint> points;
  const PairDistances distances(values);
  std::mt19937_64 rng(options.seed);
  while (true) {
    const std::vector<Interval> intervals = intervals_of(points, values.size());
    const Candidate c = distances.best(intervals, options.min_segment);
    if (!c.found) break;
    ChangePoint point;
    point.index = c.index;
    point.qhat = c.qhat;
    point.stats = stats_at(values, c.index, intervals);
    if (options.significance == Significance::permutation) {
      const Interval iv = interval_of(intervals, c.index);
      const std::size_t smaller = std::min(c.index - iv.begin, iv.end - c.index);
      if (options.short_interval_ttest && too_short_to_permute(iv.size(), smaller, options)) {
        const double splits = static_cast<double>(iv.size() - 2 * options.min_segment + 1);
        point.stats.p_value = std::min(1.0, point.stats.p_value * splits);
      } else {
        point.stats.p_value = permutation_p(values, intervals, c.qhat, options, rng);
        point.by_permutation = true;
      }
    }
    point.magnitude = magnitude_of(point.stats, scale);
    if (!(point.stats.p_value <= options.max_pvalue)) break;
    insert_sorted(points, point);
  }
  return points;
}

void restat(std::span<const double> values, std::vector<ChangePoint>& points, std::size_t at,
            ValueScale scale, bool keep_p) {
  if (at >= points.size()) return;
  const double p = points[at].stats.p_value;
  points[at].stats = stats_at(values, points[at].index, intervals_of(points, values.size()));
  if (keep_p) points[at].stats.p_value = p;
  points[at].magnitude = magnitude_of(points[at].stats, scale);
}

}  // namespace

ChangePointStats two_sample_stats(std::span<const double> before, std::span<const double> after) {
  ChangePointStats s;
  if (before.empty() || after.empty()) return s;
  const double n1 = static_cast<double>(before.size());
  const double n2 = static_cast<double>(after.size());
  s.mean_before = mean(before);
  s.mean_after = mean(after);
  auto pop_sd = [](std::span<const double> v, double m) {
    if (v.size() < 2) return 0.0;
    double sum = 0;
    for (double x : v) sum += (x - m) * (x - m);
    return std::sqrt(sum / static_cast<double>(v.size()));
  };
  s.sd_before = pop_sd(before, s.mean_before);
  s.sd_after = pop_sd(after, s.mean_after);
  if (n1 + n2 <= 2) return s;  // p stays 1
  // scipy's ttest_ind_from_stats(equal_var=True) with the sds Otava passes it.
  const double df = n1 + n2 - 2;
  const double pooled =
      ((n1 - 1) * s.sd_before * s.sd_before + (n2 - 1) * s.sd_after * s.sd_after) / df;
  const double se = std::sqrt(pooled * (1 / n1 + 1 / n2));
  const double diff = s.mean_before - s.mean_after;
  if (se == 0) {
    s.p_value = diff == 0 ? 1.0 : 0.0;
  } else {
    s.p_value = student_t_two_sided_p(diff / se, df);
  }
  return s;
}

std::vector<ChangePoint> e_divisive_ttest(std::span<const double> values, double max_pvalue) {
  ChangePointOptions o;
  o.significance = Significance::ttest;
  o.max_pvalue = max_pvalue;
  o.min_segment = 1;
  return divisive(values, o, ValueScale::linear);
}

std::vector<ChangePoint> otava_change_points(std::span<const double> values, std::size_t window_len,
                                             double max_pvalue, double min_magnitude,
                                             ValueScale scale) {
  const double first_pass = max_pvalue < 0.05  ? max_pvalue * 10
                            : max_pvalue < 0.5 ? max_pvalue * 2
                                               : max_pvalue;
  ChangePointOptions o;
  o.significance = Significance::ttest;
  o.max_pvalue = first_pass;
  o.min_segment = 1;
  // Split: the union of every window's change points.
  std::vector<ChangePoint> points;
  const std::size_t step = std::max<std::size_t>(window_len / 2, 1);
  std::size_t start = 0;
  while (start < values.size()) {
    const std::size_t end = std::min(start + window_len, values.size());
    std::vector<ChangePoint> found = divisive(values.subspan(start, end - start), o, scale);
    std::size_t last = 0;
    for (ChangePoint& p : found) {
      p.index += start;
      last = p.index;
      if (std::none_of(points.begin(), points.end(),
                       [&](const ChangePoint& q) { return q.index == p.index; })) {
        points.push_back(p);
      }
    }
    start = std::max(last, start + step);
  }
  std::sort(points.begin(), points.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  for (std::size_t i = 0; i < points.size(); ++i) restat(values, points, i, scale, false);
  // Merge: drop the weakest while it fails the p or the magnitude bar. As Otava, only the
  // points now at the removed one's position and the next are recomputed.
  while (!points.empty()) {
    auto weakest = std::max_element(points.begin(), points.end(),
                                    [](const ChangePoint& a, const ChangePoint& b) {
                                      return a.stats.p_value < b.stats.p_value;
                                    });
    if (weakest->stats.p_value < max_pvalue) {
      weakest = std::min_element(
          points.begin(), points.end(),
          [](const ChangePoint& a, const ChangePoint& b) { return a.magnitude < b.magnitude; });
      if (weakest->magnitude > min_magnitude) break;
    }
    const std::size_t k = static_cast<std::size_t>(weakest - points.begin());
    points.erase(weakest);
    restat(values, points, k, scale, false);
    restat(values, points, k + 1, scale, false);
  }
  return points;
}

std::vector<ChangePoint> detect_change_points(std::span<const double> values,
                                              const ChangePointOptions& options) {
  ChangePointOptions o = options;
  o.min_segment = std::max<std::size_t>(o.min_segment, 1);
  std::vector<ChangePoint> points = divisive(values, o, o.scale);
  // The magnitude floor: the smallest change goes first, and its neighbours' sides grow.
  for (std::size_t i = 0; i < points.size(); ++i) restat(values, points, i, o.scale, true);
  while (!points.empty()) {
    auto weakest = std::min_element(
        points.begin(), points.end(),
        [](const ChangePoint& a, const ChangePoint& b) { return a.magnitude < b.magnitude; });
    if (weakest->magnitude >= o.min_magnitude) break;
    const std::size_t k = static_cast<std::size_t>(weakest - points.begin());
    points.erase(weakest);
    if (k > 0) restat(values, points, k - 1, o.scale, true);
    restat(values, points, k, o.scale, true);
  }
  return points;
}

}  // namespace gpubench::compare
