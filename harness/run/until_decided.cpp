#include "harness/run/until_decided.hpp"

#include <algorithm>
#include <ostream>
#include <set>

#include "compare/gpu_pairing.hpp"
#include "compare/render/render.hpp"
#include "compare/run_noise.hpp"
#include "compare/selection.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {
namespace {

std::string regex_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// The candidate side: every run of this invocation, pooled per series by compare_sides.
compare::Side candidate_side(results::Store& store, const std::vector<int64_t>& runs) {
  compare::Side side;
  side.selection = "runs";
  for (int64_t id : runs) {
    side.selection += (id == runs.front() ? " " : ",") + std::to_string(id);
    compare::Side one = compare::load_side(store, std::to_string(id));
    side.runs.insert(side.runs.end(), one.runs.begin(), one.runs.end());
    side.results.insert(side.results.end(), one.results.begin(), one.results.end());
  }
  return side;
}

compare::Comparison compare_now(results::Store& store, const compare::Side& base,
                                const std::vector<int64_t>& runs,
                                const UntilDecidedOptions& options) {
  compare::Side cand = candidate_side(store, runs);
  compare::Options o;
  o.fail_on = options.fail_on;
  o.history_window = options.history_window;
  o.last = options.base_last;
  compare::HistoryNoise history =
      compare::load_history_noise(store, base, cand, options.history_window);
  o.history = &history;
  compare::Comparison cmp = compare::compare_sides(base, cand, o);
  cmp.options.history = nullptr;  // not owned past this call
  return cmp;
}

}  // namespace

void check_until_decided(results::Store& store, const UntilDecidedOptions& options) {
  if (options.max_extra_runs < 0) {
    throw bad_input("invalid --max-extra-runs " + std::to_string(options.max_extra_runs),
                    "it must be 0 or more", "give the most reruns to spend, e.g. 3");
  }
  if (options.base_last < 1) {
    throw bad_input("invalid --base-last " + std::to_string(options.base_last),
                    "it must be 1 or more", "give how many BASE runs to pool");
  }
  compare::resolve_selection(store, options.base, options.base_last);  // throws when unknown
}

std::string benchmark_filter_for(const std::vector<std::string>& names) {
  std::vector<std::string> escaped;
  for (const std::string& n : names) escaped.push_back(regex_escape(n));
  return "^(" + join(escaped, "|") + ")(/.*)?$";
}

std::vector<std::string> what_limits(const compare::Comparison& cmp,
                                     const UntilDecidedOptions& options) {
  std::size_t inconclusive = 0, base_bound = 0, one_execution = 0, beyond = 0;
  std::size_t base_n = 0, base_runs = 0, cand_n = 0, most_needed = 0;
  for (const compare::Entry& e : cmp.entries) {
    if (!e.primary || e.verdict != compare::Verdict::inconclusive) continue;
    ++inconclusive;
    // The interval's variance is the base's part plus the candidate's: once the candidate holds
    // twice the base's samples, more candidate runs shrink it little.
    if (e.base.n > 0 && e.base.n * 2 <= e.candidate.n) {
      ++base_bound;
      base_n = std::max(base_n, e.base.n);
      base_runs = std::max(base_runs, e.base.runs);
      cand_n = std::max(cand_n, e.candidate.n);
    }
    // The base measured one process a suite a run (stored before executions): its side of the
    // interval holds no run-to-run noise, which no candidate run can add.
    if (!e.base.per_run && e.base.executions > 0 && e.base.executions <= e.base.runs) {
      ++one_execution;
    }
    // More executions than a practical number (size_executions found none up to 100).
    if (e.by_execution && e.executions_needed == 0) ++beyond;
    most_needed = std::max(most_needed, e.executions_needed);
  }
  std::vector<std::string> lines;
  if (inconclusive == 0) return lines;
  if (base_bound > 0) {
    lines.push_back(
        "until-decided: " + std::to_string(base_bound) + " of " + std::to_string(inconclusive) +
        " inconclusive series are limited by the base: " + std::to_string(base_n) +
        " sample(s) from " + std::to_string(base_runs) + " run(s) against the candidate's " +
        std::to_string(cand_n) +
        "; more candidate runs cannot outweigh the base's own noise. Fix: measure the base again "
        "(tag its runs, e.g. --tag role=base) and give --until-decided tag:role=base --base-last "
        "3" +
        (options.base_last > 1 ? " or more (now " + std::to_string(options.base_last) + ")" : ""));
  }
  if (one_execution > 0) {
    lines.push_back("until-decided: " + std::to_string(one_execution) + " of " +
                    std::to_string(inconclusive) +
                    " inconclusive series have a base of one execution a suite a run (stored "
                    "before gpubench measured executions): the base's side holds no run-to-run "
                    "noise. Fix: run the base configuration again with this gpubench, then "
                    "compare");
  }
  if (beyond > 0) {
    lines.push_back("until-decided: " + std::to_string(beyond) + " of " +
                    std::to_string(inconclusive) +
                    " inconclusive series vary so much between executions that even 100 a side "
                    "would not bring the smallest detectable change under the threshold; raise "
                    "--threshold for them (a thresholds file) or find the noise ('gpubench show' "
                    "lists the noisy series)");
  } else if (most_needed > 0) {
    lines.push_back("until-decided: the noisiest inconclusive series need about " +
                    std::to_string(most_needed) +
                    " executions a side; give --max-extra-runs more than " +
                    std::to_string(options.max_extra_runs));
  }
  if (lines.empty()) {
    lines.push_back(
        "until-decided: the changes are close to the threshold; give "
        "--max-extra-runs more than " +
        std::to_string(options.max_extra_runs));
  }
  return lines;
}

UntilDecidedOutcome run_until_decided(results::Store& store, const RunOptions& run_options,
                                      const RunOutcome& first, const UntilDecidedOptions& options,
                                      std::ostream& out, std::ostream* progress) {
  UntilDecidedOutcome result;
  result.runs.push_back(first.run_id);
  compare::Side base = compare::load_side(store, options.base, options.base_last);
  compare::Comparison cmp = compare_now(store, base, result.runs, options);
  for (int extra = 0;; ++extra) {
    std::set<std::string> suites;
    std::set<std::string> names;
    for (const compare::Entry& e : cmp.entries) {
      if (e.verdict != compare::Verdict::inconclusive) continue;
      suites.insert(e.key.suite);
      // Paired by UUID (compare/gpu_pairing.hpp), the key holds the base's `device:N`; the rerun
      // selects the candidate's own number of the GPU.
      const bool renumbered = e.base.device_index && e.candidate.device_index &&
                              *e.base.device_index != *e.candidate.device_index;
      names.insert(renumbered
                       ? compare::with_device_index(e.key.benchmark, *e.candidate.device_index)
                       : e.key.benchmark);
    }
    out << "until-decided: round " << extra << " (candidate " << cmp.candidate_selection << " vs "
        << options.base << "): " << cmp.count(compare::Verdict::inconclusive) << " inconclusive of "
        << cmp.entries.size() << " series\n";
    if (names.empty()) {
      out << "until-decided: every series decided after " << extra << " extra run(s)\n";
      break;
    }
    if (extra >= options.max_extra_runs) {
      out << "until-decided: " << names.size() << " benchmark(s) still inconclusive after " << extra
          << " extra run(s) (the budget, --max-extra-runs " << options.max_extra_runs << ")\n";
      for (const std::string& line : what_limits(cmp, options)) out << line << '\n';
      break;
    }
    RunOptions again = run_options;
    // Executions, not repetitions: enough for the series that need the most (size_executions),
    // at least 2 and at most twice the run's own.
    std::size_t wanted = 0;
    for (const compare::Entry& e : cmp.entries) {
      if (e.verdict != compare::Verdict::inconclusive || e.executions_needed == 0) continue;
      if (e.executions_needed > e.candidate.executions) {
        wanted = std::max(wanted, e.executions_needed - e.candidate.executions);
      }
    }
    const int own = std::max(k_min_executions, run_options.suite_options.executions);
    again.suite_options.more_when_cheap = false;  // exactly the executions asked for
    again.suite_options.executions =
        wanted == 0 ? own
                    : static_cast<int>(std::clamp<std::size_t>(
                          wanted, static_cast<std::size_t>(k_min_executions),
                          static_cast<std::size_t>(2 * own)));
    again.suites.clear();
    for (const SuiteExecutable& s : run_options.suites) {
      if (suites.count(s.name)) again.suites.push_back(s);
    }
    again.suite_options.filter =
        benchmark_filter_for(std::vector<std::string>(names.begin(), names.end()));
    again.tags.emplace_back("until_decided", std::to_string(first.run_id));
    out << "until-decided: rerunning " << names.size() << " benchmark(s) of "
        << join(std::vector<std::string>(suites.begin(), suites.end()), ",") << " in "
        << again.suite_options.executions << " more executions\n"
        << std::flush;
    RunOutcome rerun = execute_run(store, again, progress);
    result.runs.push_back(rerun.run_id);
    if (rerun.status != results::RunStatus::complete) {
      out << "until-decided: extra run " << rerun.run_id << " ended "
          << results::to_string(rerun.status) << "; stopping\n";
      result.exit_code = rerun.interrupt_signal ? 128 + rerun.interrupt_signal
                                                : static_cast<int>(ExitCode::infrastructure);
      return result;
    }
    cmp = compare_now(store, base, result.runs, options);
  }
  out << '\n';
  compare::render_comparison(cmp, compare::Format::text, out, false);
  result.exit_code = cmp.exit_code(options.fail_on);
  return result;
}

}  // namespace gpubench::harness
