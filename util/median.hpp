// The median, in one place (issue 27): the store's per-run series medians (results/
// series_medians.cpp) and compare's statistics (compare/stats.cpp) computed it with two formulas
// that could differ in the last bit for an even count. Both use this one.
#pragma once

#include <algorithm>
#include <cstddef>

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

}  // namespace gpubench
