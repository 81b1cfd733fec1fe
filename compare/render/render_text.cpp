// Text for terminals (aligned columns, colour only when asked: the CLI asks on a TTY) and
// Markdown for PR comments and e-mail.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "compare/render/render.hpp"
#include "compare/render/render_large.hpp"
#include "compare/render/svg.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::compare {
namespace {

std::string interval(const Entry& e) {
  if (!std::isfinite(e.ci_low) || !std::isfinite(e.ci_high)) return "—";
  return "[" + change_pct(e.ci_low) + ", " + change_pct(e.ci_high) + "]";
}

std::string runs_text(const std::vector<int64_t>& ids) {
  std::vector<std::string> parts;
  for (int64_t id : ids) parts.push_back(std::to_string(id));
  return (ids.size() == 1 ? "run " : "runs ") + join(parts, ",");
}

const char* colour_of(Verdict v) {
  switch (v) {
    case Verdict::regression:
      return "\033[31m";
    case Verdict::improvement:
      return "\033[32m";
    case Verdict::invalid:
      return "\033[35m";
    case Verdict::inconclusive:
    case Verdict::changed:
    case Verdict::missing:
      return "\033[33m";
    case Verdict::unchanged:
      return "";
  }
  return "";
}

// Every verdict, always, in k_all_verdicts order (the JSON "counts" keys).
std::string counts_line(const Comparison& cmp) {
  std::vector<std::string> parts;
  for (Verdict v : k_all_verdicts)
    parts.push_back(std::to_string(cmp.count(v)) + " " + to_string(v));
  return join(parts, ", ") + " (" + std::to_string(cmp.compared()) + " compared, " +
         (cmp.removed_benchmarks() == 0 ? std::string()
                                        : std::to_string(cmp.removed_benchmarks()) + " removed, ") +
         std::to_string(cmp.failing(cmp.options.fail_on)) + " failing --fail-on " +
         to_string(cmp.options.fail_on) + ")";
}

// Suite rows: counts by verdict, then the geometric mean and how many entries it holds.
std::vector<std::string> suite_header() {
  std::vector<std::string> h = {"suite", "compared"};
  for (Verdict v : k_all_verdicts) h.push_back(to_string(v));
  h.insert(h.end(), {"speed-up", "99% interval", "geomean of", "note"});
  return h;
}
std::vector<std::string> suite_cells(const SuiteSummary& s) {
  std::vector<std::string> c = {s.suite, std::to_string(s.compared)};
  for (Verdict v : k_all_verdicts) c.push_back(std::to_string(s.count(v)));
  c.push_back(s.geomean_count ? format_ratio(s.geomean) : "—");
  c.push_back(s.geomean_count
                  ? "[" + format_ratio(s.geomean_low) + ", " + format_ratio(s.geomean_high) + "]"
                  : "—");
  c.push_back(std::to_string(s.geomean_count) + " entries");
  c.push_back(suite_note(s));
  return c;
}

// Prints rows with each column padded to its widest cell, fitted to the output width (issue 26:
// the last column wraps, the widest others are cut); the last column is not padded.
void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                 const std::vector<std::string>& prefixes = {}) {
  if (rows.empty()) return;
  std::vector<std::size_t> line_rows;
  const std::vector<std::string> lines = fit_table(rows, output_width(), "  ", &line_rows);
  for (std::size_t l = 0; l < lines.size(); ++l) {
    const std::size_t r = line_rows[l];
    bool coloured = r < prefixes.size() && !prefixes[r].empty();
    out << (coloured ? prefixes[r] : "") << lines[l] << (coloured ? "\033[0m" : "") << '\n';
  }
}

std::string pct_abs(double fraction) {
  return format_significant(std::fabs(fraction) * 100.0, 2) + "%";
}

// "2.0% worse" / "1.5% better" / "0.3% higher" for a signed change of goodness.
std::string signed_words(double change, bool known) {
  if (!known) return pct_abs(change) + (change < 0 ? " lower" : " higher");
  return pct_abs(change) + (change < 0 ? " worse" : " better");
}

// The device column: the label, and where series were paired by GPU UUID (compare/gpu_pairing.hpp)
// and the candidate's suite numbered the GPU otherwise (a GPU before it was lost), the GPU and
// the candidate's number: "gpu4 = GPU-...4 (candidate gpu3)".
std::string device_cell(const Entry& e) {
  if (!e.base.device_index || !e.candidate.device_index ||
      *e.base.device_index == *e.candidate.device_index) {
    return e.key.device;
  }
  return e.key.device + " = " + text_name(e.candidate.gpu_uuid) + " (candidate " +
         device_label(e.candidate.device_index) + ")";
}

}  // namespace

std::vector<const Entry*> entries_in_order(const Comparison& cmp) {
  std::vector<const Entry*> out;
  for (const Entry& e : cmp.entries) out.push_back(&e);
  std::stable_sort(out.begin(), out.end(), [](const Entry* a, const Entry* b) {
    if (a->key.suite != b->key.suite) return a->key.suite < b->key.suite;
    if (a->key.benchmark != b->key.benchmark) {
      return svg::natural_less(a->key.benchmark, b->key.benchmark);
    }
    if (a->primary != b->primary) return a->primary;
    return std::tie(a->key.metric, a->key.device) < std::tie(b->key.metric, b->key.device);
  });
  return out;
}

std::string plain_why(const Entry& e, double confidence) {
  std::string tail = e.primary ? "" : " [secondary metric: shown, not counted]";
  const bool tested = std::isfinite(e.p_value) && e.ci_low > 0 && e.ci_high > 0 &&
                      (e.ci_low != e.ci_high || e.base.n >= 3);
  if (e.verdict == Verdict::invalid || !tested || e.reason == "pending") return e.reason + tail;
  const bool known = e.direction != results::Direction::unknown;
  const bool lower = e.direction == results::Direction::lower;
  // Goodness change: > 0 better. For lower-is-better metrics a ratio of 1.05 is 4.8% worse.
  double point = lower ? 1.0 / e.ratio - 1.0 : e.ratio - 1.0;
  double a = lower ? 1.0 / e.ci_high - 1.0 : e.ci_low - 1.0;
  double b = lower ? 1.0 / e.ci_low - 1.0 : e.ci_high - 1.0;
  std::string conf = format_significant(confidence * 100.0, 2) + "% confidence";
  std::string range;
  if (a < 0 && b > 0) {
    range = "between " + signed_words(a, known) + " and " + signed_words(b, known);
  } else {
    range = "between " + pct_abs(std::min(std::fabs(a), std::fabs(b))) + " and " +
            pct_abs(std::max(std::fabs(a), std::fabs(b))) +
            (known ? (a < 0 ? " worse" : " better") : (a < 0 ? " lower" : " higher"));
  }
  std::string margin = "threshold " + pct_abs(e.delta);
  std::string text;
  switch (e.verdict) {
    case Verdict::regression:
    case Verdict::improvement:
    case Verdict::changed:
      text = signed_words(point, known) + ", " + range + " with " + conf + " (beyond the " +
             margin + ")";
      break;
    case Verdict::unchanged:
      text = "no change beyond the " + margin + ": " + range + " with " + conf;
      break;
    case Verdict::inconclusive:
      text = signed_words(point, known) + ", but " + range + " with " + conf +
             ": the interval crosses the " + margin + "; " +
             (e.by_execution ? "more executions would decide it"
                             : "more repetitions or runs would decide it");
      break;
    case Verdict::invalid:
    case Verdict::missing:
      text = e.reason;
      break;
  }
  // e.reason ends with it; the words above replace the reason, so it is said again.
  if (!e.algorithm_change.empty() && e.verdict != Verdict::invalid &&
      e.verdict != Verdict::missing) {
    text += "; " + e.algorithm_change;
  }
  return text + tail;
}

std::string suite_note(const SuiteSummary& s) {
  if (s.geomean_count == 0) return "";
  if (s.geomean_high < 1.0 && s.count(Verdict::regression) == 0) {
    return "slower on average, but no single benchmark beyond its own margin";
  }
  if (s.geomean_low > 1.0 && s.count(Verdict::improvement) == 0) {
    return "faster on average, but no single benchmark beyond its own margin";
  }
  if (s.geomean_low <= 1.0 && s.geomean_high >= 1.0 &&
      s.count(Verdict::regression) + s.count(Verdict::improvement) > 0) {
    return "the average hides changes in both directions or a few large ones";
  }
  return "";
}

void render_text(const Comparison& cmp, std::ostream& out, bool colour) {
  out << verdict_headline(cmp) << '\n';  // the first line says it all (issue 26)
  for (const std::string& p : cmp.problems) out << "PROBLEM " << p << '\n';
  out << "base:      " << cmp.base_selection << " (" << runs_text(cmp.base_runs) << ")\n";
  out << "candidate: " << cmp.candidate_selection << " (" << runs_text(cmp.candidate_runs) << ")\n";
  if (!cmp.gpu_pairing.empty()) out << "GPUs:      " << cmp.gpu_pairing << '\n';
  for (const std::string& a : annotation_lines(cmp)) out << "annotated: " << a << '\n';
  out << "\nenvironment differences:";
  if (cmp.env_differences.empty()) out << " none";
  out << '\n';
  std::vector<std::vector<std::string>> env;
  for (const auto& d : cmp.env_differences) env.push_back({d.field, d.base + " -> " + d.candidate});
  print_table(out, env);
  out << "\nverdicts: " << counts_line(cmp) << '\n';

  out << "\nsuites (geometric mean of speed-ups, >1 is better, 99% interval):\n";
  std::vector<std::vector<std::string>> suites = {suite_header()};
  const bool narrow = output_width() != 0;
  if (narrow) {  // 13 columns: short headers, said once below (issue 26)
    static const std::map<std::string, std::string> k_short = {
        {"compared", "n"},     {"regression", "regr"},      {"improvement", "impr"},
        {"unchanged", "unch"}, {"inconclusive", "inconcl"}, {"changed", "chg"},
        {"invalid", "inv"},    {"missing", "miss"},         {"geomean of", "of"}};
    for (std::string& h : suites[0]) {
      if (const auto it = k_short.find(h); it != k_short.end()) h = it->second;
    }
  }
  for (const auto& s : cmp.suites) suites.push_back(suite_cells(s));
  print_table(out, suites);
  if (narrow) {
    out << "  (n compared; regr regression, impr improvement, unch unchanged, inconcl "
           "inconclusive, chg changed, inv invalid, miss missing; --wide: whole words)\n";
  }
  out << "  (primary metrics only: one verdict per benchmark; secondary metrics are listed below "
         "but not counted)\n";

  out << "\nresults:\n";
  std::vector<std::vector<std::string>> rows = {{"benchmark", "metric", "device", "base",
                                                 "candidate", "unit", "change", "99% interval", "n",
                                                 "verdict", "why"}};
  std::vector<std::string> prefixes = {""};
  std::vector<std::string> names;
  for (const Entry& e : cmp.entries) names.push_back(e.key.benchmark);
  const std::map<std::string, std::string> name = text_names(names);
  for (const Entry* ep : entries_in_order(cmp)) {
    const Entry& e = *ep;
    rows.push_back({name.at(e.key.benchmark), e.key.metric + (e.primary ? "" : " (secondary)"),
                    device_cell(e), format_value(e.base.median), format_value(e.candidate.median),
                    e.unit, change_pct(e.ratio), interval(e),
                    std::to_string(e.base.n) + "/" + std::to_string(e.candidate.n),
                    to_string(e.verdict), plain_why(e, cmp.options.confidence)});
    prefixes.push_back(colour && e.primary ? colour_of(e.verdict) : "");
  }
  print_table(out, rows, prefixes);
  auto list = [&](const char* title, const std::vector<Unmatched>& items) {
    if (items.empty()) return;
    out << '\n' << title << " (" << items.size() << "):\n";
    for (const auto& u : items) {
      out << "  " << text_name(u.key.benchmark) << " " << u.key.metric << " " << u.key.device
          << ": " << u.reason << '\n';
    }
  };
  list("added", cmp.added);
  list("removed", cmp.removed);
  list("skipped", cmp.skipped);
}

namespace {

void write_md_summary(const Comparison& cmp, std::ostream& out) {
  out << "### Environment differences\n\n";
  if (cmp.env_differences.empty()) {
    out << "None.\n\n";
  } else {
    out << "| field | base | candidate |\n|---|---|---|\n";
    for (const auto& d : cmp.env_differences) {
      out << "| " << markdown_escape(d.field) << " | " << markdown_escape(d.base) << " | "
          << markdown_escape(d.candidate) << " |\n";
    }
    out << '\n';
  }
  out << "### Suites\n\n|";
  std::vector<std::string> header = suite_header();
  for (const auto& h : header) out << ' ' << h << " |";
  out << "\n|---|";
  for (std::size_t i = 1; i < header.size(); ++i) out << "---:|";
  out << '\n';
  for (const auto& s : cmp.suites) {
    out << '|';
    for (const auto& cell : suite_cells(s)) out << ' ' << markdown_escape(cell) << " |";
    out << '\n';
  }
}

const char* k_md_results_header =
    "| benchmark | metric | device | base | candidate | change | 99% "
    "interval | verdict | why |\n|---|---|---|---:|---:|---:|---|---|---|\n";

void write_md_row(const Entry& e, double confidence, std::ostream& out) {
  out << "| " << markdown_escape(e.key.benchmark) << " | " << markdown_escape(e.key.metric) << " | "
      << e.key.device << " | " << format_value(e.base.median) << ' ' << markdown_escape(e.unit)
      << " | " << format_value(e.candidate.median) << ' ' << markdown_escape(e.unit) << " | "
      << change_pct(e.ratio) << " | " << interval(e) << " | "
      << (e.verdict == Verdict::regression && e.primary ? "**regression**" : to_string(e.verdict))
      << " | " << markdown_escape(plain_why(e, confidence)) << " |\n";
}

void write_md_unmatched(const Comparison& cmp, std::ostream& out) {
  auto list = [&](const char* title, const std::vector<Unmatched>& items) {
    if (items.empty()) return;
    out << "\n### " << title << " (" << items.size() << ")\n\n";
    for (const auto& u : items) {
      out << "- " << markdown_escape(u.key.benchmark) << " " << markdown_escape(u.key.metric) << " "
          << u.key.device << ": " << markdown_escape(u.reason) << '\n';
    }
  };
  list("Added", cmp.added);
  list("Removed", cmp.removed);
  list("Skipped", cmp.skipped);
}

void write_md_head(const Comparison& cmp, std::ostream& out) {
  // No code spans: escapes are literal inside them, and selections come from the user.
  // The verdict first: a CI job summary is read from its first line (issue 26).
  out << "## " << markdown_escape(verdict_headline(cmp)) << "\n\n";
  out << "gpubench compare: " << markdown_escape(cmp.base_selection) << " → "
      << markdown_escape(cmp.candidate_selection) << "\n\n";
  for (const std::string& p : cmp.problems) out << "**Problem:** " << markdown_escape(p) << "\n\n";
  write_md_runs(cmp, out);
  out << "**" << markdown_escape(counts_line(cmp)) << "**\n\n";
}

// Compact lines (render_large.hpp) in a collapsed block holding a fenced code block; the fence
// is longer than any run of backticks inside, so no name can end it.
void write_md_compact_block(const std::string& summary, const std::vector<const Entry*>& entries,
                            std::ostream& out) {
  std::vector<std::string> lines;
  std::size_t ticks = 0;
  for (const Entry* e : entries) {
    lines.push_back(compact_line(*e, Interval::shown));
    std::size_t run = 0;
    for (char c : lines.back()) {
      run = c == '`' ? run + 1 : 0;
      ticks = std::max(ticks, run);
    }
  }
  const std::string fence(std::max<std::size_t>(3, ticks + 1), '`');
  out << "<details><summary>" << summary << "</summary>\n\n"
      << fence << "text\nchange  99% interval     n     benchmark metric device\n";
  for (const std::string& line : lines) out << line << '\n';
  out << fence << "\n\n</details>\n";
}

// Large comparisons (render_large.hpp). Bounded by what users act on: the unchanged entries add
// one table row per suite; inconclusive entries one compact line each, in a collapsed block.
void render_markdown_large(const Comparison& cmp, std::ostream& out, const std::string& csv_path) {
  const LargeGroups groups = group_large(cmp);
  write_md_head(cmp, out);
  out << "> " << cmp.entries.size() << " entries (more than " << k_large_report_entries
      << "): every regression, improvement, changed, invalid and missing entry is listed, in "
         "full rows up to "
      << k_max_full_rows
      << " a verdict (the largest changes) and compactly beyond; every inconclusive entry "
         "compactly (worst change first); the "
      << groups.unchanged.size() << " unchanged entries are summarised per suite"
      << (csv_path.empty() ? "" : " and listed in " + markdown_escape(sidecar_name(csv_path)))
      << ".\n\n";
  write_md_summary(cmp, out);
  out << "\n### Distribution of the entries not listed in full\n\nChange of the unchanged and "
         "inconclusive benchmarks (speed-up − 1, %, > 0 is better; primary metrics).\n\n"
         "| suite | benchmarks | min | 5% | median | 95% | max "
         "|\n|---|---:|---:|---:|---:|---:|---:|\n";
  std::vector<std::pair<std::string, double>> rest;
  for (const auto* list : {&groups.unchanged, &groups.inconclusive}) {
    for (const Entry* e : *list) {
      if (e->primary) rest.emplace_back(e->key.suite, change_percent(*e));
    }
  }
  for (const Distribution& d : distributions(std::move(rest))) {
    out << "| " << markdown_escape(d.suite) << " | " << d.total;
    for (double v : {d.min, d.p05, d.median, d.p95, d.max}) out << " | " << format_value(v);
    out << " |\n";
  }
  for (const VerdictGroup& g : groups.listed) {
    out << "\n### " << to_string(g.verdict) << " (" << g.size << ")\n\n";
    if (!g.compact.empty()) {
      out << "The " << g.full.size() << " largest changes in full; the other " << g.compact.size()
          << " in the compact list below, largest change first.\n\n";
    }
    out << k_md_results_header;
    for (const Entry* e : g.full) write_md_row(*e, cmp.options.confidence, out);
    if (!g.compact.empty()) {
      out << '\n';
      write_md_compact_block(std::to_string(g.compact.size()) + " more " + to_string(g.verdict) +
                                 " entries, largest change first",
                             g.compact, out);
    }
  }
  if (!groups.inconclusive.empty()) {
    out << "\n### inconclusive (" << groups.inconclusive.size()
        << ")\n\nThe interval crosses the threshold: more repetitions or runs would decide "
           "these (each reason is in --format json and csv).\n\n";
    write_md_compact_block(
        std::to_string(groups.inconclusive.size()) + " inconclusive entries, worst change first",
        groups.inconclusive, out);
  }
  out << "\n### unchanged (" << groups.unchanged.size() << ")\n\n";
  if (!csv_path.empty()) {
    std::ostringstream csv;
    write_entries_csv(groups.unchanged, csv);
    write_sidecar(csv_path, csv.str());
    out << "Listed in " << markdown_escape(sidecar_name(csv_path)) << " (CSV, beside this file).\n";
  } else {
    out << "Not listed here: write the report with -o FILE to get them in a CSV file beside it "
           "(FILE's name with .unchanged.csv), or use --format csv.\n";
  }
  write_md_unmatched(cmp, out);
}

}  // namespace

void render_markdown(const Comparison& cmp, std::ostream& out, const std::string& unchanged_csv) {
  if (is_large_report(cmp.entries.size())) {
    render_markdown_large(cmp, out, unchanged_csv);
    return;
  }
  write_md_head(cmp, out);
  write_md_summary(cmp, out);
  out << "\n### Results\n\n" << k_md_results_header;
  for (const Entry* e : entries_in_order(cmp)) write_md_row(*e, cmp.options.confidence, out);
  write_md_unmatched(cmp, out);
}

}  // namespace gpubench::compare
