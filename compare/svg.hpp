// Small inline-SVG chart helpers for the HTML reports (no scripts, no external resources).
#pragma once

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
void interval_chart(std::ostream& out, const std::string& title,
                    const std::vector<IntervalRow>& rows);

}  // namespace gpubench::compare::svg
