#include "compare/render/render_history.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "compare/render/render.hpp"
#include "compare/render/render_history_html.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::compare {
namespace {

using nlohmann::json;

std::string date_of(const HistoryRun& r) {
  return r.started_at.substr(0, 10);
}

std::string pct(double ratio) {
  if (!std::isfinite(ratio)) return "—";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (ratio - 1.0) * 100.0);
  return buf;
}

std::string interval(double low, double high) {
  if (!std::isfinite(low) || !std::isfinite(high)) return "[—]";
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%+.1f, %+.1f]", (low - 1) * 100, (high - 1) * 100);
  return buf;
}

std::string p_text(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", p);
  return buf;
}

std::string difference_text(const RankedDifference& d) {
  return d.difference.field + " " + d.difference.base + " → " + d.difference.candidate;
}

std::string series_title(const SeriesHistory& s, const std::string& name) {
  return name + " " + s.key.metric + " " + s.key.device;
}

std::string series_title(const SeriesHistory& s) {
  return series_title(s, s.key.benchmark);
}

// Text titles fit the terminal (issue 26): when the longest whole title is wider than the output
// width, every name is shortened as charts label them (text_names); --wide keeps them whole.
std::map<std::string, std::string> title_names(const History& h, bool md) {
  std::vector<std::string> names;
  std::size_t longest = 0;
  for (const SeriesHistory& s : h.series) {
    names.push_back(s.key.benchmark);
    longest = std::max(longest, display_width(series_title(s)) + 30);  // + unit, direction
  }
  std::map<std::string, std::string> out;
  if (md || output_width() == 0 || longest <= output_width()) {
    for (const std::string& n : names) out.emplace(n, n);
    return out;
  }
  return text_names(names);
}

std::string parameters_text(const History& h) {
  const ChangePointOptions& o = h.options.detection;
  std::string test =
      o.significance == Significance::permutation
          ? std::to_string(o.permutations) + " permutations (seed " + std::to_string(o.seed) + ")"
          : "t-test";
  return "E-divisive means, " + test + ", p <= " + p_text(o.max_pvalue) + ", min segment " +
         std::to_string(o.min_segment) + ", delta " + p_text(o.min_magnitude * 100) + "%";
}

json parameters_json(const History& h) {
  json j = detection_parameters_json(h.options.detection);
  j["values"] = "log per-run medians";
  return j;
}

json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

json difference_json(const RankedDifference& d) {
  return {{"field", d.difference.field},
          {"before", d.difference.base},
          {"after", d.difference.candidate},
          {"series", d.series},
          {"differs_between_consecutive_runs", d.flips}};
}

// One side of a run's change summary (RunChanges::worse or ::better).
json side_json(const GeoMean& g) {
  return {{"series", g.count},
          {"geomean_speedup", g.count ? number(g.value) : json(nullptr)},
          {"low", number(g.ci_low)},
          {"high", number(g.ci_high)}};
}

void render_json(const History& h, std::ostream& out) {
  json doc = {{"schema", "gpubench-history"},
              {"version", k_history_json_version},
              {"selector", h.options.selector},
              {"last", h.options.last},
              {"parameters", parameters_json(h)}};
  json runs = json::array();
  for (const HistoryRun& r : h.runs) {
    runs.push_back({{"id", r.id},
                    {"uuid", r.uuid},
                    {"started_at", r.started_at},
                    {"group", r.group},
                    {"annotations", r.detail.annotations}});
  }
  doc["runs"] = std::move(runs);
  json excluded = json::array();
  for (const results::HistoryExclusion& x : h.excluded) {
    excluded.push_back({{"run", x.run_id}, {"reason", x.reason}, {"excluded_at", x.excluded_at}});
  }
  doc["excluded_runs"] = std::move(excluded);
  json series = json::array();
  for (const SeriesHistory& s : h.series) {
    json points = json::array();
    for (const RunPoint& p : s.points) {
      points.push_back({{"run", h.runs[p.run].id},
                        {"median", p.median},
                        {"low", p.low},
                        {"high", p.high},
                        {"n", p.n},
                        {"interval", p.interval_is_range ? "range" : "median 99%"}});
    }
    json changes = json::array();
    for (const SeriesChange& c : s.changes) {
      json diffs = json::array();
      for (const RankedDifference& d : c.differences) diffs.push_back(difference_json(d));
      changes.push_back({{"run", h.runs[s.points[c.point].run].id},
                         {"previous_run", h.runs[s.points[c.point - 1].run].id},
                         {"median_before", c.median_before},
                         {"median_after", c.median_after},
                         {"ratio", number(c.ratio)},
                         {"ci_low", number(c.ci_low)},
                         {"ci_high", number(c.ci_high)},
                         {"confidence", 0.99},
                         {"p_value", c.p_value},
                         {"differences", std::move(diffs)}});
    }
    series.push_back({{"group", s.group},
                      {"suite", s.key.suite},
                      {"benchmark", s.key.benchmark},
                      {"metric", s.key.metric},
                      {"device", s.key.device},
                      {"unit", s.unit},
                      {"direction", to_string(s.direction)},
                      {"primary", s.primary},
                      {"points", std::move(points)},
                      {"changes", std::move(changes)}});
  }
  doc["series"] = std::move(series);
  json by_run = json::array();
  for (const RunChanges& rc : changes_by_run(h)) {
    json diffs = json::array();
    for (const RankedDifference& d : rc.differences) diffs.push_back(difference_json(d));
    by_run.push_back({{"run", h.runs[rc.run].id},
                      {"started_at", h.runs[rc.run].started_at},
                      {"series", rc.series},
                      {"primary_worse", side_json(rc.worse)},
                      {"primary_better", side_json(rc.better)},
                      {"secondary_series", rc.secondary},
                      {"unknown_direction_series", rc.unknown_direction},
                      {"summary", change_summary(rc)},
                      {"annotations", h.runs[rc.run].detail.annotations},
                      {"differences", std::move(diffs)}});
  }
  doc["changes_by_run"] = std::move(by_run);
  out << json_text(doc, 2) << '\n';
}

void render_csv(const History& h, std::ostream& out) {
  out << "group,suite,benchmark,metric,device,unit,run,started_at,median,low,high,n,change_point\n";
  for (const SeriesHistory& s : h.series) {
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const RunPoint& p = s.points[i];
      const bool change = std::any_of(s.changes.begin(), s.changes.end(),
                                      [&](const SeriesChange& c) { return c.point == i; });
      out << csv_field(s.group) << ',' << csv_field(s.key.suite) << ','
          << csv_field(s.key.benchmark) << ',' << csv_field(s.key.metric) << ','
          << csv_field(s.key.device) << ',' << csv_field(s.unit) << ',' << h.runs[p.run].id << ','
          << h.runs[p.run].started_at << ',' << format_significant(p.median, 6) << ','
          << format_significant(p.low, 6) << ',' << format_significant(p.high, 6) << ',' << p.n
          << ',' << (change ? 1 : 0) << '\n';
    }
  }
}

// Stored text (names, units, groups, annotations) in Markdown escaped as compare's Markdown
// escapes it (issue 43: raw HTML in a name reached the CI summary); text as it is.
std::string md_text(bool md, const std::string& text) {
  return md ? markdown_escape(text) : text;
}

void text_change(const History& h, const SeriesHistory& s, const SeriesChange& c, bool md,
                 std::ostream& out) {
  const HistoryRun& run = h.runs[s.points[c.point].run];
  const std::string indent = md ? "- " : "  ";
  out << indent << "change at run " << run.id << " (" << date_of(run)
      << "): " << format_value(c.median_before) << " → " << format_value(c.median_after) << ' '
      << md_text(md, s.unit) << ", " << pct(c.ratio) << ' ' << interval(c.ci_low, c.ci_high)
      << " (99%), p " << p_text(c.p_value) << '\n';
  std::vector<std::string> diffs;
  for (const RankedDifference& d : c.differences) diffs.push_back(difference_text(d));
  out << (md ? "  - " : "    ")
      << "differences: " << (diffs.empty() ? "none recorded" : md_text(md, join(diffs, "; ")))
      << '\n';
  for (const std::string& a : run.detail.annotations)
    out << (md ? "  - " : "    ") << "annotated: " << md_text(md, a) << '\n';
}

// "excluded from history: run 5 (GPU 3 throttled), ...": selected runs `history exclude` left out.
void excluded_line(const History& h, bool md, std::ostream& out) {
  if (h.excluded.empty()) return;
  std::vector<std::string> runs;
  for (const results::HistoryExclusion& x : h.excluded) {
    runs.push_back("run " + std::to_string(x.run_id) + " (" + x.reason + ")");
  }
  out << (md ? "" : "  ") << "excluded from history: " << md_text(md, join(runs, ", "))
      << (md ? "\n\n" : "\n");
}

void render_changes(const History& h, bool md, std::ostream& out) {
  const std::vector<RunChanges> all = changes_by_run(h);
  const std::map<std::string, std::string> name = title_names(h, md);
  out << (md ? "## " : "") << "change points in " << h.runs.size() << " runs of "
      << md_text(md, h.options.selector) << " (" << h.series.size() << " series)";
  out << (md ? " (" : "\n  method: ") << parameters_text(h) << (md ? ")\n" : "\n");
  if (md) out << '\n';
  excluded_line(h, md, out);
  if (all.empty()) {
    out << "no change points\n";
    return;
  }
  for (const RunChanges& rc : all) {
    out << (md ? "- " : "") << md_text(md, run_headline(h, rc)) << ": " << change_summary(rc)
        << '\n';
    const std::string in = md ? "  - " : "  ";
    for (const RankedDifference& d : rc.differences) {
      out << in << "differs: " << md_text(md, difference_text(d)) << " (" << d.series
          << " series changed; " << d.flips << " of " << (h.runs.size() - 1)
          << " consecutive runs differ)\n";
    }
    for (const std::string& a : h.runs[rc.run].detail.annotations)
      out << in << "annotated: " << md_text(md, a) << '\n';
    for (const auto& [si, ci] : rc.changes) {
      const SeriesHistory& s = h.series[si];
      const SeriesChange& c = s.changes[ci];
      out << in << md_text(md, series_title(s, name.at(s.key.benchmark))) << ": "
          << format_value(c.median_before) << " → " << format_value(c.median_after) << ' '
          << md_text(md, s.unit) << ", " << pct(c.ratio) << ' ' << interval(c.ci_low, c.ci_high)
          << '\n';
    }
  }
}

void render_series(const History& h, bool md, std::ostream& out) {
  out << (md ? "## " : "") << "history of " << md_text(md, h.options.selector) << ": "
      << h.runs.size() << " runs";
  if (!h.runs.empty()) out << ", " << date_of(h.runs.front()) << " .. " << date_of(h.runs.back());
  out << (md ? " (" : "\n  method: ") << parameters_text(h) << (md ? ")\n" : "\n");
  if (md && !h.excluded.empty()) out << '\n';
  excluded_line(h, md, out);
  const std::map<std::string, std::string> name = title_names(h, md);
  for (const SeriesHistory& s : h.series) {
    out << '\n'
        << (md ? "### " : "") << md_text(md, series_title(s, name.at(s.key.benchmark))) << " ("
        << md_text(md, s.unit) << ", " << to_string(s.direction) << " is better) on "
        << md_text(md, s.group) << '\n';
    if (md) out << '\n';
    std::vector<double> medians;
    for (const RunPoint& p : s.points) medians.push_back(p.median);
    out << (md ? "`" : "  ") << sparkline(medians) << (md ? "`\n\n" : "\n");
    const RunPoint& first = s.points.front();
    const RunPoint& last = s.points.back();
    out << (md ? "- " : "  ") << s.points.size() << " runs: run " << h.runs[first.run].id << ' '
        << format_value(first.median) << " [" << format_value(first.low) << ", "
        << format_value(first.high) << "] .. run " << h.runs[last.run].id << ' '
        << format_value(last.median) << " [" << format_value(last.low) << ", "
        << format_value(last.high) << "] " << md_text(md, s.unit) << "; " << s.changes.size()
        << " change point" << (s.changes.size() == 1 ? "" : "s") << '\n';
    for (const SeriesChange& c : s.changes) text_change(h, s, c, md, out);
  }
}

}  // namespace

std::string sparkline(const std::vector<double>& values) {
  static const char* const k_bars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  if (values.empty()) return "";
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  std::string out;
  for (double v : values) {
    if (*hi == *lo) {
      out += k_bars[3];
      continue;
    }
    const int i = static_cast<int>(std::lround((v - *lo) / (*hi - *lo) * 7.0));
    out += k_bars[std::clamp(i, 0, 7)];
  }
  return out;
}

std::string change_summary(const RunChanges& rc) {
  const auto side = [](const GeoMean& g, const char* word) {
    std::string text = std::to_string(g.count) + " " + word;
    if (g.count > 0) {
      text += " (geomean " + pct(g.value) + " speed " + interval(g.ci_low, g.ci_high) + ")";
    }
    return text;
  };
  const std::size_t primary = rc.worse.count + rc.better.count + rc.unknown_direction;
  std::string text = std::to_string(primary) + " primary series: " + side(rc.worse, "worse") +
                     ", " + side(rc.better, "better");
  if (rc.unknown_direction > 0) {
    text += ", " + std::to_string(rc.unknown_direction) + " changed (no direction)";
  }
  if (rc.secondary > 0) {
    text += "; " + std::to_string(rc.secondary) + " secondary not counted";
  }
  return text;
}

std::string run_headline(const History& h, const RunChanges& changes) {
  const HistoryRun& run = h.runs[changes.run];
  std::string text = "run " + std::to_string(run.id) + " (" + date_of(run);
  if (!changes.differences.empty()) text += ", " + difference_text(changes.differences.front());
  if (!run.detail.annotations.empty()) text += ", \"" + run.detail.annotations.front() + "\"";
  return text + ")";
}

void render_history(const History& h, HistoryFormat format, bool changes_only, std::ostream& out) {
  switch (format) {
    case HistoryFormat::json:
      render_json(h, out);
      return;
    case HistoryFormat::csv:
      render_csv(h, out);
      return;
    case HistoryFormat::html:
      render_history_html(h, changes_only, out);
      return;
    case HistoryFormat::md:
      if (changes_only) {
        render_changes(h, true, out);
      } else {
        render_series(h, true, out);
      }
      return;
    case HistoryFormat::text: {
      std::ostringstream text;
      if (changes_only) {
        render_changes(h, false, text);
      } else {
        render_series(h, false, text);
      }
      out << wrap_lines(text.str(), output_width());  // prose lines fit the terminal (issue 26)
      return;
    }
  }
}

}  // namespace gpubench::compare
