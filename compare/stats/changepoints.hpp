// Change points in a series of per-run values (issue 25): E-divisive means (Matteson & James 2014)
// as Apache Otava (formerly Hunter, Fleming et al. 2023) finds them, written here from its method
// (no Python). Pure functions over values: no database, no I/O.
//
// The candidate split of an interval [s, e) is the tau maximising, over s < tau < kappa <= e,
//   Q(tau, kappa) = 2/(m+n) sum_ij |X_i - Y_j| - 2m/((m+n)(n-1)) sum_{i<k} |X_i - X_k|
//                                             - 2n/((m+n)(m-1)) sum_{j<k} |Y_j - Y_k|
// with X = values[s, tau) (n values) and Y = values[tau, kappa) (m values). A candidate becomes a
// change point when its significance test passes; the next candidate is the best split of any of
// the intervals the change points leave, until one fails.
//
// Two significance tests:
//   permutation: the values of every interval are shuffled (seeded: the same series gives the same
//                answer) and the best Q found again; p = (1 + #{Q_perm >= Q}) / (1 + permutations).
//                It accounts for the choice of the best split, so on a series without change the
//                false rate is about max_pvalue. Stops early once p cannot reach max_pvalue.
//   ttest:       Otava's default: Student's t between the two sides (its split-merge with sliding
//                windows, `otava_change_points`), cheap, but the p of a chosen split is optimistic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace gpubench::compare {

// The two sides of a change point and the test between them (Otava's TTestStats).
struct ChangePointStats {
  double mean_before = 0;
  double mean_after = 0;
  double sd_before = 0;  // population sd (n denominator), as Otava
  double sd_after = 0;
  double p_value = 1;
};

struct ChangePoint {
  std::size_t index = 0;  // first value of the new level (values[index] is after the change)
  double qhat = 0;        // the E-divisive statistic of its split
  ChangePointStats stats;
  double magnitude = 0;  // relative change, max of forward and backward (fraction)
  // Which test decided: false when a permutation test was asked for but the interval was too
  // short for one (ChangePointOptions::short_interval_ttest).
  bool by_permutation = false;
};

enum class Significance { permutation, ttest };
// How magnitudes are read: `linear` values give mean_after / mean_before - 1 (Otava); `log`
// values (log medians) give exp(mean_after - mean_before) - 1.
enum class ValueScale { linear, log };

// Otava's compute_change_points: split (E-divisive with a t-test at 10x max_pvalue on sliding
// windows of window_len, step window_len / 2), then merge (drop the weakest point while its p >=
// max_pvalue or its magnitude <= min_magnitude, recomputing its neighbours). Reproduces Otava's
// results index for index (tests/compare/test_changepoints.cpp holds its test data).
std::vector<ChangePoint> otava_change_points(std::span<const double> values,
                                             std::size_t window_len = 50, double max_pvalue = 0.001,
                                             double min_magnitude = 0.0,
                                             ValueScale scale = ValueScale::linear);

// Otava's E-divisive detector with a t-test on the whole series (no windows, no merge).
std::vector<ChangePoint> e_divisive_ttest(std::span<const double> values, double max_pvalue);

// gpubench's detector (history, --changes): E-divisive on the whole series with the chosen test,
// each side of a split at least `min_segment` values long, then change points whose magnitude is
// below `min_magnitude` (the practical threshold delta) merged away, weakest first.
struct ChangePointOptions {
  Significance significance = Significance::permutation;
  double max_pvalue = 0.001;
  std::size_t permutations = 999;  // permutation test; p can reach 1 / (permutations + 1)
  uint64_t seed = 1;               // of the permutation shuffles
  std::size_t min_segment = 3;     // values per side, >= 1
  double min_magnitude = 0.02;     // delta, fraction; 0 keeps every significant point
  ValueScale scale = ValueScale::log;
  // A permutation test of a split of L values into k and L - k (k the smaller side) cannot give
  // p below about 2 / C(L, k) (so few distinct ways to put k values on one side): 6 runs then 6
  // others can never reach p <= 0.001. Where C(L, k) < 2 / max_pvalue, the t-test decides instead,
  // its p multiplied by the number of split positions tried (Bonferroni: the chosen split is the
  // best of them, so an unadjusted p would be optimistic).
  bool short_interval_ttest = true;
};
std::vector<ChangePoint> detect_change_points(std::span<const double> values,
                                              const ChangePointOptions& options = {});

// Student's t (pooled variance) between two groups as Otava computes it (population sds).
ChangePointStats two_sample_stats(std::span<const double> before, std::span<const double> after);

}  // namespace gpubench::compare
