// Per-GPU observations of many runs, and GPUs that stand apart from the others of their model
// (issue 24): the shared ground of `gpubench models` (outlier GPUs left out of a model's figures)
// and `gpubench fleet` (every GPU of every host on one table per model). compare/README.md
// "Models and fleets" has the method.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "results/model.hpp"

namespace gpubench::results {
class Store;
struct RunDetail;
}  // namespace gpubench::results

namespace gpubench::compare {

// One series of one run on one GPU (or on the host: gpu_uuid empty), named without its
// `device:N` part so the same benchmark on sibling GPUs and on other hosts shares a name. The
// executions of a suite in the run (issue 35: one suite run each) are one observation: an
// execution is not an independent run, so a model's n counts runs x GPUs.
struct Observation {
  int64_t run_id = 0;
  std::string host;
  std::string gpu_model;  // the GPU's NVML name; a host series: the run's GPU model
  std::string gpu_uuid;   // empty for a host series
  std::string pci_bus_id;
  int index = -1;  // the CUDA ordinal the suite named, -1 for a host series
  std::string suite;
  std::string benchmark;  // without device:N
  std::string metric;
  std::string unit;
  results::Direction direction = results::Direction::unknown;
  bool primary = true;  // primary (or undeclared) metric of its suite
  // Valid repetitions (thermal/HW slowdown samples left out); with several executions, one value
  // per execution (the median of its valid repetitions).
  std::vector<double> values;
  double median = 0;           // of values: the median of the executions' medians
  std::size_t executions = 1;  // suite runs of the series in the run
  // The power this GPU drew for the series: the median of the `power_w` its samples carry (a
  // suite's or an imported file's per-sample counter: what this benchmark drew), else the median
  // NVML board power of the GPU's telemetry while its suite ran.
  std::optional<double> power_w;
  enum class PowerFrom { none, samples, telemetry };
  PowerFrom power_from = PowerFrom::none;
  int node_gpus = 0;  // GPUs of gpu_model in the run (a host series: all the run's GPUs)
};

// What the runs say about the GPUs they used: per UUID, the newest run's GpuInfo and software.
struct GpuFacts {
  results::GpuInfo info;
  std::string host;
  std::string driver;
  std::string clocks_locked;
  int64_t run_id = 0;
};

struct Observations {
  std::vector<Observation> rows;
  std::vector<GpuFacts> gpus;  // one per UUID seen
  std::vector<int64_t> runs;
  // Interconnect per run: the run's tag `interconnect`, else "unknown" (the store keeps no link
  // topology of a run).
  std::vector<std::pair<int64_t, std::string>> interconnect;
  const GpuFacts* gpu(const std::string& uuid) const;
};

// Reads the rows of `run_ids` (complete runs) with their GPUs and measured power. Rows that
// failed or were skipped, the cpu_time metric and aggregate-only rows are left out.
Observations load_observations(results::Store& store, const std::vector<int64_t>& run_ids);

// The complete runs that `selectors` pick (an id, latest, baseline:NAME: that run; tag:, host:,
// gpu:: every complete run the selector matches); every complete run when `selectors` is empty.
// Throws Error(bad_input) when nothing is selected.
std::vector<int64_t> select_runs(results::Store& store, const std::vector<std::string>& selectors);

// The newest `per_host` of `run_ids` on each host (by start time; the same instant: the larger
// id), ascending; `per_host` 0 keeps them all. A fleet is what its hosts are now: the median over
// every run of a host hides a GPU that went slow in the newest one (issue 38).
std::vector<int64_t> newest_per_host(results::Store& store, const std::vector<int64_t>& run_ids,
                                     int per_host);

struct OutlierRule {
  double z_threshold = 3.5;  // |robust z| beyond this ...
  double min_effect = 0.05;  // ... and worse than the model's median by more than this fraction
};

// One benchmark across the same-model GPUs: each GPU's median (over its runs) against the median
// of all of them. robust z = (x - median) / (1.4826 MAD); infinite when MAD is 0 and x differs.
struct GpuScore {
  std::string uuid;
  double value = 0;
  double z = 0;
  double deviation = 0;  // x / median - 1
  bool worse = false;    // on the bad side of the median for the metric's direction
  bool outlier = false;
};
struct FleetSeries {
  std::string gpu_model;
  std::string suite;
  std::string benchmark;
  std::string metric;
  std::string unit;
  results::Direction direction = results::Direction::unknown;
  double median = 0;
  double mad = 0;  // raw median absolute deviation (unit of the metric)
  std::vector<GpuScore> gpus;
};

// An outlier GPU with where to find it and what sets it apart.
struct FleetOutlier {
  std::string gpu_model;
  std::string host;
  std::string uuid;
  std::string pci_bus_id;
  int nvml_index = -1;
  std::string suite;
  std::string benchmark;  // the series where it is worst
  std::string metric;
  double value = 0;
  double model_median = 0;
  double z = 0;
  double deviation = 0;
  std::size_t series = 0;  // series where it is an outlier
  // Facts where this GPU differs from most GPUs of its model: "driver 550.1 (others 560.35)".
  std::vector<std::string> differences;
};

struct Fleet {
  std::vector<FleetSeries> series;  // by model, suite, benchmark, metric
  std::vector<FleetOutlier> outliers;
};

// Robust z of every GPU of each model on every GPU series with >= 3 GPUs and a known direction
// (`metric`: only that metric; else primary metrics; `suite`: only that suite). A GPU is an
// outlier on a series when it is on the worse side, |z| > rule.z_threshold and the deviation is
// beyond rule.min_effect; outliers are listed once per GPU, at their worst series.
Fleet fleet_scores(const Observations& obs, const OutlierRule& rule = {},
                   const std::string& suite = {}, const std::string& metric = {});

}  // namespace gpubench::compare
