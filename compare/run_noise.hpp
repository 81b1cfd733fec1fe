// Series noise from the store's history: how much per-run medians of a series differ between
// runs of identical work. compare adds this run-to-run variance to the standard error of each side
// whose samples are repetitions of one or two runs (DESIGN.md "Statistics": noise goes into the
// interval, never into the threshold), with runs - 1 degrees of freedom.
//
// A series is benchmark + metric + device on one hardware class and configuration. The history of
// a comparison is drawn from the base side only: per suite, the newest `window` complete runs that
//   - have the same host CPU model, GPU model list (in device order) and configuration (profile,
//     recorded environment variables, clock locking) as one of the base side's runs,
//   - contain an `ok` run of that suite,
//   - started no later than the newest candidate run (so a comparison gives the same answer when
//     repeated later, and runs made after the change, which carry it, stay out),
//   - are not candidate runs, and do not match the candidate's selector (tag:/host:/gpu:) unless
//     they match the base's too: with `compare tag:side=a tag:side=b --last 2` the older side-b
//     runs carry the change, and counting them as noise would hide it.
// The base side's own runs count. A series needs per-run medians from >= k_min_history_runs runs,
// else it gets no entry and its interval holds within-run noise only (the reason says so).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "compare/compare.hpp"
#include "results/store.hpp"

namespace gpubench::compare {

constexpr int k_default_history_window = 10;  // runs per suite
// Fewest runs for a series sd. Its uncertainty is carried by the df (runs - 1), so 3 runs are
// honest: they widen the interval (t quantile with few df) rather than narrow it.
constexpr std::size_t k_min_history_runs = 3;

// --history N: 0 (off) or at least k_min_history_runs. 1 or 2 would silently mean no history, so
// they are refused like negative numbers (Error(bad_input) naming the value).
void check_history_window(int window);

// Two queries for the runs plus two for the samples, whatever the number of series. Per-run
// medians are Google Benchmark's `median` aggregates where the suite run recorded them, else the
// median of the run's unthrottled repetitions. `window` 0 returns an empty map. `metric`: as
// Options::metric (only that metric; default all but cpu_time). `same_host`: history runs also
// share the base side's host (accept: the reference machine's own run-to-run noise, not the
// spread between the servers of a merged fleet database).
HistoryNoise load_history_noise(results::Store& store, const Side& base, const Side& candidate,
                                int window = k_default_history_window,
                                const std::optional<std::string>& metric = std::nullopt,
                                bool same_host = false);

}  // namespace gpubench::compare
