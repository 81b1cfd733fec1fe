// What is wrong with a run as a whole (compare/run_problems.hpp).
#include "compare/run_problems.hpp"

#include <map>
#include <set>

#include "util/strings.hpp"

namespace gpubench::compare {

std::vector<std::string> run_problems(const results::RunDetail& run) {
  std::vector<std::string> out;
  const std::string id = "run " + std::to_string(run.run.id);
  switch (run.run.status) {
    case results::RunStatus::complete:
      break;
    case results::RunStatus::running:
      out.push_back(id + " is still running: its results may be incomplete");
      break;
    case results::RunStatus::abandoned:
      out.push_back(id + " was abandoned (its gpubench died): finished suites are kept, the rest "
                         "never ran");
      break;
    case results::RunStatus::interrupted:
      out.push_back(id + " was interrupted: its results are incomplete");
      break;
    case results::RunStatus::failed:
      out.push_back(id + " failed");
      break;
    case results::RunStatus::incomplete: {
      // The reason is the shortfall line "incomplete: expected 8 GPUs, found 7 (...)".
      std::string reason = run.run.status_reason;
      if (reason.rfind("incomplete: ", 0) == 0) reason.erase(0, 12);
      out.push_back(id + " is incomplete: " +
                    (reason.empty() ? std::string("it missed its expected hardware") : reason));
      break;
    }
  }
  // A run measures each suite in several executions (issue 35), each its own suite run: a failed
  // one is named by its place among its suite's suite runs, in id order.
  const bool have_ids = run.suite_run_ids.size() == run.suites.size();
  auto order = [&](std::size_t i) {
    return have_ids ? run.suite_run_ids[i] : static_cast<int64_t>(i);
  };
  for (std::size_t i = 0; i < run.suites.size(); ++i) {
    const results::SuiteRunInfo& s = run.suites[i];
    if (s.status == results::SuiteStatus::ok || s.status == results::SuiteStatus::skipped) continue;
    std::size_t execution = 1, executions = 0;
    for (std::size_t j = 0; j < run.suites.size(); ++j) {
      if (run.suites[j].suite != s.suite) continue;
      ++executions;
      if (order(j) < order(i)) ++execution;
    }
    std::string what = id + ": suite " + s.suite;
    if (executions > 1) {
      what += " execution " + std::to_string(execution) + " of " + std::to_string(executions);
    }
    what += std::string(" ") + results::to_string(s.status);
    if (s.term_signal) what += " (signal " + std::to_string(*s.term_signal) + ")";
    if (!s.term_signal && s.exit_code) what += " (exit " + std::to_string(*s.exit_code) + ")";
    std::string reason(trim(s.reason));
    if (reason.empty()) {
      std::string tail(trim(s.stderr_tail));
      if (std::size_t nl = tail.rfind('\n'); nl != std::string::npos) tail = tail.substr(nl + 1);
      reason = tail;
    }
    if (!reason.empty()) what += ": " + reason;
    out.push_back(what);
  }
  return out;
}

std::vector<std::string> missing_suite_problems(const Comparison& cmp) {
  std::set<std::string> candidate_suites;
  for (const Entry& e : cmp.entries) candidate_suites.insert(e.key.suite);
  for (const Unmatched& u : cmp.skipped) candidate_suites.insert(u.key.suite);
  for (const Unmatched& u : cmp.added) candidate_suites.insert(u.key.suite);
  std::map<std::string, std::set<std::string>> lacking;  // suite -> its benchmarks
  for (const Unmatched& u : cmp.removed) {
    if (!candidate_suites.count(u.key.suite)) lacking[u.key.suite].insert(u.key.benchmark);
  }
  std::vector<std::string> out;
  for (const auto& [suite, benchmarks] : lacking) {
    out.push_back("candidate lacks suite " + suite + " of the base: its " +
                  std::to_string(benchmarks.size()) +
                  " benchmark(s) are only in base, so the verdicts say nothing of it");
  }
  return out;
}

}  // namespace gpubench::compare
