// The history of series over runs (issue 25, `gpubench history`): per run the median of each series
// with an interval, change points found in the per-run log medians
// (compare/stats/changepoints.hpp), and for each change the environment differences between the
// runs either side, ranked across the series that changed at the same run.
//
// A series here is suite + benchmark + metric + device on one group of runs: when the selection
// spans several hosts or GPU models, each host/GPU-model list is a group of its own (a change of
// machine is not a change point). A GPU series whose runs recorded the GPU's UUID follows the GPU
// (issue 38): GPU-...4's runs as device:4 and, after GPU 3 was lost, as device:3 are one series,
// shown under the group, benchmark name and device of its newest run; runs without UUIDs keep
// the CUDA index. Runs are ordered by start time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compare/compare.hpp"
#include "compare/stats/changepoints.hpp"
#include "compare/stats/stats.hpp"
#include "results/history_exclusions.hpp"
#include "results/store.hpp"

namespace gpubench::compare {

struct HistoryRun {
  int64_t id = 0;
  std::string uuid;
  std::string started_at;
  std::string group;          // "host [GPU models]"
  results::RunDetail detail;  // with its annotations (`gpubench annotate`, oldest first)
};

// One run's value of a series: the median of its valid repetitions, with a distribution-free
// interval of that median (order statistics at 99% when the run has >= 8 repetitions, else the
// range of its repetitions: `interval_is_range`).
struct RunPoint {
  std::size_t run = 0;  // index into History::runs
  double median = 0;
  double low = 0;
  double high = 0;
  std::size_t n = 0;  // valid repetitions
  bool interval_is_range = false;
};

// An environment difference at a change, with how many series changed at that run while this
// field differed (the ranking), and how often the field differs between consecutive runs of the
// window at all (a field that differs every night explains nothing).
struct RankedDifference {
  EnvDifference difference;
  std::size_t series = 0;
  std::size_t flips = 0;
};

struct SeriesChange {
  std::size_t point = 0;     // index into SeriesHistory::points: the first run of the new level
  double median_before = 0;  // median of the per-run medians since the previous change
  double median_after = 0;   // ... until the next one
  double ratio = 1;          // after / before (trimmed geometric means, compare's estimator)
  double ci_low = 1;         // 99% interval of the ratio
  double ci_high = 1;
  double p_value = 1;                         // of the change point test
  std::vector<RankedDifference> differences;  // ranked, most likely cause first
};

// How a series' change points were found: detection over the whole series; over its tail only
// (incremental recording: the change points before the tail are the stored ones); or not at all
// (no new run since the stored scan: the stored change points as they are).
enum class ScanKind { full, tail, reused };

struct SeriesHistory {
  std::string group;
  Key key;
  int64_t benchmark_id = 0;  // store ids (history --record)
  int64_t metric_id = 0;
  std::string unit;
  results::Direction direction = results::Direction::unknown;
  // A primary metric of its suite (results/metric_roles.hpp; unknown roles count as primary).
  // Metrics whose role is `parameter` (they describe the case) have no history.
  bool primary = true;
  std::vector<RunPoint> points;  // oldest first
  std::vector<SeriesChange> changes;
  ScanKind scan = ScanKind::full;
  std::size_t scanned_from = 0;  // index into points where detection began (tail: > 0 or 0)
};

struct HistoryOptions {
  std::string selector;                  // as compare's, or "all"
  std::optional<std::string> benchmark;  // regular expression (ECMAScript, searched)
  std::optional<std::string> metric;     // only this one; default all but cpu_time
  int last = 0;                          // newest N runs (0: all the selector matches)
  ChangePointOptions detection;          // stored with the result: a report can be repeated
  // Incremental recording (history --record): per series, the scan the last record stored
  // (results/change_points.hpp) is reused when it was made with the same parameters and selection
  // and the series has only gained runs after the scan's last run since. Then:
  //  - no new run in the series: its stored change points stand, and nothing is detected;
  //  - new runs: the stored change points stand, and detection runs on the tail from the last
  //    of them (the whole series when there is none). E-divisive splits hierarchically: the tail
  //    is the segment it would analyse after those splits, and only that segment gained runs.
  //    (The permutation test then shuffles the tail only, not every segment: the p values of new
  //    change points can differ slightly from a full recomputation's; --full gives that.)
  // Any other case (no scan, other parameters, a run deleted or merged in before the scan's last
  // run, a stored change point no longer in the series) is detected in full.
  bool incremental = false;
  // Set by load_history: the selected runs left out because `history exclude` excluded them
  // (results/history_exclusions.hpp), ascending. A scan is reused only under the same set.
  std::vector<int64_t> excluded_runs;
};

struct History {
  HistoryOptions options;
  std::vector<HistoryRun> runs;  // oldest first
  // Runs the selector matched but `history exclude` left out, with the reasons (by run id).
  std::vector<results::HistoryExclusion> excluded;
  std::vector<SeriesHistory> series;
};

// Throws Error(bad_input) for an unknown selector, an invalid regular expression, or when no
// series matches.
History load_history(results::Store& store, const HistoryOptions& options);

// The change points of every series, grouped by the run where they happened.
struct RunChanges {
  std::size_t run = 0;     // index into History::runs
  std::size_t series = 0;  // every series with a change point at this run
  // Summaries over PRIMARY metrics only, by direction (issue 39: a 24% slowdown read "geomean
  // +9.6%" because real_time +31.8% and calls_per_s -24% were averaged). Each change is read as
  // a speed-up (after/before for higher-is-better, before/after for lower-is-better, > 1 better);
  // `worse` holds those below 1, `better` the rest, each the geometric mean of its speed-ups with
  // the mean of their 99% log intervals (the series share their runs: their errors are not
  // independent). count 0: no such series (value 1, interval NaN).
  GeoMean worse;
  GeoMean better;
  std::size_t secondary = 0;          // changes of secondary metrics: listed, not summarised
  std::size_t unknown_direction = 0;  // primary, but the metric has no direction
  std::vector<RankedDifference> differences;
  std::vector<std::pair<std::size_t, std::size_t>> changes;  // (series index, change index)
};
std::vector<RunChanges> changes_by_run(const History& history);

// `history --record`: stores every series' change points in table `change_points`
// (results/change_points.hpp), replacing what was stored for those series, each row's detail
// holding the parameters that found it (so the report can be repeated) and the change's figures.
// Returns the number of rows written.
std::size_t record_change_points(results::Store& store, const History& history);
// The detector's parameters as history's JSON and the stored change points carry them.
nlohmann::json detection_parameters_json(const ChangePointOptions& options);
// What a stored scan must match to be reused: the detector's parameters, the selector and --last.
nlohmann::json scan_parameters_json(const HistoryOptions& options);

// How many series each way found their change points (history --record reports it).
struct ScanCounts {
  std::size_t full = 0, tail = 0, reused = 0;
  std::size_t tail_points = 0;  // points the tails held in all
};
ScanCounts scan_counts(const History& history);

}  // namespace gpubench::compare
