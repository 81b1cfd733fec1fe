// Small inline-SVG chart helpers for the HTML reports (no scripts, no external resources).
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace gpubench::compare::svg {

struct Series {
  std::string label;
  std::string colour;                             // CSS colour
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};

// A line chart of y against x; x on a log2 axis when the points span more than 16x.
// Titles and labels are escaped here.
void line_chart(std::ostream& out, const std::string& title, const std::string& x_label,
                const std::string& y_label, const std::vector<Series>& series);

struct IntervalRow {
  std::string label;
  double value = 1;  // speed-up, > 1 better
  double low = 1;
  double high = 1;
  std::string css_class;  // verdict
};

// A forest plot: one row per benchmark, point + interval on a log axis, reference line at 1.
// The label column is as wide as the longest label (monospace), so no label is ever cut.
void interval_chart(std::ostream& out, const std::string& title,
                    const std::vector<IntervalRow>& rows);

// Tick labels of the ratio axis are 11px text; k_tick_char_w is a character's width measured in
// headless Chromium (DejaVu Sans digits, 6.4 px) with room to spare, k_tick_gap the least space
// between two labels (issue 26: "1.000×1.050×1.100×" ran together on a wide axis).
inline constexpr double k_tick_char_w = 7.0;
inline constexpr double k_tick_gap = 8.0;
std::string ratio_tick_text(double ratio);  // "1.05×"
// An axis number: 3 significant digits, no trailing zeros ("1", "1.05", "250").
std::string tick_number(double v);
// Ticks for a ratio axis from lo to hi drawn at x(value) px: 1, the ends and round ratios, each
// kept only when its label (k_tick_char_w a character) stays within [min_x, max_x] and clears
// every label already kept by k_tick_gap; ascending.
std::vector<double> ratio_ticks(double lo, double hi, const std::function<double(double)>& x,
                                double min_x, double max_x);

// A histogram: bar i counts the values in [edges[i], edges[i + 1]) (edges ascending, one more
// than counts). The first and last bars also hold the values beyond the range (their tick labels
// say "<=" / ">="), so every value is counted once. Each bar's <title> gives its range and count.
// For distributions of many entries: the chart's size does not depend on how many there are.
void histogram_chart(std::ostream& out, const std::string& title, const std::string& x_label,
                     const std::vector<double>& edges, const std::vector<std::size_t>& counts,
                     const std::string& colour);

// Short labels that still tell rows apart (issue 9): for each row a benchmark name and a suffix
// (metric, device). Google Benchmark's run-control parts (iterations:N, manual_time, ...) are
// dropped, leading path segments and suffixes common to every row are removed, and large numbers
// are shortened (bytes:67108864 -> bytes:64Mi, 1000000 -> 1M) unless that would make two labels
// equal. The result has one label per row, every label unique (a row whose cleaned name equals
// another keeps its full name).
std::vector<std::string> compact_labels(const std::vector<std::string>& benchmarks,
                                        const std::vector<std::string>& suffixes);

// Shortens one number for people: 67108864 -> "64Mi" (powers of two from 1024), 250000 -> "250k",
// 1000000 -> "1M"; other values as written.
std::string short_number(const std::string& text);

// Orders names with digit runs compared as numbers ("bytes:250000" before "bytes:1000000").
bool natural_less(const std::string& a, const std::string& b);

}  // namespace gpubench::compare::svg
