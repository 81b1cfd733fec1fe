// Series noise from the store's history: how much per-run medians of a series differ between
// runs of identical work. The noise margin of a comparison must cover this run-to-run noise, which
// repetitions inside one run understate (DESIGN.md "Statistics": delta = max(threshold,
// 3 x the series' CV)).
//
// A series is benchmark + metric + device on one hardware class and configuration. The history of
// a comparison is, per suite, the newest `window` complete runs that
//   - have the same host CPU model, GPU model list (in device order) and configuration (profile,
//     recorded environment variables, clock locking) as one of the base side's runs,
//   - contain an `ok` run of that suite,
//   - started no later than the newest run of either side (so a comparison gives the same answer
//     when repeated later), and
//   - are not candidate runs (a real change must not widen its own margin).
// The base side's own runs count. A series needs per-run medians from >= k_min_history_runs runs,
// else it gets no entry and compare falls back to the within-run CV.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "compare/compare.hpp"
#include "results/store.hpp"

namespace gpubench::compare {

constexpr int k_default_history_window = 10;  // runs per suite
// Fewest runs for a series CV. Not 3: the MAD of 3 run medians is the smaller gap between them,
// so its spread is huge; measured in the e2e setup (3 runs of a drifting shared machine) it set a
// 14% margin that called a 10% change "unchanged". 5 runs give a usable MAD.
constexpr std::size_t k_min_history_runs = 5;

// Two queries for the runs plus two for the samples, whatever the number of series. Per-run
// medians are Google Benchmark's `median` aggregates where the suite run recorded them, else the
// median of the run's unthrottled repetitions. `window` 0 returns an empty map. `metric`: as
// Options::metric (only that metric; default all but cpu_time).
HistoryNoise load_history_noise(results::Store& store, const Side& base, const Side& candidate,
                                int window = k_default_history_window,
                                const std::optional<std::string>& metric = std::nullopt);

}  // namespace gpubench::compare
