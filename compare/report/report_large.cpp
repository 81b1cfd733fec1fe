// `gpubench report` of a run with many rows (render_large.hpp): the rows a user must act on
// (errors, skips, throttled samples) in full, the spread (CV) of the rest per suite as a
// distribution, and the ok rows in a CSV beside the report or a collapsed block.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <sstream>

#include "compare/render/render.hpp"
#include "compare/render/render_large.hpp"
#include "compare/render/svg.hpp"
#include "compare/report/report_detail.hpp"

namespace gpubench::compare::report_detail {
namespace {

// A row to act on: it failed or was skipped, has no samples, or ran throttled.
bool needs_attention(const ReportRow& row) {
  return row.status != results::BenchmarkStatus::ok || row.stats.n == 0 || row.stats.throttled > 0;
}
bool is_plain_ok(const ReportRow& row) {
  return !needs_attention(row);
}

struct SuiteCounts {
  std::size_t rows = 0, ok = 0, skipped = 0, error = 0, throttled = 0;
};

std::map<std::string, SuiteCounts> count_by_suite(const RunReport& r) {
  std::map<std::string, SuiteCounts> out;
  for (const ReportRow& row : r.rows) {
    SuiteCounts& c = out[row.key.suite];
    ++c.rows;
    if (row.status == results::BenchmarkStatus::ok) ++c.ok;
    if (row.status == results::BenchmarkStatus::skipped) ++c.skipped;
    if (row.status == results::BenchmarkStatus::error) ++c.error;
    if (row.stats.throttled > 0) ++c.throttled;
  }
  return out;
}

// The spread of the ok rows per suite: their CV in percent.
std::vector<Distribution> cv_distributions(const RunReport& r) {
  std::vector<std::pair<std::string, double>> values;
  for (const ReportRow& row : r.rows) {
    if (is_plain_ok(row)) values.emplace_back(row.key.suite, row.stats.cv * 100.0);
  }
  return distributions(std::move(values));
}

std::string compact_row(const ReportRow& row) {
  std::string line = format_value(row.stats.median) + ' ' + row.unit;
  line.resize(std::max<std::size_t>(line.size(), 16), ' ');
  std::string cv = cv_text(row.stats.cv);
  cv.resize(std::max<std::size_t>(cv.size(), 7), ' ');
  std::string n = std::to_string(row.stats.n);
  n.resize(std::max<std::size_t>(n.size(), 4), ' ');
  return line + ' ' + cv + ' ' + n + ' ' + row.key.benchmark + ' ' + row.key.metric + ' ' +
         row.key.device;
}

std::size_t count_ok(const RunReport& r) {
  return static_cast<std::size_t>(std::count_if(r.rows.begin(), r.rows.end(), is_plain_ok));
}

void write_csv_sidecar(const RunReport& r, const std::string& path) {
  std::ostringstream csv;
  write_rows_csv(r.rows, csv, is_plain_ok);
  write_sidecar(path, csv.str());
}

}  // namespace

void render_html_report_large(const RunReport& r, std::ostream& out, const std::string& rows_csv) {
  const std::size_t ok = count_ok(r);
  write_html_head(r, out);
  out << "<p class=\"note\">" << r.rows.size() << " results (more than " << k_large_report_entries
      << "): every error, skip and result with throttled samples is "
      << "listed in full below; the spread of the other " << ok << " is charted per suite and "
      << "they are "
      << (rows_csv.empty()
              ? "listed in the collapsed block at the end"
              : "listed in " + html_escape(sidecar_name(rows_csv)) + ", beside this file")
      << ".</p>\n<h2>Results per suite</h2>\n<table><tr><th>suite</th><th>results</th><th>ok</th>"
      << "<th>skipped</th><th>error</th><th>with throttled samples</th></tr>\n";
  for (const auto& [suite, c] : count_by_suite(r)) {
    out << "<tr><td>" << html_escape(suite) << "</td><td class=\"num\">" << c.rows
        << "</td><td class=\"num\">" << c.ok << "</td><td class=\"num\">" << c.skipped
        << "</td><td class=\"num\">" << c.error << "</td><td class=\"num\">" << c.throttled
        << "</td></tr>\n";
  }
  out << "</table>\n<h2>Spread of the results</h2>\n";
  for (const Distribution& d : cv_distributions(r)) {
    svg::histogram_chart(
        out, d.suite + ": coefficient of variation of " + std::to_string(d.total) + " results (%)",
        "CV, % (median " + format_value(d.median) + ", 90% within " + format_value(d.p05) + " to " +
            format_value(d.p95) + "; the end bars also hold what lies beyond)",
        d.edges, d.counts, "#8c8c8c");
  }
  out << "<h2>Sweeps</h2>\n";
  write_html_sweeps(r, out, k_max_large_sweep_points);
  std::vector<const ReportRow*> attention;
  for (const ReportRow& row : r.rows) {
    if (needs_attention(row)) attention.push_back(&row);
  }
  write_html_loader_workers(r, out);
  out << "<h2>Errors, skips and throttled results (" << attention.size() << ")</h2>\n";
  if (attention.empty()) {
    out << "<p>None.</p>\n";
  } else {
    out << "<table><tr>";
    for (const auto& h : k_header) out << "<th>" << h << "</th>";
    out << "</tr>\n";
    for (const ReportRow* row : attention) {
      out << "<tr" << (row->status == results::BenchmarkStatus::error ? " class=\"invalid\"" : "")
          << ">";
      for (const auto& c : cells(*row)) out << "<td>" << html_escape(c) << "</td>";
      out << "</tr>\n";
    }
    out << "</table>\n";
  }
  out << "<h2>Other results (" << ok << ")</h2>\n";
  if (!rows_csv.empty()) {
    write_csv_sidecar(r, rows_csv);
    const std::string name = html_escape(sidecar_name(rows_csv));
    out << "<p>Listed in <a href=\"" << name << "\">" << name
        << "</a> (CSV, beside this file).</p>\n";
  } else if (ok > 0) {
    out << "<details><summary>" << ok << " results</summary>\n<pre>median           cv      n    "
        << "benchmark metric device\n";
    for (const ReportRow& row : r.rows) {
      if (is_plain_ok(row)) out << html_escape(compact_row(row)) << '\n';
    }
    out << "</pre>\n</details>\n";
  }
  out << "</body>\n</html>\n";
}

void render_md_report_large(const RunReport& r, std::ostream& out, const std::string& rows_csv) {
  const std::size_t ok = count_ok(r);
  out << "## " << markdown_escape(title_of(r)) << "\n\n";
  for (const std::string& p : r.problems) out << "**Problem:** " << markdown_escape(p) << "\n\n";
  out << "> " << r.rows.size() << " results (more than " << k_large_report_entries
      << "): every error, skip and result with throttled samples is listed in full; the other "
      << ok << " are summarised per suite"
      << (rows_csv.empty() ? "" : " and listed in " + markdown_escape(sidecar_name(rows_csv)))
      << ".\n\n| field | value |\n|---|---|\n";
  for (const auto& [k, v] : environment(r)) {
    out << "| " << markdown_escape(k) << " | " << markdown_escape(v) << " |\n";
  }
  for (const auto& [k, v] : suite_lines(r)) {
    out << "| suite " << markdown_escape(k) << " | " << markdown_escape(v) << " |\n";
  }
  out << "\n### Results per suite\n\n| suite | results | ok | skipped | error | with throttled "
         "samples |\n|---|---:|---:|---:|---:|---:|\n";
  for (const auto& [suite, c] : count_by_suite(r)) {
    out << "| " << markdown_escape(suite) << " | " << c.rows << " | " << c.ok << " | " << c.skipped
        << " | " << c.error << " | " << c.throttled << " |\n";
  }
  out << "\n### Spread of the other results\n\nCoefficient of variation, %.\n\n| suite | results "
         "| min | 5% | median | 95% | max |\n|---|---:|---:|---:|---:|---:|---:|\n";
  for (const Distribution& d : cv_distributions(r)) {
    out << "| " << markdown_escape(d.suite) << " | " << d.total;
    for (double v : {d.min, d.p05, d.median, d.p95, d.max}) out << " | " << format_value(v);
    out << " |\n";
  }
  write_md_loader_workers(r, out);
  out << "\n### Errors, skips and throttled results\n\n";
  bool any = false;
  for (const ReportRow& row : r.rows) {
    if (!needs_attention(row)) continue;
    if (!any) {
      out << '|';
      for (const auto& h : k_header) out << ' ' << h << " |";
      out << "\n|";
      for (std::size_t i = 0; i < k_header.size(); ++i) out << "---|";
      out << '\n';
      any = true;
    }
    out << '|';
    for (const auto& c : cells(row)) out << ' ' << markdown_escape(c) << " |";
    out << '\n';
  }
  if (!any) out << "None.\n";
  out << "\n### Other results (" << ok << ")\n\n";
  if (!rows_csv.empty()) {
    write_csv_sidecar(r, rows_csv);
    out << "Listed in " << markdown_escape(sidecar_name(rows_csv)) << " (CSV, beside this file).\n";
  } else {
    out << "Not listed here: write the report with -o FILE to get them in a CSV file beside it "
           "(FILE's name with .results.csv), or use --format csv.\n";
  }
}

}  // namespace gpubench::compare::report_detail
