// Parts of `gpubench report`'s renderers shared by report.cpp (every format) and report_large.cpp
// (the large HTML and Markdown layout, render_large.hpp). Internal to compare/.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "compare/report/report.hpp"

namespace gpubench::compare::report_detail {

const char* status_text(results::BenchmarkStatus s);
std::string cv_text(double cv);
// The cells of one row under k_header.
std::vector<std::string> cells(const ReportRow& r);
extern const std::vector<std::string> k_header;
std::string title_of(const RunReport& r);
std::vector<std::pair<std::string, std::string>> suite_lines(const RunReport& r);
std::vector<std::pair<std::string, std::string>> environment(const RunReport& r);
// The CSV of `report --format csv` (header + rows), only the rows `keep` accepts (null: all).
void write_rows_csv(const std::vector<ReportRow>& rows, std::ostream& out,
                    bool (*keep)(const ReportRow&) = nullptr);
// HTML from the head to the suites table (inclusive), and the sweep charts.
void write_html_head(const RunReport& r, std::ostream& out);
// max_points: sweeps of more points are counted in a note, not drawn (the large layout).
void write_html_sweeps(const RunReport& r, std::ostream& out,
                       std::size_t max_points = static_cast<std::size_t>(-1));

// The "Loader workers" section (RunReport::workers); nothing when the run has no pipelines.
void write_html_loader_workers(const RunReport& r, std::ostream& out);
void write_md_loader_workers(const RunReport& r, std::ostream& out);

// More than k_large_report_entries rows: errors, skips and throttled rows in full, the spread of
// the rest per suite, the ok rows in a CSV beside the report (rows_csv) or a collapsed block.
void render_html_report_large(const RunReport& r, std::ostream& out, const std::string& rows_csv);
void render_md_report_large(const RunReport& r, std::ostream& out, const std::string& rows_csv);

}  // namespace gpubench::compare::report_detail
