// The median, in one place (issue 27): the store's per-run series medians (results/
// series_medians.cpp) and compare's statistics (compare/stats/stats.cpp) computed it with two
// formulas that could differ in the last bit for an even count, and five suites had a copy of their
// own. All use this one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gpubench {

// The median of [first, last), reordering it; the range must not be empty. For an even count the
// midpoint of the two middle values, as lower + (upper - lower) / 2 (no overflow near the largest
// doubles).
inline double median_in_place(double* first, double* last) {
  const std::ptrdiff_t n = last - first;
  double* mid = first + n / 2;
  std::nth_element(first, mid, last);
  const double upper = *mid;
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(first, mid);
  return lower + (upper - lower) / 2;
}

// The median of `values`, 0 when there are none: the suites' per-call times and bandwidths (a
// case without samples reports no figure anyone reads: it is skipped or failed first).
inline double median(std::vector<double> values) {
  return values.empty() ? 0.0 : median_in_place(values.data(), values.data() + values.size());
}

}  // namespace gpubench
