#include "compare/report/report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "compare/aggregates.hpp"
#include "compare/names.hpp"
#include "compare/render/html_style.hpp"
#include "compare/render/render_large.hpp"
#include "compare/render/render_peers.hpp"
#include "compare/render/svg.hpp"
#include "compare/report/report_detail.hpp"
#include "compare/run_problems.hpp"
#include "compare/stats/stats.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::compare {
namespace report_detail {

const char* status_text(results::BenchmarkStatus s) {
  switch (s) {
    case results::BenchmarkStatus::ok:
      return "ok";
    case results::BenchmarkStatus::skipped:
      return "skipped";
    case results::BenchmarkStatus::error:
      return "error";
  }
  return "unknown";
}

std::string cv_text(double cv) {
  return std::isfinite(cv) ? format_significant(cv * 100.0, 2) + "%" : std::string("n/a");
}

std::vector<std::string> cells(const ReportRow& r) {
  bool ok = r.status == results::BenchmarkStatus::ok && r.stats.n > 0;
  return {r.key.benchmark,
          r.key.metric,
          r.key.device,
          ok ? format_value(r.stats.median) : "",
          r.unit,
          ok ? cv_text(r.stats.cv) : "",
          ok ? format_value(r.stats.min) + " – " + format_value(r.stats.max) : "",
          std::to_string(r.stats.n),
          std::string(status_text(r.status)) + (r.stats.throttled ? " (throttled samples)" : "") +
              (r.message.empty() ? "" : ": " + r.message)};
}

const std::vector<std::string> k_header = {"benchmark", "metric", "device", "median", "unit",
                                           "cv",        "range",  "n",      "status"};

std::string title_of(const RunReport& r) {
  return "gpubench report: run " + std::to_string(r.run.run.id) + " (" + r.run.run.uuid + ")";
}

// One line per suite run: "memory: ok (12.3 s)", "fixture_fail: failed (exit 3): why".
std::vector<std::pair<std::string, std::string>> suite_lines(const RunReport& r) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const results::SuiteRunInfo& s : r.run.suites) {
    std::string v = results::to_string(s.status);
    if (s.term_signal) v += " (signal " + std::to_string(*s.term_signal) + ")";
    if (!s.term_signal && s.exit_code && *s.exit_code != 0) {
      v += " (exit " + std::to_string(*s.exit_code) + ")";
    }
    v += ", " + format_significant(s.duration_s, 3) + " s";
    if (s.status != results::SuiteStatus::ok && !s.reason.empty()) v += ": " + s.reason;
    out.emplace_back(s.suite, v);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> environment(const RunReport& r) {
  const auto& i = r.run.info;
  std::map<std::string, int> gpus;
  for (const auto& g : i.gpus) gpus[g.name]++;
  std::vector<std::string> g;
  for (const auto& [name, n] : gpus) g.push_back(std::to_string(n) + "x " + name);
  std::vector<std::pair<std::string, std::string>> out = {
      {"status", results::to_string(r.run.run.status)},
      {"started", r.run.run.started_at},
      {"host", i.host.hostname + " (" + i.host.cpu_model + ")"},
      {"GPU", g.empty() ? "none" : join(g, ", ")},
      {"driver", i.software.driver_version},
      {"CUDA runtime", i.software.cuda_runtime_version},
      {"cuBLAS", i.software.cublas_version},
      {"NCCL", i.software.nccl_version},
      {"kernel", i.host.kernel},
      {"gpubench", i.software.gpubench_version + " (" + i.software.git_sha + ")"},
      {"profile", i.config.profile}};
  // `gpubench annotate` (issue 25): what is known to have changed, next to the environment.
  if (!r.run.annotations.empty()) out.emplace_back("annotations", join(r.run.annotations, "; "));
  return out;
}

void write_rows_csv(const std::vector<ReportRow>& rows, std::ostream& out,
                    bool (*keep)(const ReportRow&)) {
  out << "suite,benchmark,metric,unit,direction,device,status,n,median,cv,min,max,message\n";
  for (const ReportRow& row : rows) {
    if (keep != nullptr && !keep(row)) continue;
    out << csv_field(row.key.suite) << ',' << csv_field(row.key.benchmark) << ','
        << csv_field(row.key.metric) << ',' << csv_field(row.unit) << ','
        << direction_text(row.direction) << ',' << row.key.device << ',' << status_text(row.status)
        << ',' << row.stats.n << ',' << row.stats.median << ','
        << (std::isfinite(row.stats.cv) ? std::to_string(row.stats.cv) : "") << ',' << row.stats.min
        << ',' << row.stats.max << ',' << csv_field(row.message) << '\n';
  }
}

void write_html_head(const RunReport& r, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
      << html_escape(title_of(r)) << "</title>\n<style>" << k_html_style
      << "</style>\n</head>\n<body>\n<h1>" << html_escape(title_of(r)) << "</h1>\n";
  for (const std::string& p : r.problems) {
    out << "<p class=\"problem\"><strong>Problem:</strong> " << html_escape(p) << "</p>\n";
  }
  out << "<div class=\"table-wrap\"><table class=\"env\">\n";
  for (const auto& [k, v] : environment(r)) {
    out << "<tr><th>" << html_escape(k) << "</th><td>" << html_escape(v) << "</td></tr>\n";
  }
  out << "</table></div>\n<h2>Suites</h2>\n<div class=\"table-wrap\"><table>\n<tr><th>suite"
      << "</th><th>status</th></tr>\n";
  for (const auto& [k, v] : suite_lines(r)) {
    bool bad = v.rfind("ok", 0) != 0 && v.rfind("skipped", 0) != 0;
    out << "<tr" << (bad ? " class=\"invalid\"" : "") << "><td>" << html_escape(k) << "</td><td>"
        << html_escape(v) << "</td></tr>\n";
  }
  out << "</table></div>\n";
}

void write_html_sweeps(const RunReport& r, std::ostream& out, std::size_t max_points) {
  // Sweeps: rows differing only in one numeric parameter, >= 3 points.
  std::map<std::string, std::pair<std::string, svg::Series>> sweeps;
  std::map<std::string, std::string> units;
  for (const ReportRow& row : r.rows) {
    if (row.status != results::BenchmarkStatus::ok || row.stats.n == 0) continue;
    // Primary metrics only (issue 39): calls_per_s, ms_per_call and real_time of one sweep are
    // one measurement three ways; secondary metrics are in the table.
    if (!row.primary) continue;
    for (std::size_t i = 0; i < row.params.size(); ++i) {
      if (!row.params[i].number || is_run_control_param(row.params[i].key)) continue;
      std::string rest;
      for (std::size_t j = 0; j < row.params.size(); ++j) {
        if (j != i && !is_run_control_param(row.params[j].key)) {
          rest += "/" + row.params[j].key + ":" + row.params[j].text;
        }
      }
      std::string id = row.key.suite + "/" + row.case_name + rest + " — " + row.key.metric + " (" +
                       row.key.device + ")";
      auto& [x_key, series] = sweeps[id + " by " + row.params[i].key];
      x_key = row.params[i].key;
      series.label = "run " + std::to_string(r.run.run.id);
      series.colour = "#4c72b0";
      series.points.emplace_back(*row.params[i].number, row.stats.median);
      units[id + " by " + row.params[i].key] = row.unit;
    }
  }
  std::size_t shown = 0, too_long = 0;
  for (auto& [id, sweep] : sweeps) {
    if (sweep.second.points.size() > max_points) {
      ++too_long;
      continue;
    }
    if (sweep.second.points.size() < 3 || shown >= 60) continue;
    ++shown;
    std::sort(sweep.second.points.begin(), sweep.second.points.end());
    svg::line_chart(out, id.substr(0, id.rfind(" by ")), sweep.first, units[id], {sweep.second});
  }
  if (too_long > 0) {
    out << "<p class=\"note\">" << too_long << " sweeps of more than " << max_points
        << " points are not drawn (their numbers are in the JSON output).</p>\n";
  }
  if (shown == 0 && too_long == 0) {
    out << "<p class=\"note\">No parameter sweeps in this run.</p>\n";
  }
}

// A "GPU idle" column where a pipeline shown reports gpu_idle_fraction (the train cases with a
// step): its idle share by worker count and where the GPU starts waiting (issue 41 item 4).
bool shows_gpu_busy(const WorkerSizing& w) {
  return std::any_of(w.pipelines.begin(), w.pipelines.end(),
                     [](const PipelineSizing& p) { return p.enough_points && p.knee; });
}

void write_html_loader_workers(const RunReport& r, std::ostream& out) {
  const WorkerSizing& w = r.workers;
  if (w.pipelines.empty()) return;
  const bool gpu = shows_gpu_busy(w);
  out << "<h2>Loader workers</h2>\n<p>" << html_escape(worker_sizing_heading(w))
      << "</p>\n<div class=\"table-wrap\"><table class=\"results\"><tr><th>pipeline</th>"
      << "<th>throughput by workers (share of the best)</th><th>worker count at 95%</th>"
      << (gpu ? "<th>GPU idle by workers, where it starts waiting</th>" : "") << "</tr>\n";
  for (const PipelineSizing& p : w.pipelines) {
    if (!p.enough_points) continue;  // counted in the summary below, listed in the JSON
    out << "<tr><td class=\"name\">" << html_escape(p.pipeline) << "</td><td>"
        << html_escape(points_text(p)) << "</td><td>" << html_escape(sizing_verdict(p, w))
        << "</td>";
    if (gpu) out << "<td>" << (p.knee ? html_escape(knee_text(p)) : "—") << "</td>";
    out << "</tr>\n";
  }
  out << "</table></div>\n<p>" << html_escape(advice_summary(w)) << "</p>\n";
}

void write_md_loader_workers(const RunReport& r, std::ostream& out) {
  const WorkerSizing& w = r.workers;
  if (w.pipelines.empty()) return;
  const bool gpu = shows_gpu_busy(w);
  out << "\n### Loader workers\n\n"
      << markdown_escape(worker_sizing_heading(w))
      << ".\n\n| pipeline | throughput by workers (share of the best) | worker count at 95% |"
      << (gpu ? " GPU idle by workers, where it starts waiting |" : "") << "\n"
      << (gpu ? "|---|---|---|---|\n" : "|---|---|---|\n");
  for (const PipelineSizing& p : w.pipelines) {
    if (!p.enough_points) continue;  // counted in the summary below, listed in the JSON
    out << "| " << markdown_escape(p.pipeline) << " | " << markdown_escape(points_text(p)) << " | "
        << markdown_escape(sizing_verdict(p, w)) << " |";
    if (gpu) out << ' ' << (p.knee ? markdown_escape(knee_text(p)) : "—") << " |";
    out << '\n';
  }
  out << '\n' << markdown_escape(advice_summary(w)) << ".\n";
}

}  // namespace report_detail

namespace {
using namespace report_detail;

void render_html_report(const RunReport& r, std::ostream& out, const std::string& rows_csv) {
  if (is_large_report(r.rows.size())) {
    render_html_report_large(r, out, rows_csv);
    return;
  }
  write_html_head(r, out);
  // What was measured, and what the colours mean (issue 26).
  RunTally tally;
  for (const ReportRow& row : r.rows) tally.add(row.key.benchmark, row.status, row.message);
  out << "<p class=\"counts\">" << html_escape(tally.line(r.run.run.id, r.run.suites))
      << "</p>\n<p class=\"legend\">Colours: <span class=\"sw invalid\"></span>failed "
         "(error) <span class=\"sw unchanged\"></span>measured or skipped.</p>\n";
  out << "<h2>Sweeps</h2>\n";
  write_html_sweeps(r, out);
  // One line per row: cells do not wrap; the status (a skip or error reason can be a paragraph)
  // is a closed <details> whose one-line summary opens onto the whole text.
  // Fits 1400 px (issue 39): the name wraps, the table scrolls sideways only inside its wrapper.
  out << "<h2>Results</h2>\n<div class=\"table-wrap\"><table class=\"results\"><tr>";
  for (const auto& h : k_header) out << "<th>" << h << "</th>";
  out << "</tr>\n";
  for (const ReportRow& row : r.rows) {
    out << "<tr" << (row.status == results::BenchmarkStatus::error ? " class=\"invalid\"" : "")
        << ">";
    const std::vector<std::string> c = cells(row);
    out << "<td class=\"name\">" << html_escape(c[0]) << "</td>";
    for (std::size_t i = 1; i + 1 < c.size(); ++i) out << "<td>" << html_escape(c[i]) << "</td>";
    const std::string last = html_escape(c.back());
    out << "<td class=\"why\"><details><summary>" << last << "</summary>" << last
        << "</details></td></tr>\n";
  }
  out << "</table></div>\n";
  write_html_loader_workers(r, out);
  if (const auto noisy = noisy_report_lines(r); !noisy.empty()) {
    out << "<h2>Noisy between executions</h2>\n<p>" << html_escape(noisy.front()) << "</p>\n<ul>\n";
    for (std::size_t i = 1; i < noisy.size(); ++i) {
      out << "<li>" << html_escape(std::string(trim(noisy[i]))) << "</li>\n";
    }
    out << "</ul>\n";
  }
  out << "</body>\n</html>\n";
}

void render_json_report(const RunReport& r, std::ostream& out) {
  nlohmann::json doc;
  doc["run"] = {{"id", r.run.run.id},
                {"uuid", r.run.run.uuid},
                {"started_at", r.run.run.started_at},
                {"status", results::to_string(r.run.run.status)}};
  doc["problems"] = r.problems;
  nlohmann::json suites = nlohmann::json::array();
  for (const results::SuiteRunInfo& s : r.run.suites) {
    suites.push_back(
        {{"suite", s.suite},
         {"status", results::to_string(s.status)},
         {"reason", s.reason},
         {"exit_code", s.exit_code ? nlohmann::json(*s.exit_code) : nlohmann::json()},
         {"term_signal", s.term_signal ? nlohmann::json(*s.term_signal) : nlohmann::json()}});
  }
  doc["suites"] = suites;
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [k, v] : environment(r)) env[k] = v;
  doc["environment"] = env;
  nlohmann::json rows = nlohmann::json::array();
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  for (const ReportRow& row : r.rows) {
    rows.push_back({{"suite", row.key.suite},
                    {"benchmark", row.key.benchmark},
                    {"metric", row.key.metric},
                    {"unit", row.unit},
                    {"direction", direction_text(row.direction)},
                    {"device", row.key.device},
                    {"status", status_text(row.status)},
                    {"message", row.message},
                    {"n", row.stats.n},
                    {"median", num(row.stats.median)},
                    {"cv", num(row.stats.cv)},
                    {"min", num(row.stats.min)},
                    {"max", num(row.stats.max)},
                    {"throttled", row.stats.throttled},
                    {"values", row.stats.values}});
  }
  doc["results"] = rows;
  nlohmann::json noisy = nlohmann::json::array();
  for (const NoisySeries& n : r.noisy) {
    noisy.push_back(
        {{"suite", n.key.suite},
         {"benchmark", n.key.benchmark},
         {"metric", n.key.metric},
         {"device", n.key.device},
         {"executions", n.executions},
         {"execution_cv", num(n.execution_cv)},
         {"mde", num(n.mde)},
         {"threshold", k_report_noisy_threshold},
         {"executions_needed",
          n.executions_needed == 0 ? nlohmann::json() : nlohmann::json(n.executions_needed)}});
  }
  doc["noisy_series"] = noisy;
  if (!r.peers.peer_runs.empty()) doc["peers"] = peers_json(r.peers);
  doc["acceptance_facts"] = results::acceptance_facts_json(r.facts);
  if (!r.workers.pipelines.empty()) doc["loader_workers"] = worker_sizing_json(r.workers);
  out << json_text(doc, 2) << '\n';
}

}  // namespace

std::vector<std::string> noisy_report_lines(const RunReport& report) {
  if (report.noisy.empty()) return {};
  std::vector<std::string> lines = {
      std::to_string(report.noisy.size()) + " of " + std::to_string(report.noisy_sized) +
      " series are noisy between executions (separate processes of their suite): a comparison "
      "of two runs like this one cannot detect a " +
      format_significant(k_report_noisy_threshold * 100, 2) + "% change in them:"};
  for (const std::string& l : noisy_series_lines(report.noisy, k_report_noisy_threshold)) {
    lines.push_back("  " + l);
  }
  return lines;
}

RunReport build_report(const results::RunDetail& run, const std::vector<results::ResultRow>& rows) {
  RunReport report;
  report.run = run;
  report.problems = run_problems(run);
  std::map<Key, ReportRow> pooled;
  NoisySeriesFinder noisy;
  for (const results::ResultRow& row : rows) {
    noisy.add(row);
    if (row.metric == "cpu_time") continue;
    if (row.role == results::MetricRole::parameter) continue;  // describes the case
    Key key{row.suite, row.benchmark, row.metric, device_label(row.device_index)};
    auto [it, fresh] = pooled.try_emplace(key);
    ReportRow& r = it->second;
    if (fresh) {
      r.key = key;
      r.case_name = row.case_name;
      r.params = row.params;
      r.unit = row.unit;
      r.direction = row.direction;
      r.primary = row.role != results::MetricRole::secondary;
      r.stats.gpu_uuid = row.gpu_uuid;
    }
    if (row.status != results::BenchmarkStatus::ok) {
      r.status = row.status;
      r.message = row.message;
    } else if (r.message.empty()) {
      r.message = aggregates_note(row);  // aggregates only: said, not shown as n = 0
    }
    r.stats.values.insert(r.stats.values.end(), row.values.begin(), row.values.end());
    for (int t : row.throttled) r.stats.throttled += t == 1 ? 1 : 0;
  }
  for (auto& [key, r] : pooled) {
    summarize(r.stats);
    report.rows.push_back(std::move(r));
  }
  report.noisy = noisy.find(k_report_noisy_threshold);
  report.noisy_sized = noisy.sized();
  std::stable_sort(
      report.rows.begin(), report.rows.end(), [](const ReportRow& a, const ReportRow& b) {
        if (a.key.suite != b.key.suite) return a.key.suite < b.key.suite;
        if (a.key.benchmark != b.key.benchmark) {
          return svg::natural_less(a.key.benchmark, b.key.benchmark);
        }
        return std::tie(a.key.metric, a.key.device) < std::tie(b.key.metric, b.key.device);
      });
  return report;
}

std::string acceptance_facts_line(const RunReport& report) {
  const std::vector<std::string> items = results::summarize_acceptance_facts(report.facts);
  if (items.empty()) return {};
  return "acceptance facts (" + report.facts.front().source + "): " + join(items, "; ");
}

namespace {

// What text and Markdown list (issue 39): errors first, then the measured rows, skipped cases
// grouped by reason; without --all only primary metrics.
struct ReportLists {
  std::vector<const ReportRow*> rows;
  std::vector<std::string> skipped;  // "8 cases skipped: why (e.g. NAME)", most first
  std::size_t secondary = 0;         // rows of secondary metrics not listed
  ShortNames names;
};

ReportLists report_lists(const RunReport& r, Detail detail, Shorten shorten) {
  ReportLists l;
  std::vector<std::string> names;
  std::map<std::string, std::pair<std::size_t, std::string>> skips;  // why -> count, a name
  for (const ReportRow& row : r.rows) {
    if (row.status == results::BenchmarkStatus::skipped && detail == Detail::summary) {
      const std::string why =
          row.message.rfind("skipped: ", 0) == 0 ? row.message.substr(9) : row.message;
      auto& [count, example] = skips[why];
      if (count++ == 0) example = row.key.benchmark;
      continue;
    }
    if (!row.primary && detail == Detail::summary) {
      ++l.secondary;
      continue;
    }
    l.rows.push_back(&row);
    names.push_back(row.key.benchmark);
  }
  std::stable_partition(l.rows.begin(), l.rows.end(), [](const ReportRow* row) {
    return row->status == results::BenchmarkStatus::error;
  });
  std::vector<std::pair<std::string, std::pair<std::size_t, std::string>>> sorted(skips.begin(),
                                                                                  skips.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  for (const auto& [why, c] : sorted) {
    l.skipped.push_back(std::to_string(c.first) + (c.first == 1 ? " case" : " cases") +
                        " skipped: " + (why.empty() ? "no reason given" : why) + " (e.g. " +
                        text_name(c.second) + ")");
  }
  l.names = short_names(names, shorten);
  return l;
}

std::string secondary_note(std::size_t n) {
  return std::to_string(n) + " rows of secondary metrics not listed (--all lists them)";
}

}  // namespace

void render_report(const RunReport& r, Format format, std::ostream& out, bool colour,
                   const std::string& rows_csv, Detail detail) {
  switch (format) {
    case Format::html:
      render_html_report(r, out, rows_csv);
      return;
    case Format::json:
      render_json_report(r, out);
      return;
    case Format::csv:
      for (const std::string& p : r.problems) out << "# problem: " << p << '\n';
      write_rows_csv(r.rows, out);
      return;
    case Format::junit: {
      out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\""
          << html_escape(title_of(r)) << "\" tests=\"" << r.rows.size() + r.problems.size()
          << "\" failures=\"" << r.problems.size() << "\">\n";
      for (const std::string& p : r.problems) {
        out << "  <testcase classname=\"run\" name=\"" << html_escape(p)
            << "\"><failure message=\"run problem\">" << html_escape(p)
            << "</failure></testcase>\n";
      }
      for (const ReportRow& row : r.rows) {
        out << "  <testcase classname=\"" << html_escape(row.key.suite) << "\" name=\""
            << html_escape(row.key.benchmark + " " + row.key.metric + " " + row.key.device)
            << "\">";
        if (row.status == results::BenchmarkStatus::error) {
          out << "<failure message=\"error\">" << html_escape(row.message) << "</failure>";
        } else if (row.status == results::BenchmarkStatus::skipped) {
          out << "<skipped message=\"" << html_escape(row.message) << "\"/>";
        }
        out << "</testcase>\n";
      }
      out << "</testsuite>\n";
      return;
    }
    case Format::md:
      if (is_large_report(r.rows.size())) {
        render_md_report_large(r, out, rows_csv);
        return;
      }
      out << "## " << markdown_escape(title_of(r)) << "\n\n";
      for (const std::string& p : r.problems)
        out << "**Problem:** " << markdown_escape(p) << "\n\n";
      {
        // What was measured first (issue 39), then the environment and the rows.
        RunTally tally;
        for (const ReportRow& row : r.rows) tally.add(row.key.benchmark, row.status, row.message);
        out << "**" << markdown_escape(tally.line(r.run.run.id, r.run.suites, r.run.run.uuid))
            << "**\n\n";
      }
      out << "| field | value |\n|---|---|\n";
      for (const auto& [k, v] : environment(r)) {
        out << "| " << markdown_escape(k) << " | " << markdown_escape(v) << " |\n";
      }
      for (const auto& [k, v] : suite_lines(r)) {
        out << "| suite " << markdown_escape(k) << " | " << markdown_escape(v) << " |\n";
      }
      if (const std::string facts = acceptance_facts_line(r); !facts.empty()) {
        out << "\n" << markdown_escape(facts) << "\n";
      }
      {
        const ReportLists l = report_lists(r, detail, Shorten::always);
        out << '\n';
        if (!l.names.pattern.empty()) {
          out << "Benchmark names leave out what they all share: "
              << markdown_escape(l.names.pattern) << " (\\* as in each row).\n\n";
        }
        if (!l.rows.empty()) {
          out << '|';
          for (const auto& h : k_header) out << ' ' << h << " |";
          out << "\n|";
          for (std::size_t i = 0; i < k_header.size(); ++i) out << "---|";
          out << '\n';
        }
        for (const ReportRow* row : l.rows) {
          std::vector<std::string> c = cells(*row);
          c[0] = l.names.name.at(row->key.benchmark);
          out << '|';
          for (const auto& cell : c) out << ' ' << markdown_escape(cell) << " |";
          out << '\n';
        }
        if (l.secondary > 0) out << '\n' << markdown_escape(secondary_note(l.secondary)) << ".\n";
        if (!l.skipped.empty()) out << '\n';
        for (const std::string& line : l.skipped) out << "- " << markdown_escape(line) << '\n';
      }
      if (const auto noisy = noisy_report_lines(r); !noisy.empty()) {
        out << '\n' << markdown_escape(noisy.front()) << "\n\n";
        for (std::size_t i = 1; i < noisy.size(); ++i) {
          out << "- " << markdown_escape(std::string(trim(noisy[i]))) << '\n';
        }
      }
      write_md_loader_workers(r, out);
      return;
    case Format::text: {
      // The run's problems first (scripts and people read the first line), then what was
      // measured (issue 26).
      RunTally tally;
      for (const ReportRow& row : r.rows) tally.add(row.key.benchmark, row.status, row.message);
      for (const std::string& p : r.problems) out << "PROBLEM " << p << '\n';
      out << tally.line(r.run.run.id, r.run.suites, r.run.run.uuid) << '\n';
      out << title_of(r) << '\n';
      for (const auto& [k, v] : environment(r)) out << "  " << k << ": " << v << '\n';
      out << "  suites:\n";
      for (const auto& [k, v] : suite_lines(r)) out << "    " << k << ": " << v << '\n';
      if (const std::string facts = acceptance_facts_line(r); !facts.empty()) {
        out << "  " << facts << '\n';
      }
      const ReportLists lists = report_lists(r, detail, Shorten::when_width_limited);
      if (!lists.names.pattern.empty())
        out << "names: " << lists.names.pattern << " (* as in each row)\n";
      std::vector<std::vector<std::string>> rows = {k_header};
      for (const ReportRow* row : lists.rows) {
        rows.push_back(cells(*row));
        rows.back()[0] = lists.names.name.at(row->key.benchmark);
      }
      if (!lists.rows.empty()) {
        out << '\n';
        std::vector<std::size_t> line_rows;
        const std::vector<std::string> lines = fit_table(rows, output_width(), "", &line_rows);
        for (std::size_t i = 0; i < lines.size(); ++i) {
          const std::size_t k = line_rows[i];
          bool err = k > 0 && lists.rows[k - 1]->status == results::BenchmarkStatus::error;
          out << (colour && err ? "\033[31m" : "") << lines[i] << (colour && err ? "\033[0m" : "")
              << '\n';
        }
      }
      if (lists.secondary > 0) out << '\n' << secondary_note(lists.secondary) << '\n';
      if (!lists.skipped.empty()) out << '\n';
      for (const std::string& line : lists.skipped) out << line << '\n';
      if (const auto noisy = noisy_report_lines(r); !noisy.empty()) {
        out << '\n';
        for (const std::string& l : noisy) out << text_name(l) << '\n';
      }
      if (const auto workers = worker_sizing_lines(r.workers); !workers.empty()) {
        // Prose lines fit the terminal (issue 26): a pipeline's name and verdict wrap.
        out << '\n' << wrap_lines(join(workers, "\n") + "\n", output_width());
      }
      render_peers_section(r.peers, out);
      return;
    }
  }
}

}  // namespace gpubench::compare
