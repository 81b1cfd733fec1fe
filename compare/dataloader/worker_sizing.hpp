// Loader worker sizing (issue 41 item 5): for each dataloader pipeline of a run, the worker count
// at which its throughput reaches 95% of its best, and that count as a multiple of the run's
// usable cores, so the material's "about 2x cores" advice is checked on the machine measured.
// `gpubench report` (a "Loader workers" section) and `gpubench doctor` (a fact of this host from
// its newest dataloader run) state it.
//
// The rule (README.md here):
// - a pipeline is a dataloader case name without its `workers:W` part (and without Google
//   Benchmark's run-control suffixes): read, train, h2d and image cases each make their own;
// - its throughput is `images_per_s` where the pipeline reports it (image cases), else
//   `samples_per_s`; a worker count's figure is the median of its repetitions (ok samples, pooled
//   over the run's executions of the suite);
// - best = the highest median; the answer = the smallest worker count whose median is at least
//   k_sizing_fraction (95%) of the best; multiple = answer / usable cores;
// - fewer than 2 worker counts: "not enough points"; the best at the largest count measured: the
//   answer may rise with more workers (GPUBENCH_DATALOADER_WORKERS asks for them);
// - where every count has k_sizing_min_repetitions values, compare's estimator (stats/
//   log_ratio_estimate, 99%) gives each count's ratio to the best with an interval, and the answer
//   a range: from the smallest count whose interval reaches 95% to the smallest whose interval
//   lies wholly at or above it. Otherwise medians only, and the line says so.
// - GPU busy (issue 41 item 4): where the pipeline also reports `gpu_idle_fraction` (the train
//   cases with a step), each count's median idle fraction, and the knee: the fewest workers from
//   which the GPU stays busy (idle <= 5%) and the most at which it still waits, with its rate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/store.hpp"

namespace gpubench::compare {

inline constexpr double k_sizing_fraction = 0.95;
inline constexpr double k_sizing_confidence = 0.99;
// Values each worker count needs for intervals: as compare, fewer than 3 give medians only.
inline constexpr std::size_t k_sizing_min_repetitions = 3;
// The material's advice: about twice as many loader workers as cores. The verdict calls a
// multiple within [k_advice_low, k_advice_high] "about" it.
inline constexpr double k_advice_multiple = 2.0;
inline constexpr double k_advice_low = 1.5;
inline constexpr double k_advice_high = 3.0;

// The GPU counts as waiting when its idle fraction (time the step waited for input / wall time)
// is above this.
inline constexpr double k_gpu_waiting_idle_fraction = 0.05;
// The metric the dataloader's step cases (train, and image cases with a step) report it under
// (suites/dataloader/README.md).
inline constexpr const char* k_gpu_idle_metric = "gpu_idle_fraction";

// One pipeline (format, path, batch, step) at one worker count.
struct BusyPoint {
  int workers = 0;
  double samples_per_s = 0;  // the pipeline's throughput, in its unit
  double gpu_idle_fraction = 0;
};
struct GpuBusyKnee {
  // The fewest workers from which every larger worker count measured keeps the GPU busy
  // (idle <= 5%); fed = false when even the most workers leave it waiting.
  bool fed = false;
  int fed_workers = 0;
  double fed_samples_per_s = 0;
  // The most workers at which the GPU still waits (idle > 5%): where it starts waiting, and the
  // input rate below which it does; waits = false when it is busy at every worker count.
  bool waits = false;
  int waiting_workers = 0;
  double waiting_samples_per_s = 0;
  double waiting_idle_fraction = 0;
  // Not fed at the most workers, yet busy at fewer: the fewest such count (the GPU waits again
  // above it, e.g. with more workers than cores competing with the consumer); 0: none.
  int busy_at_fewer_workers = 0;
  double busy_at_fewer_samples_per_s = 0;
  double busy_at_fewer_idle_fraction = 0;
  // The step was the emulated one (label consumer=emulated: no GPU): "the step", not "the GPU".
  bool emulated = false;
};
// Throws Error(bad_input) for no points, a worker count below 1 or measured twice.
GpuBusyKnee find_gpu_busy_knee(std::vector<BusyPoint> points);
// One sentence for a report, e.g. "the GPU waits below 2 workers (1 worker: 410 samples/s, 38%
// idle); busy from 2 workers (800 samples/s)"; `unit` is the throughput's.
std::string describe_knee(const GpuBusyKnee& knee, const std::string& unit = "samples/s");

// One worker count of a pipeline.
struct WorkerPoint {
  int workers = 0;
  std::vector<double> values;  // per repetition, in the pipeline's metric's unit
  double median = 0;
  double ratio_to_best = 1;  // median / best median
  // Ratio to the best count with compare's estimator (trimmed geometric means), where intervals
  // are used (PipelineSizing::intervals).
  std::optional<double> ci_low;
  std::optional<double> ci_high;
  // Median gpu_idle_fraction of the count's repetitions (0..1), where the pipeline reports it.
  std::optional<double> gpu_idle_fraction;
};

struct PipelineSizing {
  std::string pipeline;  // "dataloader/read/format:raw/path:pread/record_bytes:4096/..."
  std::string metric;    // "samples_per_s" or "images_per_s"
  std::string unit;
  std::vector<WorkerPoint> points;  // ascending worker count
  bool enough_points = false;       // 2 or more worker counts
  int best_workers = 0;
  int answer_workers = 0;  // smallest count at >= 95% of the best (the best when < 2 points)
  // The answer's range within the intervals (equal to answer_workers without intervals).
  int answer_low = 0;
  int answer_high = 0;
  bool intervals = false;        // every count had k_sizing_min_repetitions values
  bool best_at_largest = false;  // the best is the largest count measured: may rise with more
  // Where the GPU starts waiting, over the counts with an idle fraction; none without one.
  std::optional<GpuBusyKnee> knee;
};

struct WorkerSizing {
  int64_t run_id = 0;
  std::string host;
  std::string started_at;
  // The CPUs the dataloader suite could use (its affinity mask capped by the cgroup quota, the
  // context key "gpubench.usable_cpus"); when the run recorded none, the host's logical CPUs.
  std::optional<int> usable_cores;
  bool cores_recorded = false;  // true: from the suite; false: the host's logical CPUs, or none
  std::vector<PipelineSizing> pipelines;  // by pipeline name
};

// The context key the dataloader suite writes its usable CPU count under (a decimal string, as
// Google Benchmark custom context values are).
inline constexpr const char* k_usable_cpus_context_key = "gpubench.usable_cpus";

// The pipelines of `rows` (a run's results, any suites: rows of other suites and dataloader
// cases without a `workers:` parameter are ignored). Pure.
std::vector<PipelineSizing> size_pipelines(const std::vector<results::ResultRow>& rows);

// The sizing of a run from its detail and rows (Store::get_run, get_results): its pipelines, host
// and usable cores (the context key its dataloader suite run stored, else the host's logical
// CPUs). No pipelines when the run has no dataloader cases with workers.
WorkerSizing worker_sizing(results::Store& store, const results::RunDetail& run,
                           const std::vector<results::ResultRow>& rows);

// The newest run on `host` (names equal ignoring case and the domain) that has a dataloader suite
// run with results; nullopt when there is none.
std::optional<int64_t> newest_dataloader_run(results::Store& store, const std::string& host);

// "95% of best at 2 workers = 1.0x the 2 usable cores: fewer than the 2x advice" (one pipeline),
// or "not enough points (1 worker count measured: 2)".
std::string sizing_verdict(const PipelineSizing& p, const WorkerSizing& sizing);

// "Loader workers (run 3, 16 usable cores): the smallest worker count at 95% of ..."
std::string worker_sizing_heading(const WorkerSizing& sizing);
// "samples_per_s by workers: 1: 5120 (52.2%), 2: 9810 (100%)": each count's median and its
// share of the best.
std::string points_text(const PipelineSizing& p);
// "GPU idle by workers: 1: 38%, 2: 2%: the GPU waits below 2 workers (...); busy from 2 workers
// (...)"; empty for a pipeline without gpu_idle_fraction.
std::string knee_text(const PipelineSizing& p);

// For people: a heading line ("Loader workers (run 3, 16 usable cores): ..."), three lines a
// pipeline with 2 or more worker counts (its name, its points, its verdict; a fourth, knee_text,
// where it reports the GPU's idle fraction), and the summary over
// every pipeline last (which counts those measured at one worker count: the profiles run most
// formats and orders at one count, and a line each would bury the sweeps). Empty when the run has
// no pipelines.
std::vector<std::string> worker_sizing_lines(const WorkerSizing& sizing);

// The one-line summary against the 2x advice over every pipeline with enough points.
std::string advice_summary(const WorkerSizing& sizing);

// {"schema": "gpubench.loader_workers/1", "run", "host", "usable_cores", "cores_recorded",
//  "fraction", "confidence", "pipelines": [{pipeline, metric, unit, points: [{workers, n, median,
//  ratio_to_best, ci_low, ci_high, gpu_idle_fraction}], best_workers, answer_workers,
//  answer_low, answer_high, multiple, intervals, best_at_largest, enough_points, verdict,
//  gpu_busy: {fed, fed_workers, fed_per_s, waits, waiting_workers, waiting_per_s,
//  waiting_idle_fraction, idle_threshold, emulated, text} or null}], "summary"}: null for
//  unknown (gpu_idle_fraction and gpu_busy are additions: the version stays, compare/SCHEMA.md).
nlohmann::json worker_sizing_json(const WorkerSizing& sizing);

}  // namespace gpubench::compare
