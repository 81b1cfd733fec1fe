// Compare's reading of aggregate-only series (compare/aggregates.hpp).
#include "compare/aggregates.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "compare/stats/stats.hpp"
#include "results/schema/aggregates.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {

namespace {

struct SideReading {
  bool repetitions = false;     // some row has iteration values
  std::vector<double> values;   // every iteration value of the side
  std::vector<std::string> statistics;  // aggregate kinds seen, in name order, each once
  std::string complexity;       // big_o of a complexity fit
  bool complexity_fit = false;
  double median = std::nan("");  // the aggregate median (first row that has one)
  double mean = std::nan("");
};

SideReading read_side(std::span<const results::ResultRow* const> rows) {
  SideReading s;
  for (const results::ResultRow* r : rows) {
    if (!r->values.empty()) {
      s.repetitions = true;
      s.values.insert(s.values.end(), r->values.begin(), r->values.end());
    }
    for (const auto& [kind, value] : r->aggregates) {
      // Google Benchmark before 1.5 wrote aggregate rows without naming their statistic.
      const std::string named = kind == "aggregate" ? "an unnamed statistic" : kind;
      if (std::find(s.statistics.begin(), s.statistics.end(), named) == s.statistics.end()) {
        s.statistics.push_back(named);
      }
      if (results::is_complexity_statistic(kind)) s.complexity_fit = true;
      if (kind == "median" && std::isnan(s.median)) s.median = value;
      if (kind == "mean" && std::isnan(s.mean)) s.mean = value;
    }
    if (s.complexity.empty()) s.complexity = r->complexity;
  }
  std::sort(s.statistics.begin(), s.statistics.end());
  return s;
}

// The side's central value: the median of its repetitions, else its median aggregate, else its
// mean aggregate; NaN when it has none (an aggregate the file did not name).
double central(const SideReading& s) {
  if (s.repetitions) return median(s.values);
  return std::isnan(s.median) ? s.mean : s.median;
}

}  // namespace

std::optional<AggregateReading> read_aggregates(
    std::span<const results::ResultRow* const> base,
    std::span<const results::ResultRow* const> candidate) {
  const SideReading b = read_side(base);
  const SideReading c = read_side(candidate);
  const bool b_only = !b.repetitions && !b.statistics.empty();
  const bool c_only = !c.repetitions && !c.statistics.empty();
  if (!b_only && !c_only) return std::nullopt;
  AggregateReading out;
  if ((b_only && b.complexity_fit) || (c_only && c.complexity_fit)) {
    out.complexity_fit = true;
    const std::string& big_o = b.complexity.empty() ? c.complexity : b.complexity;
    out.reason = "complexity fit " + results::complexity_text(big_o) + ": listed, not compared";
    return out;
  }
  std::vector<std::string> sides;
  if (b_only) sides.push_back("base has " + join(b.statistics, ", "));
  if (c_only) sides.push_back("candidate has " + join(c.statistics, ", "));
  out.reason = "aggregates only: rerun with repetitions (" + join(sides, "; ") +
               ", statistics of repetitions not in the file: n = 1)";
  const double vb = central(b), vc = central(c);
  out.ratio = vb > 0 && vc > 0 ? vc / vb : std::nan("");
  return out;
}

std::string aggregates_note(const results::ResultRow& row) {
  if (!row.values.empty() || row.aggregates.empty()) return {};
  std::vector<std::string> parts;
  bool complexity = false;
  for (const auto& [kind, value] : row.aggregates) {
    if (kind == "BigO") {
      complexity = true;
      parts.push_back("coefficient " + format_significant(value, 4));
    } else if (kind == "RMS") {
      complexity = true;
      parts.push_back("RMS " + format_significant(value * 100, 3) + "%");
    } else if (kind == "cv") {
      parts.push_back("cv " + format_significant(value * 100, 3) + "%");
    } else {
      parts.push_back(kind + " " + format_significant(value, 4));
    }
  }
  if (complexity) {
    return "complexity fit " + results::complexity_text(row.complexity) + ": " + join(parts, ", ") +
           " (listed, not compared)";
  }
  return "aggregates only (" + join(parts, ", ") + "): rerun with repetitions";
}

}  // namespace gpubench::compare
