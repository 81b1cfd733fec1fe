// What is wrong with a run as a whole, in words every output shares (PROBLEM lines of show and
// report, problems of compare and accept).
#pragma once

#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "results/store.hpp"

namespace gpubench::compare {

// What is wrong with a run as a whole: its status when not complete, and each suite that did not
// finish ok ("suite memory crashed: signal 11"; "suite memory execution 2 of 3 crashed: ..." when
// the run measured the suite in several executions, issue 35). Empty for a complete run. Shared by
// report, show, compare and accept.
std::vector<std::string> run_problems(const results::RunDetail& run);

// Suites of the base the candidate has no benchmark of at all ("candidate lacks suite memory of
// the base: its 10 benchmark(s) are only in base"): a verdict over the suites both sides ran
// says nothing of the rest (a partial rerun compared as if it were the whole run).
std::vector<std::string> missing_suite_problems(const Comparison& cmp);

}  // namespace gpubench::compare
