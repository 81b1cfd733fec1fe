// Compare's reading of benchmarks stored as aggregates only (results/schema/aggregates.hpp, issue
// 23).
//
// A mean or median of repetitions that are not in the file is one number (n = 1): no interval
// can be honest with it, so the series is `inconclusive` with the reason "aggregates only: rerun
// with repetitions", and the ratio of the two sides' central values is shown for people.
// Complexity fits (BigO coefficient, RMS) describe how a time scales, not a time: they are listed
// as complexity fits, not compared.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "results/store.hpp"

namespace gpubench::compare {

struct AggregateReading {
  bool complexity_fit = false;  // true: list it as skipped with `reason`; false: inconclusive
  std::string reason;
  double ratio = 0;  // candidate / base central value; NaN when a side has none
};

// Nothing when both sides have repetitions (the usual statistics apply); else how the series
// is read. A side has repetitions when any of its rows has iteration values.
std::optional<AggregateReading> read_aggregates(std::span<const results::ResultRow* const> base,
                                                std::span<const results::ResultRow* const> candidate);

// What `show` says of a row without repetitions: "aggregates only (mean 8.00, median 8.00):
// rerun with repetitions", "complexity fit O(N): BigO 6.479", "" for a row with repetitions.
std::string aggregates_note(const results::ResultRow& row);

}  // namespace gpubench::compare
