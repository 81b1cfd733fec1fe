// The verdict of one compared series (DESIGN.md "Statistics"; compare/README.md "Verdict
// rules"). Internal to compare_sides: estimate() fills the figures of an entry whose sides both
// have >= 3 positive samples, decide() turns them, with the Benjamini-Hochberg q, into a verdict.
#pragma once

#include <vector>

#include "compare/compare.hpp"

namespace gpubench::compare::detail {

// The reason an entry built from executions carries until estimate_by_execution sets its figures.
inline constexpr const char* k_pending_executions = "pending: executions";

// The two-level estimate (compare/stats/executions.hpp) of every entry marked
// k_pending_executions: per suite, the series' execution log means (oriented so a slow process
// is positive for every series) give each series' between-execution noise (the suite's shared
// effect plus its own part, moderated over the suite); history's run-level remainder is added
// where it exists. Entries it estimates get the reason "pending" (decided after
// Benjamini-Hochberg); those it cannot, an inconclusive verdict with the reason.
void estimate_by_execution(std::vector<Entry>& entries, const Options& options);

// Runs the estimator on the entry's sides, adding the series' run-to-run variance from history
// for each side that is not already per-run medians. Returns false (and sets an inconclusive
// verdict with its reason) when the values cannot be estimated (a non-positive value).
bool estimate(Entry& e, const Options& options);

// regression / improvement: the interval lies wholly on one side of 1, the point is beyond
// +-delta and q < alpha; changed: the same for a metric of unknown direction; unchanged: the
// interval lies inside +-delta; inconclusive otherwise, with how many repetitions or runs would
// decide it. `tested` = how many entries Benjamini-Hochberg ran over (for the reason).
void decide(Entry& e, const Options& options, std::size_t tested);

// "2%" style percentages for reasons.
std::string pct(double fraction);

}  // namespace gpubench::compare::detail
