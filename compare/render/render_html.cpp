// One self-contained HTML file: inline CSS and SVG only, no scripts, no network.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <string_view>

#include "compare/hardware.hpp"
#include "compare/names.hpp"
#include "compare/render/html_style.hpp"
#include "compare/render/render.hpp"
#include "compare/render/render_large.hpp"
#include "compare/render/svg.hpp"
#include "compare/stats/stats.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {
namespace {

// Forest plots get at most this many rows per suite (largest changes first); the table has all.
constexpr std::size_t k_max_chart_rows = 300;
// At most this many sweep charts per report.
constexpr std::size_t k_max_sweeps = 60;

void write_forest(const Comparison& cmp, std::ostream& out) {
  std::map<std::string, std::vector<const Entry*>> by_suite;
  for (const Entry* e : entries_in_order(cmp)) {
    // Primary metrics only: one point per benchmark (secondary metrics are in the table).
    if (e->primary && e->speedup() && std::isfinite(e->ci_low) && e->verdict != Verdict::invalid) {
      by_suite[e->key.suite].push_back(e);
    }
  }
  for (auto& [suite, entries] : by_suite) {
    std::size_t total = entries.size();
    if (entries.size() > k_max_chart_rows) {
      std::partial_sort(
          entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(k_max_chart_rows),
          entries.end(), [](const Entry* a, const Entry* b) {
            return std::fabs(std::log(*a->speedup())) > std::fabs(std::log(*b->speedup()));
          });
      entries.resize(k_max_chart_rows);
      std::sort(entries.begin(), entries.end(), [](const Entry* a, const Entry* b) {
        return svg::natural_less(a->key.benchmark + " " + a->key.metric + " " + a->key.device,
                                 b->key.benchmark + " " + b->key.metric + " " + b->key.device);
      });
    }
    std::vector<std::string> names, suffixes;
    for (const Entry* e : entries) {
      names.push_back(e->key.benchmark);
      suffixes.push_back(e->key.metric + " " + e->key.device);
    }
    std::vector<std::string> labels = svg::compact_labels(names, suffixes);
    std::vector<svg::IntervalRow> rows;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const Entry* e = entries[i];
      bool lower = e->direction == results::Direction::lower;
      rows.push_back({labels[i], *e->speedup(), lower ? 1.0 / e->ci_high : e->ci_low,
                      lower ? 1.0 / e->ci_low : e->ci_high, to_string(e->verdict)});
    }
    std::string title = suite + ": speed-up per benchmark (>1 is better, 99% interval)";
    if (total > rows.size()) {
      title += ", " + std::to_string(rows.size()) + " largest changes of " + std::to_string(total);
    }
    svg::interval_chart(out, title, rows);
  }
}

// Sweeps: entries that differ only in one numeric parameter (e.g. bytes), >= 3 points.
// Large comparisons (max_points set) leave out sweeps of more points than that: hundreds of
// points a chart, sixty charts, would be most of the page.
void write_sweeps(const Comparison& cmp, std::ostream& out,
                  std::size_t max_points = static_cast<std::size_t>(-1)) {
  const bool large = max_points != static_cast<std::size_t>(-1);
  struct Sweep {
    std::string title;
    std::string x_key;
    std::string unit;
    std::vector<std::pair<double, double>> base, cand;
  };
  std::map<std::string, Sweep> sweeps;
  for (const Entry& e : cmp.entries) {
    if (!e.primary) continue;
    for (std::size_t i = 0; i < e.params.size(); ++i) {
      if (!e.params[i].number || is_run_control_param(e.params[i].key)) continue;
      std::string rest;
      for (std::size_t j = 0; j < e.params.size(); ++j) {
        if (j != i && !is_run_control_param(e.params[j].key)) {
          rest += "/" + e.params[j].key + ":" + e.params[j].text;
        }
      }
      std::string id = e.key.suite + "/" + e.case_name + rest + " " + e.key.metric + " " +
                       e.key.device + " by " + e.params[i].key;
      Sweep& s = sweeps[id];
      s.title =
          e.key.suite + "/" + e.case_name + rest + " — " + e.key.metric + " (" + e.key.device + ")";
      s.x_key = e.params[i].key;
      s.unit = e.unit;
      s.base.emplace_back(*e.params[i].number, e.base.median);
      s.cand.emplace_back(*e.params[i].number, e.candidate.median);
    }
  }
  std::size_t shown = 0, too_long = 0;
  for (auto& [id, s] : sweeps) {
    if (s.base.size() < 3) continue;
    if (s.base.size() > max_points) {
      ++too_long;
      continue;
    }
    if (shown++ == k_max_sweeps) {
      out << "<p class=\"note\">More sweeps are in " << (large ? "" : "the table and ")
          << "the JSON output.</p>\n";
      break;
    }
    std::sort(s.base.begin(), s.base.end());
    std::sort(s.cand.begin(), s.cand.end());
    svg::line_chart(out, s.title, s.x_key, s.unit,
                    {{"base", "#4c72b0", s.base}, {"candidate", "#dd8452", s.cand}});
  }
  if (too_long > 0) {
    out << "<p class=\"note\">" << too_long << " sweeps of more than " << max_points
        << " points are not drawn (their numbers are in the JSON output).</p>\n";
  }
  if (shown == 0 && too_long == 0) {
    out << "<p class=\"note\">No parameter sweeps in this comparison.</p>\n";
  }
}

// The fail-on a verdict is read under: the comparison's own, or the default when it was not
// gated (--fail-on never).
FailOn gate_of(const Comparison& cmp) {
  return cmp.options.fail_on == FailOn::never ? FailOn::regression : cmp.options.fail_on;
}

// The heading's verdict (issue 39: the nightly page rendered with --fail-on never opened "NOT
// GATED" on a failing night): PASS or FAIL always, under --fail-on never read under the default
// --fail-on regression and said so: "FAIL (not gated: --fail-on never): 5 failing under
// --fail-on regression (...)".
std::string html_headline(const Comparison& cmp) {
  const std::string line = verdict_headline(cmp);
  if (cmp.options.fail_on != FailOn::never) return line;
  const std::size_t failing = cmp.failing(FailOn::regression);
  // The counts in parentheses at the end of the text headline, whatever its wording.
  const std::size_t paren = line.find(" (", line.find(':'));
  const std::string counts = paren == std::string::npos ? "" : line.substr(paren);
  return std::string(failing > 0 ? "FAIL" : "PASS") + " (not gated: --fail-on never): " +
         (failing > 0 ? std::to_string(failing) + " failing" : std::string("none failing")) +
         " under --fail-on regression" + counts;
}

// Which verdict colours a grouped row: the one to act on first.
int verdict_rank(Verdict v) {
  switch (v) {
    case Verdict::regression:
      return 0;
    case Verdict::invalid:
      return 1;
    case Verdict::improvement:
      return 2;
    case Verdict::changed:
      return 3;
    case Verdict::missing:
      return 4;
    case Verdict::inconclusive:
      return 5;
    case Verdict::unchanged:
      return 6;
  }
  return 7;
}

// log speed-up (< 0 worse) for ordering by severity; the size of the change when the metric has
// no direction, counted as worse.
double log_speed(const Entry& e) {
  if (const auto s = e.speedup(); s && *s > 0 && std::isfinite(*s)) return std::log(*s);
  return std::isfinite(e.ratio) && e.ratio > 0 ? -std::fabs(std::log(e.ratio)) : 0.0;
}

// The summary lists at most this many failing entries: the rest are in the results below.
constexpr std::size_t k_max_summary_failing = 50;

// Summary first (issue 39), as the text does: the failing entries by severity (verdict, then the
// largest slowdown), then one verdict per GPU: "gpu3 GPU-…: FAIL (5 checks); 7 GPUs PASS".
void write_failing_summary(const Comparison& cmp, std::ostream& out) {
  const FailOn gate = gate_of(cmp);
  std::vector<const Entry*> failing;
  for (const Entry& e : cmp.entries) {
    if (e.primary && entry_fails(e, gate)) failing.push_back(&e);
  }
  std::stable_sort(failing.begin(), failing.end(), [](const Entry* a, const Entry* b) {
    if (verdict_rank(a->verdict) != verdict_rank(b->verdict)) {
      return verdict_rank(a->verdict) < verdict_rank(b->verdict);
    }
    return log_speed(*a) < log_speed(*b);
  });
  out << "<h2>Summary</h2>\n";
  if (failing.empty()) {
    out << "<p>Nothing fails under <code>--fail-on " << to_string(gate) << "</code>.</p>\n";
  } else {
    out << "<p>Failing under <code>--fail-on " << to_string(gate) << "</code>, worst first:</p>\n"
        << "<ol class=\"failing\">\n";
    for (std::size_t i = 0; i < failing.size(); ++i) {
      if (i == k_max_summary_failing) {
        out << "<li>and " << failing.size() - i << " more, in the results below</li>\n";
        break;
      }
      const Entry* e = failing[i];
      out << "<li class=\"" << to_string(e->verdict) << "\"><strong>" << to_string(e->verdict)
          << "</strong> <span class=\"name\">" << html_escape(e->key.benchmark) << "</span> "
          << html_escape(e->key.metric) << ' ' << html_escape(e->key.device) << ": "
          << change_pct(e->ratio);
      if (std::isfinite(e->ci_low)) {
        out << " [" << change_pct(e->ci_low) << ", " << change_pct(e->ci_high) << "]";
      }
      out << " <span class=\"note\">" << html_escape(plain_why(*e, cmp.options.confidence))
          << "</span></li>\n";
    }
    out << "</ol>\n";
  }
  // Per GPU: the devices named gpuN, each with its UUID where the candidate recorded one.
  std::map<std::string, std::pair<std::string, std::size_t>> gpus;  // device -> (uuid, failing)
  for (const Entry& e : cmp.entries) {
    if (!e.primary || e.key.device.rfind("gpu", 0) != 0) continue;
    auto& g = gpus[e.key.device];
    if (g.first.empty()) g.first = e.candidate.gpu_uuid;
    if (entry_fails(e, gate)) ++g.second;
  }
  if (gpus.size() < 2) return;
  std::vector<std::string> fail, pass;
  std::vector<std::pair<std::string, std::pair<std::string, std::size_t>>> ordered(gpus.begin(),
                                                                                   gpus.end());
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return svg::natural_less(a.first, b.first); });
  for (const auto& [device, g] : ordered) {
    if (g.second == 0) {
      pass.push_back(device);
      continue;
    }
    fail.push_back(device + (g.first.empty() ? "" : " " + g.first) + ": FAIL (" +
                   std::to_string(g.second) + (g.second == 1 ? " check)" : " checks)"));
  }
  if (!pass.empty()) {
    fail.push_back(std::to_string(pass.size()) +
                   (pass.size() == 1 ? " GPU PASS (" : " GPUs PASS (") + join(pass, ", ") + ")");
  }
  out << "<p class=\"per-gpu\"><strong>Per GPU:</strong> " << html_escape(join(fail, "; "))
      << "</p>\n";
}

// The page up to the verdict counts: head, problems, the two sides, counts.
void write_head(const Comparison& cmp, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<title>gpubench compare " << html_escape(cmp.base_selection) << " vs "
      << html_escape(cmp.candidate_selection) << "</title>\n<style>" << k_html_style
      << "</style>\n</head>\n<body>\n";
  out << "<h1>gpubench compare</h1>\n";
  // The verdict first, as in text and Markdown (issue 26), always the gated one (issue 39).
  out << "<p class=\"verdict-line\"><strong>" << html_escape(html_headline(cmp))
      << "</strong></p>\n";
  if (cmp.options.fail_on == FailOn::never) {
    out << "<p class=\"note not-gated\">Not gated: this comparison ran with <code>--fail-on "
           "never</code>, so its exit code was 0 whatever it found; the verdict above is the one "
           "<code>--fail-on regression</code> (the default) would have given.</p>\n";
  }
  for (const std::string& p : cmp.problems) {
    out << "<p class=\"problem\"><strong>Problem:</strong> " << html_escape(p) << "</p>\n";
  }
  out << "<p>base <code>" << html_escape(cmp.base_selection) << "</code> ("
      << (cmp.base_runs.size() == 1 ? "run" : "runs");
  for (int64_t id : cmp.base_runs) out << ' ' << id;
  out << ") → candidate <code>" << html_escape(cmp.candidate_selection) << "</code> ("
      << (cmp.candidate_runs.size() == 1 ? "run" : "runs");
  for (int64_t id : cmp.candidate_runs) out << ' ' << id;
  out << ")</p>\n";
  for (const std::string& a : annotation_lines(cmp)) {
    out << "<p class=\"annotation\">Annotated: " << html_escape(a) << "</p>\n";
  }
  out << "<p class=\"counts\">";
  for (Verdict v : k_all_verdicts) {
    out << "<span class=\"" << to_string(v) << "\">" << cmp.count(v) << ' ' << to_string(v)
        << "</span> ";
  }
  out << "</p>\n";
  // What the colours mean (rows and chart points), once per page.
  out << "<p class=\"legend\">Colours: <span class=\"sw regression\"></span>regression "
         "<span class=\"sw improvement\"></span>improvement <span class=\"sw inconclusive\"></span>"
         "inconclusive, changed or missing <span class=\"sw invalid\"></span>invalid "
         "<span class=\"sw unchanged\"></span>unchanged or secondary metric. Charts: point = "
         "speed-up (&gt;1 better), bar = its 99% interval, dashed line = no change.</p>\n";
}

// Environment differences and the suites table with its note.
void write_summary(const Comparison& cmp, std::ostream& out) {
  out << "<h2>Environment differences</h2>\n";
  if (cmp.env_differences.empty()) {
    out << "<p>None: both sides ran in the same recorded environment.</p>\n";
  } else {
    out << "<div class=\"table-wrap\"><table><tr><th>field</th><th>base</th><th>candidate</th>"
           "</tr>\n";
    for (const auto& d : cmp.env_differences) {
      out << "<tr><td>" << html_escape(d.field) << "</td><td>" << html_escape(d.base) << "</td><td>"
          << html_escape(d.candidate) << "</td></tr>\n";
    }
    out << "</table></div>\n";
  }
  out << "<h2>Suites</h2>\n<div class=\"table-wrap\"><table><tr><th>suite</th><th>compared</th>";
  for (Verdict v : k_all_verdicts) out << "<th>" << to_string(v) << "</th>";
  out << "<th>speed-up (geomean)</th><th>99% interval</th><th>geomean of</th><th>note</th></tr>\n";
  for (const auto& s : cmp.suites) {
    out << "<tr><td>" << html_escape(s.suite) << "</td><td class=\"num\">" << s.compared << "</td>";
    for (Verdict v : k_all_verdicts) out << "<td class=\"num\">" << s.count(v) << "</td>";
    out << "<td class=\"num\">" << (s.geomean_count ? format_ratio(s.geomean) : "—") << "</td><td>"
        << (s.geomean_count ? format_ratio(s.geomean_low) + " – " + format_ratio(s.geomean_high)
                            : "—")
        << "</td><td class=\"num\">" << s.geomean_count << " entries</td><td>"
        << html_escape(suite_note(s)) << "</td></tr>\n";
  }
  out << "</table></div>\n<p class=\"note\">Counts, speed-ups and the exit code use each suite's "
         "primary metrics: one verdict per benchmark. Secondary metrics are in the table, marked, "
         "not counted.</p>\n";
}

const char* k_results_header =
    "<div class=\"table-wrap\"><table "
    "class=\"results\"><tr><th>benchmark</th><th>metric</th><th>device</th>"
    "<th>base</th><th>candidate</th><th>unit</th><th>change</th><th>99% interval</th>"
    "<th>n</th><th>verdict</th><th>why</th></tr>\n";

// One line per row (issue 26: one wrapped cell made rows 120-150 px tall): cells do not wrap and
// the why is a closed <details> whose summary is one line (cut with an ellipsis) and whose body
// holds the whole text.
void write_result_row(const Entry& e, double confidence, std::ostream& out) {
  const std::string why = html_escape(plain_why(e, confidence));
  out << "<tr class=\"" << (e.primary ? to_string(e.verdict) : "secondary")
      << "\"><td class=\"name\">" << html_escape(e.key.benchmark) << "</td><td>"
      << html_escape(e.key.metric) << (e.primary ? "" : " (secondary)") << "</td><td>"
      << e.key.device << "</td><td class=\"num\">" << format_value(e.base.median)
      << "</td><td class=\"num\">" << format_value(e.candidate.median) << "</td><td>"
      << html_escape(e.unit) << "</td><td class=\"num\">" << change_pct(e.ratio) << "</td><td>"
      << (std::isfinite(e.ci_low) ? "[" + change_pct(e.ci_low) + ", " + change_pct(e.ci_high) + "]"
                                  : "—")
      << "</td><td class=\"num\">" << e.base.n << '/' << e.candidate.n << "</td><td>"
      << to_string(e.verdict) << "</td><td class=\"why\"><details><summary>" << why << "</summary>"
      << why << "</details></td></tr>\n";
}

// Comparisons over many GPUs (issue 26: eight GPUs made 40 near-identical rows): at least this
// many devices and the results table has one row per benchmark and metric, the GPUs a strip.
constexpr std::size_t k_strip_min_devices = 4;

std::size_t device_count(const Comparison& cmp) {
  std::set<std::string_view> devices;
  for (const Entry& e : cmp.entries) devices.insert(e.key.device);
  return devices.size();
}

// One row per (suite, benchmark without its device:N, metric): a strip of one square per GPU
// coloured by its verdict (its change and interval in the square's tooltip), the median change over
// the GPUs and their range, the verdict counts, and every GPU's line in a closed <details>.
// `devices`: device_count(cmp).
void write_strip_rows(const Comparison& cmp, std::size_t devices, std::ostream& out) {
  std::vector<std::vector<const Entry*>> groups;
  std::map<std::string, std::size_t> index;
  for (const Entry* e : entries_in_order(cmp)) {
    // One benchmark on each GPU is one row: the suites name it per GPU (".../device:3").
    const std::string key =
        e->key.suite + '\n' + without_device(e->key.benchmark) + '\n' + e->key.metric;
    const auto [it, added] = index.emplace(key, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(e);
  }
  out << "<p class=\"note\">" << devices
      << " devices: one row per benchmark and metric; each square of the strip is one device "
         "(colour: its verdict; hover: its change and 99% interval), the change is the worst "
         "device's (the verdict to act on first, then the largest slowdown) with the range over "
         "the devices, and the last cell opens to every device.</p>\n"
      << "<div class=\"table-wrap\"><table class=\"results\"><tr><th>benchmark</th><th>metric"
      << "</th><th>devices</th><th>change (worst device)</th><th>range</th><th>unit</th><th>"
      << "verdicts</th><th>per device</th></tr>\n";
  for (const std::vector<const Entry*>& g : groups) {
    const Entry& first = *g.front();
    // The device to act on first (issue 39: the median over 8 GPUs read +0.05% where GPU 3 was
    // -15%): the most severe verdict, then the largest slowdown.
    const Entry* worst = &first;
    std::vector<double> changes;
    std::map<int, std::pair<Verdict, std::size_t>> counts;
    for (const Entry* e : g) {
      if (std::isfinite(e->ratio) && e->ratio > 0) changes.push_back(e->ratio);
      auto& c = counts[verdict_rank(e->verdict)];
      c.first = e->verdict;
      ++c.second;
      const int rank = verdict_rank(e->verdict), worst_rank = verdict_rank(worst->verdict);
      if (rank < worst_rank || (rank == worst_rank && log_speed(*e) < log_speed(*worst))) worst = e;
    }
    std::sort(changes.begin(), changes.end());
    std::vector<std::string> tally;
    for (const auto& [rank, c] : counts) {
      tally.push_back(std::to_string(c.second) + " " + to_string(c.first));
    }
    const bool measured = std::isfinite(worst->ratio) && worst->ratio > 0;
    out << "<tr class=\"" << (first.primary ? to_string(worst->verdict) : "secondary")
        << "\"><td class=\"name\">" << html_escape(without_device(first.key.benchmark))
        << "</td><td>" << html_escape(first.key.metric) << (first.primary ? "" : " (secondary)")
        << "</td><td><svg class=\"strip\" width=\"" << 12 * g.size() + 2
        << "\" height=\"14\" role=\"img\">";
    for (std::size_t i = 0; i < g.size(); ++i) {
      const Entry& e = *g[i];
      const std::string interval =
          std::isfinite(e.ci_low) ? " [" + change_pct(e.ci_low) + ", " + change_pct(e.ci_high) + "]"
                                  : "";
      out << "<rect x=\"" << 1 + 12 * i << "\" y=\"2\" width=\"10\" height=\"10\" class=\""
          << to_string(e.verdict) << "\"><title>" << html_escape(e.key.device) << ": "
          << change_pct(e.ratio) << interval << ", " << to_string(e.verdict) << "</title></rect>";
    }
    out << "</svg></td><td class=\"num worst\">"
        << (measured ? html_escape(worst->key.device) + " " + change_pct(worst->ratio) : "—")
        << "</td><td>"
        << (changes.empty() ? "—"
                            : change_pct(changes.front()) + " … " + change_pct(changes.back()))
        << "</td><td>" << html_escape(first.unit) << "</td><td>" << join(tally, ", ")
        << "</td><td class=\"why\"><details><summary>" << g.size() << " device"
        << (g.size() == 1 ? "" : "s") << "</summary>";
    for (const Entry* e : g) {
      out << html_escape(e->key.device) << ": " << format_value(e->base.median) << " → "
          << format_value(e->candidate.median) << ' ' << html_escape(e->unit) << ", "
          << change_pct(e->ratio) << ", " << to_string(e->verdict) << " ("
          << html_escape(plain_why(*e, cmp.options.confidence)) << ")<br>";
    }
    out << "</details></td></tr>\n";
  }
  out << "</table></div>\n";
}

// A list longer than k_large_report_entries goes in a closed <details> (large layout).
void write_unmatched(const Comparison& cmp, std::ostream& out) {
  auto list = [&](const char* title, const std::vector<Unmatched>& items) {
    if (items.empty()) return;
    const bool closed = is_large_report(items.size());
    out << "<h2>" << title << " (" << items.size() << ")</h2>\n";
    if (closed) out << "<details><summary>" << items.size() << " entries</summary>\n";
    out << "<ul>\n";
    for (const auto& u : items) {
      out << "<li>" << html_escape(u.key.benchmark) << ' ' << html_escape(u.key.metric) << ' '
          << u.key.device << ": " << html_escape(u.reason) << "</li>\n";
    }
    out << "</ul>\n";
    if (closed) out << "</details>\n";
  };
  list("Added", cmp.added);
  list("Removed", cmp.removed);
  list("Skipped", cmp.skipped);
}

// Compact lines in a preformatted block, inside <details> (collapsed unless `open`).
void write_compact_block(const std::string& summary, const std::vector<const Entry*>& entries,
                         Interval interval, bool open, std::ostream& out) {
  out << "<details" << (open ? " open" : "") << "><summary>" << html_escape(summary)
      << "</summary>\n<pre>change  " << (interval == Interval::shown ? "99% interval     " : "")
      << "n     benchmark metric device\n";
  for (const Entry* e : entries) out << html_escape(compact_line(*e, interval)) << '\n';
  out << "</pre>\n</details>\n";
}

// Large comparisons (render_large.hpp): what to act on in full, the rest as distributions.
void render_html_large(const Comparison& cmp, std::ostream& out, const std::string& csv_path) {
  const LargeGroups groups = group_large(cmp);
  write_head(cmp, out);
  write_failing_summary(cmp, out);
  out << "<p class=\"note\">" << cmp.entries.size() << " entries (more than "
      << k_large_report_entries << "): every regression, improvement, changed, invalid and "
      << "missing entry is listed below, in full rows up to " << k_max_full_rows
      << " a verdict (the largest changes) and compactly beyond; every inconclusive entry in a "
         "compact list "
      << "(worst change first); the " << groups.unchanged.size() << " unchanged entries are "
      << "charted per suite and "
      << (csv_path.empty()
              ? "listed in the collapsed block at the end"
              : "listed in " + html_escape(sidecar_name(csv_path)) + ", beside this file")
      << ".</p>\n";
  write_summary(cmp, out);
  out << "<h2>Distribution of the entries not listed in full</h2>\n";
  std::vector<std::pair<std::string, double>> rest;
  for (const auto* list : {&groups.unchanged, &groups.inconclusive}) {
    for (const Entry* e : *list) {
      if (e->primary) rest.emplace_back(e->key.suite, change_percent(*e));
    }
  }
  for (const Distribution& d : distributions(std::move(rest))) {
    svg::histogram_chart(out,
                         d.suite + ": change of " + std::to_string(d.total) +
                             " unchanged and inconclusive benchmarks (%, > 0 is better)",
                         "speed-up − 1, % (median " + format_value(d.median) + ", 90% within " +
                             format_value(d.p05) + " to " + format_value(d.p95) +
                             "; the end bars also hold what lies beyond)",
                         d.edges, d.counts, "#8c8c8c");
  }
  out << "<h2>Change per benchmark</h2>\n";
  write_forest(cmp, out);
  out << "<h2>Sweeps</h2>\n";
  write_sweeps(cmp, out, k_max_large_sweep_points);
  for (const VerdictGroup& g : groups.listed) {
    out << "<h2>" << to_string(g.verdict) << " (" << g.size << ")</h2>\n";
    if (!g.compact.empty()) {
      out << "<p class=\"note\">The " << g.full.size() << " largest changes in full; the other "
          << g.compact.size() << " in the compact list below, largest change first.</p>\n";
    }
    out << k_results_header;
    for (const Entry* e : g.full) write_result_row(*e, cmp.options.confidence, out);
    out << "</table></div>\n";
    if (!g.compact.empty()) {
      write_compact_block(std::to_string(g.compact.size()) + " more " + to_string(g.verdict) +
                              " entries, largest change first",
                          g.compact, Interval::shown, !is_large_report(g.compact.size()), out);
    }
  }
  if (!groups.inconclusive.empty()) {
    out << "<h2>inconclusive (" << groups.inconclusive.size() << ")</h2>\n<p class=\"note\">"
        << "The interval crosses the threshold: more repetitions or runs would decide these "
        << "(each entry's reason is in <code>--format json</code> and <code>csv</code>).</p>\n";
    write_compact_block(
        std::to_string(groups.inconclusive.size()) + " inconclusive entries, worst change first",
        groups.inconclusive, Interval::shown, groups.inconclusive.size() <= k_large_report_entries,
        out);
  }
  out << "<h2>unchanged (" << groups.unchanged.size() << ")</h2>\n";
  if (!csv_path.empty()) {
    std::ostringstream csv;
    write_entries_csv(groups.unchanged, csv);
    write_sidecar(csv_path, csv.str());
    const std::string name = html_escape(sidecar_name(csv_path));
    out << "<p>Listed in <a href=\"" << name << "\">" << name
        << "</a> (CSV, beside this file).</p>\n";
  } else if (!groups.unchanged.empty()) {
    write_compact_block(std::to_string(groups.unchanged.size()) + " unchanged entries",
                        groups.unchanged, Interval::left_out, false, out);
  }
  write_unmatched(cmp, out);
  out << "</body>\n</html>\n";
}

}  // namespace

void render_html(const Comparison& cmp, std::ostream& out, const std::string& unchanged_csv) {
  if (is_large_report(cmp.entries.size())) {
    render_html_large(cmp, out, unchanged_csv);
    return;
  }
  write_head(cmp, out);
  write_failing_summary(cmp, out);
  write_summary(cmp, out);
  out << "<h2>Change per benchmark</h2>\n";
  write_forest(cmp, out);
  out << "<h2>Sweeps</h2>\n";
  write_sweeps(cmp, out);
  out << "<h2>Results</h2>\n";
  if (const std::size_t devices = device_count(cmp); devices >= k_strip_min_devices) {
    write_strip_rows(cmp, devices, out);
  } else {
    out << k_results_header;
    for (const Entry* e : entries_in_order(cmp)) write_result_row(*e, cmp.options.confidence, out);
    out << "</table></div>\n";
  }
  write_unmatched(cmp, out);
  out << "</body>\n</html>\n";
}

}  // namespace gpubench::compare
