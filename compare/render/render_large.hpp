// The layout of comparisons and run reports with many entries (issue 16), shared by the HTML and
// Markdown renderers. Above k_large_report_entries entries a report lists, in full, only what a
// user must act on (regression, improvement, changed, invalid, missing), lists the inconclusive
// entries compactly, charts the rest per suite as distributions, and puts the unchanged entries
// in a CSV file beside the report (when it is written to a file) or a collapsed block.
// Smaller reports keep the full layout: every entry in one table, as before.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "compare/compare.hpp"

namespace gpubench::compare {

// "A few thousand": below this the full table stays readable (about 1.5 MB of HTML) and opens in
// Chromium in about a second; above it the table is what makes a report slow and unreadable.
inline constexpr std::size_t k_large_report_entries = 5000;
// The large layout draws sweeps of at most this many points (60 charts of thousands of points
// each would be most of the page); longer ones are counted in a note.
inline constexpr std::size_t k_max_large_sweep_points = 500;
// Bins of each per-suite distribution chart.
inline constexpr std::size_t k_histogram_bins = 40;

// True when a report of this many entries uses the large layout.
inline bool is_large_report(std::size_t entries) {
  return entries > k_large_report_entries;
}

// The file beside `output` that holds what a large report does not list:
// ("out/cmp.html", ".unchanged.csv") -> "out/cmp.unchanged.csv". "" when output is stdout
// ("" or "-").
std::string sidecar_path(const std::string& output, std::string_view suffix);
// The name a report uses for its sidecar (the file name: it lies in the report's directory).
std::string sidecar_name(const std::string& sidecar);

// Full rows (with the why) a verdict gets at most in the large layout. A driver change that
// slows everything makes 200,000 regressions: the largest 1,000 changes get full rows (~0.5 KB
// each), the rest a compact line each (~0.1 KB), so the page stays under 20 MB and names them all.
inline constexpr std::size_t k_max_full_rows = 1000;

// Entries of a large comparison in the order a user acts on them: one group per verdict
// (regression, improvement, changed, invalid, missing), then the inconclusive and the unchanged.
struct VerdictGroup {
  Verdict verdict = Verdict::regression;
  std::size_t size = 0;
  // Reading order (entries_in_order) when the group has at most k_max_full_rows entries; else the
  // k_max_full_rows largest changes (|log ratio|), and `compact` the rest, largest change first.
  std::vector<const Entry*> full;
  std::vector<const Entry*> compact;
};
struct LargeGroups {
  std::vector<VerdictGroup> listed;
  std::vector<const Entry*> inconclusive;  // worst change first
  std::vector<const Entry*> unchanged;     // reading order
};
LargeGroups group_large(const Comparison& cmp);

// Change of an entry in percent, > 0 better (the speed-up; the plain ratio when the direction is
// unknown). NaN when unknown.
double change_percent(const Entry& e);

// A per-suite distribution: bins over [edges.front(), edges.back()] (the 0.5% and 99.5% points,
// so one outlier does not squash the rest; the end bins also hold the values beyond them).
struct Distribution {
  std::string suite;
  std::vector<double> edges;
  std::vector<std::size_t> counts;
  std::size_t total = 0;
  double median = 0, p05 = 0, p95 = 0, min = 0, max = 0;
};
// One distribution per suite of `values` (suite, value) pairs; NaN values are left out.
std::vector<Distribution> distributions(std::vector<std::pair<std::string, double>> values);

// One compact line for an entry: change (%), interval (%, without the signs), n, then benchmark,
// metric, device: "-16.70% [-19.23, -14.10] 4/4 memory/triad/bytes:1024 GB_per_s gpu0".
// Interval::left_out leaves the interval out (unchanged entries: it lies inside +-threshold).
enum class Interval { shown, left_out };
std::string compact_line(const Entry& e, Interval interval);

// The CSV of unchanged entries (header + one row each; numbers in full precision).
void write_entries_csv(const std::vector<const Entry*>& entries, std::ostream& out);
// Writes `text` to `path` atomically (util/fs.hpp); errors name the path.
void write_sidecar(const std::string& path, const std::string& text);

}  // namespace gpubench::compare
