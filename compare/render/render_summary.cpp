// The verdict line and the runs table that head a comparison's Markdown (CI job summaries) and
// text (issue 26): PASS / FAIL with what failed under --fail-on, then which runs were compared,
// when, where and with which gpubench.
#include <algorithm>
#include <cmath>
#include <limits>
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

std::string run_ref(int64_t id, const std::string& uuid) {
  // 8 characters, as `runs` lists them: unique among thousands of random UUIDs.
  return uuid.empty() ? std::to_string(id) : std::to_string(id) + " (" + uuid.substr(0, 8) + ")";
}

std::string runs_ref(const std::vector<RunHeader>& runs) {
  std::vector<std::string> parts;
  for (const RunHeader& r : runs) parts.push_back(run_ref(r.id, r.uuid));
  return (runs.size() == 1 ? "run " : "runs ") + join(parts, ", ");
}

std::map<std::string, std::string> short_uuids(const std::vector<std::string>& uuids) {
  std::map<std::string, std::string> out;
  for (const std::string& u : uuids) {
    // "GPU-" and 8 hex digits at least; longer while another UUID shares the prefix.
    std::size_t length = std::min<std::size_t>(u.size(), 12);
    for (const std::string& other : uuids) {
      if (other == u) continue;
      std::size_t common = 0;
      while (common < u.size() && common < other.size() && u[common] == other[common]) ++common;
      length = std::max(length, std::min(u.size(), common + 1));
    }
    out[u] = u.substr(0, length);
  }
  return out;
}

namespace {

// "5 regressions", "1 regression", "2 missing".
std::string verdict_count(std::size_t n, Verdict v) {
  const bool plural = n != 1 && (v == Verdict::regression || v == Verdict::improvement);
  return std::to_string(n) + " " + to_string(v) + (plural ? "s" : "");
}

}  // namespace

std::string gpu_verdicts(const Comparison& cmp) {
  const bool gated = cmp.options.fail_on != FailOn::never;
  const FailOn judge = gated ? cmp.options.fail_on : FailOn::regression;
  struct Gpu {
    std::string uuid;
    std::size_t counts[k_verdict_count] = {};
    std::size_t failing = 0;
  };
  std::map<std::string, Gpu> gpus;  // by device label
  for (const Entry& e : cmp.entries) {
    if (!e.primary || e.key.device.empty() || e.key.device == "host") continue;
    Gpu& g = gpus[e.key.device];
    if (g.uuid.empty())
      g.uuid = e.candidate.gpu_uuid.empty() ? e.base.gpu_uuid : e.candidate.gpu_uuid;
    if (entry_fails(e, judge)) {
      ++g.failing;
      ++g.counts[static_cast<std::size_t>(e.verdict)];
    }
  }
  if (gpus.empty()) return "";
  std::vector<std::string> uuids;
  for (const auto& [device, g] : gpus) {
    if (!g.uuid.empty() && g.uuid != results::k_unknown) uuids.push_back(g.uuid);
  }
  const std::map<std::string, std::string> short_uuid = short_uuids(uuids);
  std::vector<std::pair<std::string, const Gpu*>> failing;
  std::size_t passing = 0;
  for (const auto& [device, g] : gpus) {
    if (g.failing == 0) {
      ++passing;
    } else {
      failing.emplace_back(device, &g);
    }
  }
  std::stable_sort(failing.begin(), failing.end(), [](const auto& a, const auto& b) {
    if (a.second->failing != b.second->failing) return a.second->failing > b.second->failing;
    return svg::natural_less(a.first, b.first);
  });
  std::vector<std::string> parts;
  for (const auto& [device, g] : failing) {
    std::vector<std::string> why;
    for (Verdict v : k_all_verdicts) {
      if (g->counts[static_cast<std::size_t>(v)] > 0) {
        why.push_back(verdict_count(g->counts[static_cast<std::size_t>(v)], v));
      }
    }
    const auto it = short_uuid.find(g->uuid);
    parts.push_back(device + (it == short_uuid.end() ? std::string() : " " + it->second) + ": " +
                    (gated ? "FAIL" : "would FAIL") + " (" + join(why, ", ") + ")");
  }
  if (passing > 0) {
    parts.push_back(std::to_string(passing) + (passing == 1 ? " GPU PASS" : " GPUs PASS"));
  }
  return join(parts, "; ");
}

std::vector<const Entry*> by_severity(std::vector<const Entry*> entries) {
  const auto rank = [](Verdict v) {
    switch (v) {
      case Verdict::regression:
        return 0;
      case Verdict::missing:
        return 1;
      case Verdict::invalid:
        return 2;
      case Verdict::changed:
        return 3;
      case Verdict::inconclusive:
        return 4;
      case Verdict::improvement:
        return 5;
      case Verdict::unchanged:
        return 6;
    }
    return 6;
  };
  // Smaller is worse: the log speed-up; a change of unknown direction by its size; improvements
  // largest first; unknown figures last.
  const auto key = [](const Entry* e) {
    const std::optional<double> s = e->speedup();
    double k = std::numeric_limits<double>::infinity();
    if (s && std::isfinite(*s) && *s > 0) {
      k = std::log(*s);
    } else if (std::isfinite(e->ratio) && e->ratio > 0) {
      k = -std::fabs(std::log(e->ratio));
    }
    if (e->verdict == Verdict::improvement && std::isfinite(k)) k = -k;
    return k;
  };
  std::stable_sort(entries.begin(), entries.end(), [&](const Entry* a, const Entry* b) {
    if (rank(a->verdict) != rank(b->verdict)) return rank(a->verdict) < rank(b->verdict);
    return key(a) < key(b);
  });
  return entries;
}

std::vector<std::string> grouped_reasons(const std::vector<std::string>& reasons,
                                         const std::string& what) {
  std::map<std::string, std::size_t> count;
  for (const std::string& r : reasons) ++count[r];
  std::vector<std::pair<std::string, std::size_t>> sorted(count.begin(), count.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> out;
  for (const auto& [reason, n] : sorted) {
    out.push_back(std::to_string(n) + " " + what + ": " +
                  (reason.empty() ? "no reason given" : reason));
  }
  return out;
}

void write_md_runs(const Comparison& cmp, std::ostream& out) {
  using Get = std::string (*)(const RunHeader&);
  const std::vector<std::pair<const char*, Get>> rows = {
      {"runs", [](const RunHeader& r) { return run_ref(r.id, r.uuid); }},
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

std::string RunTally::line(int64_t run_id, const std::vector<results::SuiteRunInfo>& suite_runs,
                           const std::string& run_uuid) const {
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
  return "run " + run_ref(run_id, run_uuid) + ": " + std::to_string(suites) + " suite" +
         (suites == 1 ? "" : "s") + executions +
         (suites_failed == 0 ? std::string() : " (" + std::to_string(suites_failed) + " failed)") +
         ", " + std::to_string(m_state.size()) + " benchmark" + (m_state.size() == 1 ? "" : "s") +
         ": " + std::to_string(counts[2]) + " measured, " + skipped + ", " +
         std::to_string(counts[1]) + " failed";
}

}  // namespace gpubench::compare
