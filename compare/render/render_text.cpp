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

std::string pct_abs(double fraction, int digits = 2) {
  return format_significant(std::fabs(fraction) * 100.0, digits) + "%";
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
    // Digits enough that two different bounds do not read alike ("between 15% and 15% worse").
    const double lo = std::min(std::fabs(a), std::fabs(b)),
                 hi = std::max(std::fabs(a), std::fabs(b));
    int digits = 2;
    while (digits < 4 && lo != hi && pct_abs(lo, digits) == pct_abs(hi, digits)) ++digits;
    range = "between " + pct_abs(lo, digits) + " and " + pct_abs(hi, digits) +
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

namespace {

// Unchanged rows listed one each up to this many; past it, summarised per suite and GPU (issue
// 39: the comparison of two 8-GPU runs fits 80 lines at 120 columns).
constexpr std::size_t k_unchanged_rows = 20;

// The primary entries split as the summary shows them: failing (worst first), the other changes,
// unchanged; and the secondary ones. Failing is judged as the exit code is, and under --fail-on
// never as --fail-on regression would (the headline says NOT GATED).
struct Sections {
  std::vector<const Entry*> failing, changes, unchanged, secondary;
};
Sections sections_of(const Comparison& cmp) {
  const FailOn judge =
      cmp.options.fail_on == FailOn::never ? FailOn::regression : cmp.options.fail_on;
  Sections s;
  for (const Entry* e : by_severity(entries_in_order(cmp))) {
    if (!e->primary) {
      s.secondary.push_back(e);
    } else if (entry_fails(*e, judge)) {
      s.failing.push_back(e);
    } else if (e->verdict == Verdict::unchanged) {
      s.unchanged.push_back(e);
    } else {
      s.changes.push_back(e);
    }
  }
  return s;
}

std::string failing_title(const Comparison& cmp, std::size_t n) {
  if (cmp.options.fail_on == FailOn::never) {
    return "would fail under --fail-on regression (" + std::to_string(n) +
           ", not gated: --fail-on never; worst first)";
  }
  return "failing under --fail-on " + std::string(to_string(cmp.options.fail_on)) + " (" +
         std::to_string(n) + ", worst first)";
}

// The one metric every entry of `entries` has, "" when they differ (then a metric column).
std::string shared_metric(const std::vector<const Entry*>& entries) {
  for (const Entry* e : entries) {
    if (e->key.metric != entries.front()->key.metric) return "";
  }
  return entries.empty() ? "" : entries.front()->key.metric;
}

// "secondary metrics: 120 entries (5 regression, 115 unchanged), not counted".
std::string secondary_counts(const std::vector<const Entry*>& entries) {
  std::size_t counts[k_verdict_count] = {};
  for (const Entry* e : entries) ++counts[static_cast<std::size_t>(e->verdict)];
  std::vector<std::string> parts;
  for (Verdict v : k_all_verdicts) {
    if (counts[static_cast<std::size_t>(v)] > 0) {
      parts.push_back(std::to_string(counts[static_cast<std::size_t>(v)]) + " " + to_string(v));
    }
  }
  return std::to_string(entries.size()) + " entries (" + join(parts, ", ") + ")";
}

// "changes between -0.34% and +0.34%" of entries with a ratio; "" when none has one.
std::string change_range(const std::vector<const Entry*>& entries) {
  double lo = INFINITY, hi = -INFINITY;
  for (const Entry* e : entries) {
    if (!std::isfinite(e->ratio)) continue;
    lo = std::min(lo, e->ratio);
    hi = std::max(hi, e->ratio);
  }
  if (!std::isfinite(lo)) return "";
  return "changes between " + change_pct(lo) + " and " + change_pct(hi);
}

// Per suite, how many entries on each device: "gemm (35): gpu0 5, gpu1 5, ...".
std::vector<std::string> per_suite_devices(const std::vector<const Entry*>& entries) {
  std::map<std::string,
           std::map<std::string, std::size_t, bool (*)(const std::string&, const std::string&)>>
      by_suite;
  for (const Entry* e : entries) {
    auto it = by_suite.try_emplace(e->key.suite, svg::natural_less).first;
    ++it->second[e->key.device];
  }
  std::vector<std::string> out;
  for (const auto& [suite, devices] : by_suite) {
    std::size_t total = 0;
    std::vector<std::string> parts;
    for (const auto& [device, n] : devices) {
      total += n;
      parts.push_back(device + " " + std::to_string(n));
    }
    out.push_back(suite + " (" + std::to_string(total) + "): " + join(parts, ", "));
  }
  return out;
}

// Entries as a table, one row each; with `why`, each row's why on its own indented line under it
// (issue 39: a wrapped why column was a strip of 7-11 lines a row).
void print_entries(std::ostream& out, const std::vector<const Entry*>& entries,
                   const ShortNames& names, const Comparison& cmp, bool colour, bool why,
                   bool why_once = true) {
  if (entries.empty()) return;
  const bool metric_column = shared_metric(entries).empty();
  std::vector<std::string> header = {"benchmark", "metric", "device",       "base", "candidate",
                                     "unit",      "change", "99% interval", "n",    "verdict"};
  if (!metric_column) header.erase(header.begin() + 1);
  // Below 100 columns the sample counts go (they are in --format json and csv), so the interval
  // keeps its numbers whole.
  const bool n_column = output_width() == 0 || output_width() >= 100;
  if (!n_column) header.erase(header.end() - 2);
  std::vector<std::vector<std::string>> rows = {header};
  for (const Entry* e : entries) {
    std::vector<std::string> row = {
        names.name.at(e->key.benchmark),
        e->key.metric,
        device_cell(*e),
        format_value(e->base.median),
        format_value(e->candidate.median),
        e->unit,
        change_pct(e->ratio),
        interval(*e),
        std::to_string(e->base.n) + "/" + std::to_string(e->candidate.n),
        to_string(e->verdict)};
    if (!metric_column) row.erase(row.begin() + 1);
    if (!n_column) row.erase(row.end() - 2);
    rows.push_back(std::move(row));
  }
  // With `why_once`, a why the undecided or unchanged rows below repeat word for word (50
  // nccl-tests sizes "too few samples") is said once, under the first of them, with how many rows
  // it also holds for; failing entries keep theirs under each row.
  std::vector<std::string> whys;
  if (why) {
    for (const Entry* e : entries) whys.push_back(plain_why(*e, cmp.options.confidence));
  }
  std::vector<std::size_t> line_rows;
  const std::vector<std::string> lines = fit_table(rows, output_width(), "  ", &line_rows);
  for (std::size_t l = 0; l < lines.size(); ++l) {
    const std::size_t r = line_rows[l];
    const Entry* e = r == 0 ? nullptr : entries[r - 1];
    const char* c = colour && e != nullptr && e->primary ? colour_of(e->verdict) : "";
    out << c << lines[l] << (*c != '\0' ? "\033[0m" : "") << '\n';
    const bool last_line_of_row = l + 1 == lines.size() || line_rows[l + 1] != r;
    if (!why || e == nullptr || !last_line_of_row) continue;
    const std::size_t i = r - 1;
    // Only undecided and unchanged rows share a why: a change or a missing series keeps its own.
    const auto shared = [&](std::size_t a, std::size_t b) {
      const auto quiet = [](const Entry* x) {
        return x->verdict == Verdict::unchanged || x->verdict == Verdict::inconclusive;
      };
      return why_once && quiet(entries[a]) && quiet(entries[b]) && whys[a] == whys[b];
    };
    if (i > 0 && shared(i, i - 1)) continue;
    std::size_t same = 0;
    while (i + same + 1 < whys.size() && shared(i + same + 1, i)) ++same;
    out << "      " << whys[i];
    if (same > 0) out << " (so for the " << same << (same == 1 ? " row" : " rows") << " below)";
    out << '\n';
  }
}

// "(TFLOP_per_s)" after a section's title when every row has that metric.
std::string metric_note(const std::vector<const Entry*>& entries) {
  const std::string m = shared_metric(entries);
  return m.empty() ? "" : ", " + m;
}

}  // namespace

void render_text(const Comparison& cmp, std::ostream& out, bool colour, Detail detail) {
  const bool all = detail == Detail::all;
  out << verdict_headline(cmp) << '\n';  // the first line says it all (issue 26)
  for (const std::string& p : cmp.problems) out << "PROBLEM " << p << '\n';
  // "run 2 (35ea5482)" where the selection was that run's id; else the selection and its runs.
  const auto side = [](const std::string& selection, const std::vector<RunHeader>& runs) {
    const std::string ref = runs_ref(runs);
    if (runs.size() == 1 && selection == std::to_string(runs.front().id)) return ref;
    return selection + " (" + ref + ")";
  };
  out << "base:      " << side(cmp.base_selection, cmp.base_headers) << '\n';
  out << "candidate: " << side(cmp.candidate_selection, cmp.candidate_headers) << '\n';
  if (!cmp.gpu_pairing.empty()) out << "GPUs:      " << cmp.gpu_pairing << '\n';
  for (const std::string& a : annotation_lines(cmp)) out << "annotated: " << a << '\n';
  std::vector<std::string> all_names;
  for (const Entry& e : cmp.entries) all_names.push_back(e.key.benchmark);
  const ShortNames names = short_names(all_names, Shorten::when_width_limited);
  if (!names.pattern.empty()) out << "names:     " << names.pattern << " (* as in each row)\n";

  // Issue 39: what fails first, worst first, each with its why; then which GPUs it is on.
  const Sections s = sections_of(cmp);
  if (!s.failing.empty()) {
    out << '\n' << failing_title(cmp, s.failing.size()) << metric_note(s.failing) << ":\n";
    print_entries(out, s.failing, names, cmp, colour, true, false);
  }
  if (const std::string gpus = gpu_verdicts(cmp); !gpus.empty()) {
    out << (s.failing.empty() ? "\n" : "") << "per GPU: " << gpus << '\n';
  }
  if (!s.changes.empty()) {
    out << "\nother changes and undecided (" << s.changes.size() << ", not failing"
        << metric_note(s.changes) << "):\n";
    print_entries(out, s.changes, names, cmp, colour, true);
  }

  out << "\nenvironment differences:";
  if (cmp.env_differences.empty()) out << " none";
  out << '\n';
  std::vector<std::vector<std::string>> env;
  for (const auto& d : cmp.env_differences) env.push_back({d.field, d.base + " -> " + d.candidate});
  print_table(out, env);
  out << "verdicts: " << counts_line(cmp) << '\n';

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
  for (const auto& suite : cmp.suites) suites.push_back(suite_cells(suite));
  print_table(out, suites);
  if (narrow) {
    out << "  (n compared; regr regression, impr improvement, unch unchanged, inconcl "
           "inconclusive, chg changed, inv invalid, miss missing; --wide: whole words)\n";
  }
  out << "  (primary metrics only: one verdict per benchmark; secondary metrics are not "
         "counted)\n";

  if (!s.unchanged.empty()) {
    const std::string range = change_range(s.unchanged);
    if (all || s.unchanged.size() <= k_unchanged_rows) {
      out << "\nunchanged (" << s.unchanged.size() << metric_note(s.unchanged) << "):\n";
      print_entries(out, s.unchanged, names, cmp, colour, all);
    } else {
      out << '\n'
          << s.unchanged.size() << " unchanged" << (range.empty() ? "" : ", " + range)
          << " (--all lists them):\n";
      for (const std::string& line : per_suite_devices(s.unchanged)) out << "  " << line << '\n';
    }
  }
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
  if (!s.secondary.empty()) {
    if (all) {
      out << "\nsecondary metrics (" << s.secondary.size()
          << ", shown, not counted; worst first):\n";
      print_entries(out, s.secondary, names, cmp, colour, true);
    } else {
      out << "\nsecondary metrics: " << secondary_counts(s.secondary)
          << ", not counted (--all lists them)\n";
    }
  }
  if (all) {
    list("skipped", cmp.skipped);
  } else if (!cmp.skipped.empty()) {
    std::vector<std::string> reasons;
    for (const Unmatched& u : cmp.skipped) reasons.push_back(u.reason);
    out << "\nskipped (" << cmp.skipped.size() << ", --all lists them):\n";
    for (const std::string& line : grouped_reasons(reasons, "cases")) out << "  " << line << '\n';
  }
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

// Added and removed in full; skipped in full with --all, else one line per reason.
void write_md_unmatched(const Comparison& cmp, std::ostream& out, Detail detail = Detail::all) {
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
  if (detail == Detail::all) {
    list("Skipped", cmp.skipped);
  } else if (!cmp.skipped.empty()) {
    std::vector<std::string> reasons;
    for (const Unmatched& u : cmp.skipped) reasons.push_back(u.reason);
    out << "\n### Skipped (" << cmp.skipped.size() << ", --all lists them)\n\n";
    for (const std::string& line : grouped_reasons(reasons, "cases")) {
      out << "- " << markdown_escape(line) << '\n';
    }
  }
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

namespace {

// Markdown rows of `entries` under their short names; the why a column (a browser wraps it).
void write_md_entries(const std::vector<const Entry*>& entries, const ShortNames& names,
                      double confidence, std::ostream& out) {
  const bool metric_column = shared_metric(entries).empty();
  out << "| benchmark |" << (metric_column ? " metric |" : "")
      << " device | base | candidate | change | 99% interval | verdict | why |\n|---|"
      << (metric_column ? "---|" : "") << "---|---:|---:|---:|---|---|---|\n";
  for (const Entry* e : entries) {
    out << "| " << markdown_escape(names.name.at(e->key.benchmark)) << " | ";
    if (metric_column) out << markdown_escape(e->key.metric) << " | ";
    out << e->key.device << " | " << format_value(e->base.median) << ' ' << markdown_escape(e->unit)
        << " | " << format_value(e->candidate.median) << ' ' << markdown_escape(e->unit) << " | "
        << change_pct(e->ratio) << " | " << interval(*e) << " | "
        << (e->verdict == Verdict::regression && e->primary ? "**regression**"
                                                            : to_string(e->verdict))
        << " | " << markdown_escape(plain_why(*e, confidence)) << " |\n";
  }
}

}  // namespace

void render_markdown(const Comparison& cmp, std::ostream& out, const std::string& unchanged_csv,
                     Detail detail) {
  if (is_large_report(cmp.entries.size())) {
    render_markdown_large(cmp, out, unchanged_csv);
    return;
  }
  const bool all = detail == Detail::all;
  write_md_head(cmp, out);
  std::vector<std::string> all_names;
  for (const Entry& e : cmp.entries) all_names.push_back(e.key.benchmark);
  // Markdown has no width, but a PR comment is read on a page: names as short as in text.
  const ShortNames names = short_names(all_names, Shorten::always);
  if (!names.pattern.empty()) {
    out << "Benchmark names leave out what they all share: " << markdown_escape(names.pattern)
        << " (\\* as in each row).\n\n";
  }
  // Issue 39: what fails first, worst first; then which GPUs; then the rest.
  const Sections s = sections_of(cmp);
  if (!s.failing.empty()) {
    std::string title = failing_title(cmp, s.failing.size()) + metric_note(s.failing);
    title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
    out << "### " << markdown_escape(title) << "\n\n";
    write_md_entries(s.failing, names, cmp.options.confidence, out);
    out << '\n';
  }
  if (const std::string gpus = gpu_verdicts(cmp); !gpus.empty()) {
    out << "**Per GPU:** " << markdown_escape(gpus) << "\n\n";
  }
  if (!s.changes.empty()) {
    out << "### Other changes and undecided (" << s.changes.size() << ", not failing"
        << markdown_escape(metric_note(s.changes)) << ")\n\n";
    write_md_entries(s.changes, names, cmp.options.confidence, out);
    out << '\n';
  }
  write_md_summary(cmp, out);
  if (!s.unchanged.empty()) {
    out << "\n### Unchanged (" << s.unchanged.size() << markdown_escape(metric_note(s.unchanged))
        << ")\n\n";
    if (all || s.unchanged.size() <= k_unchanged_rows) {
      write_md_entries(s.unchanged, names, cmp.options.confidence, out);
    } else {
      const std::string range = change_range(s.unchanged);
      out << s.unchanged.size() << " unchanged" << (range.empty() ? "" : ", " + range)
          << " (--all lists them):\n\n";
      for (const std::string& line : per_suite_devices(s.unchanged)) {
        out << "- " << markdown_escape(line) << '\n';
      }
    }
  }
  if (!s.secondary.empty()) {
    if (all) {
      out << "\n### Secondary metrics (" << s.secondary.size() << ", shown, not counted)\n\n";
      write_md_entries(s.secondary, names, cmp.options.confidence, out);
    } else {
      out << "\nSecondary metrics: " << markdown_escape(secondary_counts(s.secondary))
          << ", not counted (--all lists them).\n";
    }
  }
  write_md_unmatched(cmp, out, detail);
}

}  // namespace gpubench::compare
