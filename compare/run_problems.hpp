// What is wrong with a run as a whole, in words every output shares (PROBLEM lines of show and
// report, problems of compare and accept).
#pragma once

#include <string>
#include <vector>

#include "results/store.hpp"

namespace gpubench::compare {

// What is wrong with a run as a whole: its status when not complete, and each suite that did not
// finish ok ("suite memory crashed: signal 11"). Empty for a complete run. Shared by report,
// show, compare and accept.
std::vector<std::string> run_problems(const results::RunDetail& run);

}  // namespace gpubench::compare
