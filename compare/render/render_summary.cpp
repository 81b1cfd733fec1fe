// The verdict line and the runs table that head a comparison's Markdown (CI job summaries) and
// text (issue 26): PASS / FAIL with what failed under --fail-on, then which runs were compared,
// when, where and with which gpubench.
#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "compare/render/render.hpp"
#include "compare/render/svg.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::compare {

namespace {

// "1 regression, 3 unchanged": the verdicts that occur, in k_all_verdicts order.
std::string nonzero_counts(const Comparison& cmp) {
  std::vector<std::string> parts;
  for (Verdict v : k_all_verdicts) {
    if (cmp.count(v) > 0) parts.push_back(std::to_string(cmp.count(v)) + " " + to_string(v));
  }
  return parts.empty() ? std::string("nothing compared") : join(parts, ", ");
}

std::string column(const std::vector<RunHeader>& runs, std::string (*get)(const RunHeader&)) {
  std::vector<std::string> values;
  for (const RunHeader& r : runs) {
    std::string v = get(r);
    bool seen = false;
    for (const std::string& x : values) seen = seen || x == v;
    if (!seen) values.push_back(v);
  }
  return values.empty() ? std::string("—") : join(values, ", ");
}

}  // namespace

std::string verdict_headline(const Comparison& cmp) {
  const std::size_t failing = cmp.failing(cmp.options.fail_on);
  // Removed benchmarks fail (Comparison::failing): counted here, not only listed at the end.
  const std::size_t removed = cmp.removed_benchmarks();
  const std::string counts =
      nonzero_counts(cmp) + " of " + std::to_string(cmp.compared()) + " compared" +
      (removed == 0
           ? std::string()
           : "; " + std::to_string(removed) + " removed: in the base, not in the candidate");
  if (failing > 0) {
    return "FAIL: " + std::to_string(failing) + " failing under --fail-on " +
           to_string(cmp.options.fail_on) + " (" + counts + ")";
  }
  if (cmp.options.fail_on == FailOn::never && cmp.failing(FailOn::regression) > 0) {
    // Not a pass: nothing was allowed to fail.
    return "NOT GATED (--fail-on never): " + std::to_string(cmp.failing(FailOn::regression)) +
           " would fail under --fail-on regression (" + counts + ")";
  }
  return "PASS: none failing under --fail-on " + std::string(to_string(cmp.options.fail_on)) +
         " (" + counts + ")";
}

void write_md_runs(const Comparison& cmp, std::ostream& out) {
  using Get = std::string (*)(const RunHeader&);
  const std::vector<std::pair<const char*, Get>> rows = {
      {"runs", [](const RunHeader& r) { return std::to_string(r.id); }},
      {"started (UTC)", [](const RunHeader& r) { return r.started_at; }},
      {"host", [](const RunHeader& r) { return r.host; }},
      {"gpubench git sha", [](const RunHeader& r) { return r.git_sha.substr(0, 12); }},
  };
  out << "| | base | candidate |\n|---|---|---|\n";
  // A side's annotations as "<run>: <text>; ...", empty when it has none.
  const auto notes = [](const std::vector<RunHeader>& runs) {
    std::vector<std::string> lines;
    for (const RunHeader& r : runs) {
      for (const std::string& a : r.annotations) lines.push_back(std::to_string(r.id) + ": " + a);
    }
    return join(lines, "; ");
  };
  out << "| selection | " << markdown_escape(cmp.base_selection) << " | "
      << markdown_escape(cmp.candidate_selection) << " |\n";
  for (const auto& [name, get] : rows) {
    out << "| " << name << " | " << markdown_escape(column(cmp.base_headers, get)) << " | "
        << markdown_escape(column(cmp.candidate_headers, get)) << " |\n";
  }
  const std::string base_notes = notes(cmp.base_headers);
  const std::string candidate_notes = notes(cmp.candidate_headers);
  if (!base_notes.empty() || !candidate_notes.empty()) {
    out << "| annotations | " << (base_notes.empty() ? "—" : markdown_escape(base_notes)) << " | "
        << (candidate_notes.empty() ? "—" : markdown_escape(candidate_notes)) << " |\n";
  }
  out << '\n';
}

std::vector<std::string> annotation_lines(const Comparison& cmp) {
  std::vector<std::string> out;
  for (const auto& [side, runs] :
       {std::pair{"base", &cmp.base_headers}, std::pair{"candidate", &cmp.candidate_headers}}) {
    for (const RunHeader& r : *runs) {
      for (const std::string& a : r.annotations) {
        out.push_back(std::string(side) + " run " + std::to_string(r.id) + ": " + a);
      }
    }
  }
  return out;
}

std::map<std::string, std::string> text_names(const std::vector<std::string>& names) {
  std::vector<std::string> unique;
  std::map<std::string, std::string> out;
  for (const std::string& n : names) {
    if (out.emplace(n, n).second) unique.push_back(n);
  }
  if (output_width() == 0 || unique.empty()) return out;  // --wide: every name in full
  const std::vector<std::string> labels = svg::compact_labels(unique, {});
  for (std::size_t i = 0; i < unique.size(); ++i) out[unique[i]] = labels[i];
  return out;
}

std::string text_name(const std::string& name) {
  if (output_width() == 0) return name;
  return svg::compact_labels({name}, {}).front();
}

void RunTally::add(const std::string& benchmark, results::BenchmarkStatus status,
                   const std::string& message) {
  const int state = status == results::BenchmarkStatus::ok      ? 2
                    : status == results::BenchmarkStatus::error ? 1
                                                                : 0;
  auto [it, inserted] = m_state.emplace(benchmark, state);
  if (!inserted) it->second = std::max(it->second, state);
  if (status == results::BenchmarkStatus::skipped) {
    m_skip_reason.emplace(benchmark,
                          message.rfind("skipped: ", 0) == 0 ? message.substr(9) : message);
  }
}

std::string RunTally::line(int64_t run_id,
                           const std::vector<results::SuiteRunInfo>& suite_runs) const {
  // Suites, not suite runs: a run measures each suite in several executions (issue 35), each its
  // own suite run; a suite failed when any of its executions did.
  std::map<std::string, std::pair<std::size_t, bool>> by_suite;  // executions, any failed
  for (const results::SuiteRunInfo& s : suite_runs) {
    auto& [count, failed] = by_suite[s.suite];
    ++count;
    failed = failed ||
             (s.status != results::SuiteStatus::ok && s.status != results::SuiteStatus::skipped);
  }
  const std::size_t suites = by_suite.size();
  std::size_t suites_failed = 0, fewest = 0, most = 0;
  for (const auto& [suite, e] : by_suite) {
    suites_failed += e.second ? 1 : 0;
    fewest = fewest == 0 ? e.first : std::min(fewest, e.first);
    most = std::max(most, e.first);
  }
  // " × 3 executions", or " × 2-3 executions" when an execution of some suite is missing.
  const std::string executions =
      most <= 1 ? std::string()
                : " × " + (fewest == most ? std::string() : std::to_string(fewest) + "-") +
                      std::to_string(most) + " executions";
  std::size_t counts[3] = {};
  std::map<std::string, std::size_t> reasons;
  for (const auto& [benchmark, state] : m_state) {
    ++counts[state];
    if (state == 0) {
      const auto it = m_skip_reason.find(benchmark);
      ++reasons[it == m_skip_reason.end() ? std::string() : it->second];
    }
  }
  std::string skipped = std::to_string(counts[0]) + " skipped";
  if (!reasons.empty()) {
    const auto top =
        std::max_element(reasons.begin(), reasons.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    skipped += " (" +
               (top->second == counts[0] ? std::string() : std::to_string(top->second) + " ") +
               (top->first.empty() ? std::string("no reason given") : top->first) + ")";
  }
  return "run " + std::to_string(run_id) + ": " + std::to_string(suites) + " suite" +
         (suites == 1 ? "" : "s") + executions +
         (suites_failed == 0 ? std::string() : " (" + std::to_string(suites_failed) + " failed)") +
         ", " + std::to_string(m_state.size()) + " benchmark" + (m_state.size() == 1 ? "" : "s") +
         ": " + std::to_string(counts[2]) + " measured, " + skipped + ", " +
         std::to_string(counts[1]) + " failed";
}

}  // namespace gpubench::compare
