// Comparing two sides (one run each, or groups of runs pooled per device): matching by identity,
// direction-aware verdicts, per-suite summaries and environment differences (DESIGN.md
// "Statistics"). Pure: sides are plain data, so this is testable without a database;
// compare/selection.hpp builds sides from the store.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare/stats/executions.hpp"
#include "compare/stats/thresholds.hpp"
#include "results/model.hpp"
#include "results/store.hpp"

namespace gpubench::compare {

// One side of a comparison: what the user selected, the runs it resolved to, their results.
struct Side {
  std::string selection;  // as the user wrote it ("latest", "baseline:nightly")
  std::vector<results::RunDetail> runs;
  std::vector<results::ResultRow> results;  // every run's rows; pooled per identity by compare
};

// "changed": a significant change on a metric whose direction is unknown (no good/bad call).
// "missing": a side has no samples (numbers are unknown: null in JSON, "—" in text).
enum class Verdict { regression, improvement, unchanged, inconclusive, invalid, changed, missing };
const char* to_string(Verdict verdict);
// Every verdict, in the order renderers list counts.
inline constexpr Verdict k_all_verdicts[] = {
    Verdict::regression, Verdict::improvement, Verdict::unchanged, Verdict::inconclusive,
    Verdict::changed,    Verdict::invalid,     Verdict::missing};
inline constexpr std::size_t k_verdict_count = 7;

// What makes `compare` exit 1, from the least to the most strict:
//   regression:   a regression;
//   changed:      a regression or a `changed` (significant change, direction unknown);
//   inconclusive: anything not decided: regression, changed, inconclusive, invalid, missing;
//   never:        nothing.
// Under all but never, a benchmark in the base that the candidate lacks (removed) fails too.
enum class FailOn { regression, changed, inconclusive, never };
const char* to_string(FailOn fail_on);
std::optional<FailOn> fail_on_from_string(const std::string& text);
// True when an entry with this verdict fails the comparison under `fail_on`.
bool fails(Verdict verdict, FailOn fail_on);

// How much of a comparison or report text and Markdown show (issue 39). summary: the verdict,
// the failing entries worst first, per-GPU verdicts, then the rest of the primary metrics, with
// unchanged rows summarised past a budget; secondary metrics and skipped cases only counted.
// all (`--all`): every entry, secondary metrics and skipped cases listed. Machine formats (JSON,
// CSV, JUnit) always hold everything. Acceptance: passing checks counted, or listed.
enum class Detail { summary, all };

struct Entry;
// fails(verdict) or, for a series lost with its GPU (Entry::lost_hardware), any fail_on but never.
bool entry_fails(const Entry& entry, FailOn fail_on);

// Identity of a series inside a comparison.
struct Key {
  std::string suite;
  std::string benchmark;
  std::string metric;
  std::string device;  // "gpu0", "gpu1", ... or "host"
  auto operator<=>(const Key&) const = default;
};

// Run-to-run noise of one series, from the store's history (compare/run_noise.hpp fills it): the
// sample sd of the log per-run medians of the newest runs of the base side's hardware class and
// configuration since the series' last change point, outlying runs left out (robust). Repetitions
// inside one run understate it (they share the run's machine state).
struct SeriesNoise {
  double log_sd = 0;     // sd of log(per-run median); ~ the run-to-run CV as a fraction
  std::size_t runs = 0;  // per-run medians it was computed from (its df is runs - 1)
  std::size_t outliers = 0;  // runs left out as outlying (compare/run_noise.hpp)
  int64_t since_run = 0;     // run id of the last change point the history starts at; 0: none
  bool usable = false;       // runs >= k_min_history_runs: enough df to go into an interval
  // Whose runs a GPU series' history holds (compare/run_noise.hpp): "GPU-...4's own runs, by
  // UUID", or which runs were taken by CUDA index and why; empty for a host series.
  std::string gpu_note;
};
// The noise of each series with history (usable or not: an unusable entry says how few runs
// there were), and per suite how many history runs were found (also when fewer than needed, so
// a verdict can say why its interval has no history).
struct HistoryNoise : std::map<Key, SeriesNoise> {
  std::map<std::string, std::size_t> suite_runs;
};

struct Options {
  double threshold = 0.02;   // practical threshold delta (fraction); never widened by noise
  double alpha = 0.01;       // false discovery rate (Benjamini-Hochberg)
  double confidence = 0.99;  // interval level
  std::optional<std::string> metric;       // only this metric; default all but cpu_time
  const Thresholds* thresholds = nullptr;  // per-benchmark overrides (not owned)
  const HistoryNoise* history = nullptr;   // series noise from history (not owned); null: none
  // Recorded for the reports (JSON "options"); compare_sides does not read them.
  FailOn fail_on = FailOn::regression;
  int history_window = 0;        // --history N (0: off)
  std::string thresholds_file;   // --thresholds path, "" when none
  int last = 1;                  // --last N
  std::string gpubench_version;  // of the program that compared (JSON "gpubench_version")
};

struct SideStats {
  std::size_t n = 0;     // samples: every repetition, or per-run medians when per_run
  std::size_t runs = 0;  // runs the side's samples came from
  bool per_run = false;  // >= 3 runs: one sample per run (its median), see compare_sides
  // Executions (one process of the suite each, a suite run row) with samples, over the side's
  // runs; their ids (ascending) and execution_log_mean of each, parallel.
  std::size_t executions = 0;
  std::vector<int64_t> execution_ids;
  std::vector<double> execution_means;
  double median = 0;     // NaN without samples (as min, max)
  double cv = 0;         // fraction; NaN with < 2 samples
  double min = 0;
  double max = 0;
  std::size_t throttled = 0;
  std::string gpu_uuid;
  // The CUDA ordinal this side's suite named the GPU by (`device:N`); with series paired by UUID
  // (compare/gpu_pairing.hpp) the two sides' may differ. Unset for a host series.
  std::optional<int> device_index;
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
  // The estimate (compare/stats/stats.hpp log_ratio_estimate): NaN where unknown (a side missing,
  // fewer than 3 samples, invalid), rendered as null / "—". ratio is the ratio of the 20%-trimmed
  // geometric means (plain geometric means below 8 samples); the interval and p come from the same
  // statistic, so p < 1 - confidence exactly when the interval excludes 1.
  double ratio = 1;
  double ci_low = 1;
  double ci_high = 1;
  double p_value = 1;
  double q_value = 1;           // Benjamini-Hochberg adjusted over the comparison's tested entries
  double df = 0;                // Welch-Satterthwaite degrees of freedom
  double std_error = 0;         // of log(ratio): sqrt(within-run part + history part)
  double history_variance = 0;  // log-scale variance added from history (0: none)
  double delta = 0;      // practical threshold (fraction): --threshold or the thresholds file
  double sample_cv = 0;  // robust CV of the tested samples, noisier side (fraction), for people
  std::optional<SeriesNoise> history;  // the series' run-to-run noise, when known
  std::size_t history_runs_found = 0;  // history runs of its suite, also when too few to use
  // What the interval's variance holds: "between executions", "per-run medians", "one
  // execution (no run-to-run noise)", each "+ history (N runs)" when history added to it.
  std::string noise_source;
  double mde = 0;  // smallest change the interval can flag (fraction), NaN when unknown
  // The interval is built from executions (compare/stats/executions.hpp): a side with more
  // executions than runs. Its between-execution noise, and the executions a side that bring the
  // smallest detectable change under delta (0: more than 100, or unknown).
  bool by_execution = false;
  SeriesExecutionNoise execution_noise;
  std::size_t executions_needed = 0;
  Verdict verdict = Verdict::inconclusive;
  // `missing` because the candidate lost the GPU that measured it on base (compare/hardware.hpp):
  // fails under every --fail-on but never.
  bool lost_hardware = false;
  std::string reason;  // why this verdict, for people
  // "different cuBLASLt algorithm: algo=23 ... vs algo=31 ...": the sides' labels name different
  // algorithms (compare/algorithms.hpp); also at the end of `reason`. Empty otherwise.
  std::string algorithm_change;
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
  std::size_t counts[k_verdict_count] = {};  // by Verdict
  std::size_t count(Verdict verdict) const { return counts[static_cast<std::size_t>(verdict)]; }
  // Geometric mean of speed-ups (> 1 better) over the entries with a known direction and an
  // interval (not missing, invalid or with < 3 samples); geomean_count says how many.
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

// One run of a side, for the heads of reports (Markdown job summaries name what was compared).
struct RunHeader {
  int64_t id = 0;
  std::string started_at;  // ISO 8601 UTC
  std::string host;
  std::string git_sha;                   // of the gpubench that ran it
  std::vector<std::string> annotations;  // `gpubench annotate` (issue 25), oldest first
  std::string uuid;  // the run's UUID: its name outside this database (issue 39)
};

struct Comparison {
  std::string base_selection;
  std::string candidate_selection;
  std::vector<int64_t> base_runs;  // run ids
  std::vector<int64_t> candidate_runs;
  std::vector<RunHeader> base_headers;  // the same runs, in the same order
  std::vector<RunHeader> candidate_headers;
  Options options;
  std::vector<EnvDifference> env_differences;
  std::vector<Entry> entries;      // sorted by key
  std::vector<Unmatched> added;    // candidate only
  std::vector<Unmatched> removed;  // base only
  std::vector<Unmatched> skipped;  // skipped/ignored on either side
  std::vector<SuiteSummary> suites;
  // How GPU series were paired (compare/gpu_pairing.hpp GpuPairing::note): "GPU series paired by
  // GPU UUID", or by CUDA index with why; empty when neither side ran on a GPU.
  std::string gpu_pairing;
  // Failed, interrupted or running runs and failed suites on either side, for the top of every
  // output ("candidate run 7 is failed: suite memory crashed (signal 11)").
  std::vector<std::string> problems;
  // The one place entries are counted: every renderer and the exit code use it. Only primary
  // entries count (secondary metrics are shown, not counted).
  std::size_t count(Verdict verdict) const;
  std::size_t compared() const;  // primary entries: the sum of count() over every verdict
  // Entries that fail under fail_on, plus (but under never) removed_benchmarks(): a suite or
  // benchmark the base has and the candidate did not run fails the comparison.
  std::size_t failing(FailOn fail_on) const;
  // Distinct (suite, benchmark, device) in `removed`: benchmarks of the base not in the candidate.
  std::size_t removed_benchmarks() const;
  // Exit code per --fail-on: 1 when it fails, else 0.
  int exit_code(FailOn fail_on) const;
};

// Whether compare_sides looks at rows of `metric`: with --metric (`only`), that one; else every
// metric but cpu_time (host CPU time of a GPU benchmark says little; real_time is compared).
// Loaders drop the other rows as they read them.
bool compared_metric(std::string_view metric, const std::optional<std::string>& only);

// Compares `base` with `candidate`. Throws Error(bad_input) when no benchmark is in common or a
// metric has different units on the two sides.
Comparison compare_sides(const Side& base, const Side& candidate, const Options& options);

// Environment differences between two groups of runs (each field: distinct values joined by ",").
// Variables that say where things are, not what is measured (the CI templates' own
// GPUBENCH_RUN_ARGS, GPUBENCH_OUT, ..., and the database and suite paths; is_location_variable) are
// never listed.
std::vector<EnvDifference> environment_differences(const std::vector<results::RunDetail>& base,
                                                   const std::vector<results::RunDetail>& cand);
bool is_location_variable(const std::string& name);

// Doctor checks (results/doctor_store.hpp) whose status differs between the sides, appended to
// `out` as "doctor <check>" differences; nothing when either side recorded no checks.
void append_doctor_differences(const std::vector<results::RunDetail>& base,
                               const std::vector<results::RunDetail>& cand,
                               std::vector<EnvDifference>& out);

// "gpu0" for device index 0, "host" when not tied to a device.
std::string device_label(const std::optional<int>& device_index);

}  // namespace gpubench::compare
