// Run-to-run allowances (compare/README.md "Run-to-run allowance"): how far two runs of identical
// work on one machine may differ before a change means anything, per suite and per kind of series
// (host or GPU), for the series whose interval cannot know it yet.
//
// The interval of a series without history (fewer than k_min_history_runs runs of it) holds the
// noise between the repetitions of one run only. Two runs differ by more than that (clocks, page
// placement, scheduling, thermal state): two identical quick fusion runs on an idle machine were
// "31% worse, interval +-3%" (issue 23 item 21). Until history measures a series' run-to-run noise,
// a regression, improvement or change whose point lies inside its suite's allowance is
// inconclusive, with the allowance named in the reason. With history the interval holds the
// measured noise and the allowance no longer applies; nor does it to sides of >= 3 runs each,
// whose per-run medians carry the run-to-run noise in their own spread.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "compare/compare.hpp"

namespace gpubench::compare {

struct RunToRunAllowance {
  std::string_view suite;
  double host_fraction = 0;  // series measured on the CPU (device "host")
  double gpu_fraction = 0;   // series measured on a GPU (device "gpuN")
};

// The table, one row per suite (compare/README.md gives each number's reason).
std::span<const RunToRunAllowance> run_to_run_allowances();

// The allowance of a series (fraction), nullopt for a suite not in the table (no allowance).
std::optional<double> run_to_run_allowance(std::string_view suite, std::string_view device);

// Whether the entry's interval holds no run-to-run noise: fewer than k_min_history_runs runs of
// history and not both sides per-run medians.
bool lacks_run_to_run_noise(const Entry& e);

// "within fusion's run-to-run allowance of 10% (fewer than 3 runs of history: 1); ..." for an
// entry with held_by_allowance, "" otherwise: the reason's words, also for the text "why" column.
std::string allowance_clause(const Entry& e);

namespace detail {
// The hook in decide(): turns a regression, improvement or changed verdict whose point lies
// within the series' allowance into inconclusive, when lacks_run_to_run_noise(e). `figures` is
// the "+5.00% [+4.10%, +5.90%]" text of the verdict. Returns true when it did.
bool hold_within_run_to_run_allowance(Entry& e, const std::string& figures);
}  // namespace detail

}  // namespace gpubench::compare
