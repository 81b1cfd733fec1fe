// Comparing two sides (one run each, or groups of runs pooled per device): matching by identity,
// direction-aware verdicts, per-suite summaries and environment differences (DESIGN.md
// "Statistics"). Pure: sides are plain data, so this is testable without a database;
// compare/selection.hpp builds sides from the store.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compare/thresholds.hpp"
#include "results/model.hpp"
#include "results/store.hpp"

namespace gpubench::compare {

// One side of a comparison: what the user selected, the runs it resolved to, their results.
struct Side {
  std::string selection;  // as the user wrote it ("latest", "baseline:nightly")
  std::vector<results::RunDetail> runs;
  std::vector<results::ResultRow> results;  // every run's rows; pooled per identity by compare
};

enum class Verdict { regression, improvement, unchanged, inconclusive, invalid, changed };
// "changed": a significant change on a metric whose direction is unknown (no good/bad call).
const char* to_string(Verdict verdict);

enum class FailOn { regression, inconclusive, never };

// Identity of a series inside a comparison.
struct Key {
  std::string suite;
  std::string benchmark;
  std::string metric;
  std::string device;  // "gpu0", "gpu1", ... or "host"
  auto operator<=>(const Key&) const = default;
};

// Run-to-run noise of one series, from the store's history (compare/history.hpp fills it):
// robust CV of the per-run medians of the newest runs of the base side's hardware class and
// configuration. Repetitions inside one run understate it (they share the run's machine state).
struct SeriesNoise {
  double cv = 0;         // fraction
  std::size_t runs = 0;  // per-run medians it was computed from
};
using HistoryNoise = std::map<Key, SeriesNoise>;

struct Options {
  double threshold = 0.02;  // default noise margin (fraction)
  double alpha = 0.01;
  double confidence = 0.99;                // interval level
  std::optional<std::string> metric;       // only this metric; default all but cpu_time
  const Thresholds* thresholds = nullptr;  // per-benchmark overrides (not owned)
  const HistoryNoise* history = nullptr;   // series noise from history (not owned); null: none
};

struct SideStats {
  std::size_t n = 0;     // samples tested: repetitions, or per-run medians when per_run
  std::size_t runs = 0;  // runs the side's samples came from
  bool per_run = false;  // >= 3 runs: one sample per run (its median), see compare_sides
  double median = 0;
  double cv = 0;  // fraction; NaN with < 2 samples
  double min = 0;
  double max = 0;
  std::size_t throttled = 0;
  std::string gpu_uuid;
  std::vector<double> values;  // pooled samples
};

// Sets n, median, cv, min and max from `values`.
void summarize(SideStats& stats);

struct Entry {
  Key key;
  std::string case_name;
  std::vector<results::Param> params;
  std::string unit;
  results::Direction direction = results::Direction::unknown;
  // A primary metric of its suite (results/metric_roles.hpp): only primary entries are counted,
  // averaged into suite geomeans and gated on; secondary ones are shown with their verdict.
  bool primary = true;
  SideStats base;
  SideStats candidate;
  double ratio = 1;  // candidate median / base median
  double ci_low = 1;
  double ci_high = 1;
  double p_value = 1;                // Welch on logs
  double q_value = 1;                // Benjamini-Hochberg adjusted
  std::optional<double> mw_p_value;  // Mann-Whitney when both sides have >= 6 samples
  double delta = 0;                  // noise margin used (fraction)
  double sample_cv = 0;              // robust CV of the tested samples, noisier side (fraction)
  // CV the margin used (delta = max(threshold, 3 x noise_cv)): the larger of sample_cv and the
  // history CV scaled to the compared ratio (x sqrt(1/runs_base + 1/runs_candidate)).
  double noise_cv = 0;
  std::optional<SeriesNoise> history;  // the series' run-to-run noise, when known
  // What set delta: "threshold", "within run", "between runs (per-run medians)" or
  // "history (N runs)".
  std::string noise_source;
  double mde = 0;  // minimum detectable effect (fraction), NaN when unknown
  Verdict verdict = Verdict::inconclusive;
  std::string reason;  // why this verdict, for people
  // Ratio oriented so > 1 is better (1/ratio for lower-is-better); nullopt for unknown direction.
  std::optional<double> speedup() const;
};

// A benchmark present on one side only, or skipped/ignored.
struct Unmatched {
  Key key;
  std::string reason;
};

struct SuiteSummary {
  std::string suite;
  std::size_t compared = 0;
  std::size_t regressions = 0;
  std::size_t improvements = 0;
  std::size_t unchanged = 0;
  std::size_t inconclusive = 0;
  std::size_t invalid = 0;
  // Geometric mean of speed-ups (> 1 better) over entries with a known direction.
  double geomean = 1;
  double geomean_low = 1;
  double geomean_high = 1;
  std::size_t geomean_count = 0;
};

struct EnvDifference {
  std::string field;  // "driver", "GPU", "env CUDA_VISIBLE_DEVICES"
  std::string base;
  std::string candidate;
};

struct Comparison {
  std::string base_selection;
  std::string candidate_selection;
  std::vector<int64_t> base_runs;  // run ids
  std::vector<int64_t> candidate_runs;
  Options options;
  std::vector<EnvDifference> env_differences;
  std::vector<Entry> entries;      // sorted by key
  std::vector<Unmatched> added;    // candidate only
  std::vector<Unmatched> removed;  // base only
  std::vector<Unmatched> skipped;  // skipped/ignored on either side
  std::vector<SuiteSummary> suites;
  // Failed, interrupted or running runs and failed suites on either side, for the top of every
  // output ("candidate run 7 is failed: suite memory crashed (signal 11)").
  std::vector<std::string> problems;
  // Primary entries with this verdict (secondary metrics are not counted).
  std::size_t count(Verdict verdict) const;
  // Exit code per --fail-on: 1 when it fails, else 0.
  int exit_code(FailOn fail_on) const;
};

// Compares `base` with `candidate`. Throws Error(bad_input) when no benchmark is in common or a
// metric has different units on the two sides.
Comparison compare_sides(const Side& base, const Side& candidate, const Options& options);

// Environment differences between two groups of runs (each field: distinct values joined by ",").
std::vector<EnvDifference> environment_differences(const std::vector<results::RunDetail>& base,
                                                   const std::vector<results::RunDetail>& cand);

// "gpu0" for device index 0, "host" when not tied to a device.
std::string device_label(const std::optional<int>& device_index);

}  // namespace gpubench::compare
