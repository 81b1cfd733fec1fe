// `gpubench models` (issue 24): one row per GPU model and server configuration for a buying
// decision, pooled over every GPU and run of the model (outlier GPUs left out and named), with
// 99% intervals, per-watt and per-price figures, a ratio against a reference model and a
// weighted composite. Method: compare/README.md "Models and fleets".
#pragma once

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare/models/fleet.hpp"

namespace gpubench::compare {

// A figure on the log scale: log of a geometric mean, the variance of that mean and its degrees
// of freedom. Sums of these (a suite's geometric mean, a composite, a ratio) add variances and
// take Welch-Satterthwaite degrees of freedom.
struct LogEstimate {
  double mean_log = std::numeric_limits<double>::quiet_NaN();
  double var = 0;
  double df = std::numeric_limits<double>::infinity();
  std::size_t n = 0;             // units (GPU x run) behind it
  bool within_run_only = false;  // one unit: the interval holds its repetitions' noise only
  bool valid() const { return std::isfinite(mean_log); }
  double value() const { return std::exp(mean_log); }
  double low(double confidence) const;  // NaN when invalid; the point when var is 0
  double high(double confidence) const;
};

// Geometric mean of `units` (one value per GPU x run) with a t interval on the logs (n - 1 df);
// with one unit, its `repetitions` stand in (within_run_only). Each log variance is held at least
// at log_resolution^2 / 12 (compare/stats/stats.hpp), so tied values never give a zero-width
// interval.
LogEstimate pooled_estimate(const std::vector<double>& units,
                            const std::vector<double>& repetitions = {});
// sum_i weight_i x term_i: means add, variances add with weight^2, Welch-Satterthwaite df.
LogEstimate weighted_sum(const std::vector<std::pair<double, LogEstimate>>& terms);

// A prices file: `model,price,currency[,power_w]` per line, '#' comments, an optional header line
// starting with "model". `model` is matched as a case-insensitive substring of the GPU's name
// (the longest matching entry wins). power_w, when given, is the power `--power tdp` uses.
struct PriceEntry {
  std::string model;
  double price = 0;
  std::string currency;
  std::optional<double> power_w;
  int line = 0;
};
// Throws Error(bad_input) naming FILE:LINE, the cause and an example line (or the byte offset of
// text that is not UTF-8). A leading UTF-8 byte order mark is skipped.
std::vector<PriceEntry> parse_prices(std::string_view text, const std::string& file);
const PriceEntry* find_price(const std::vector<PriceEntry>& prices, const std::string& gpu_model);

// A weights file: `PATTERN WEIGHT` per line, '#' comments. PATTERN is a suite name ("allreduce")
// or a glob on benchmark names without device ("gemm/*/dtype:bf16/m:8192/*"); WEIGHT > 0. The
// weights are normalised to sum to 1. Throws Error(bad_input) naming FILE:LINE.
struct WeightEntry {
  std::string pattern;
  double weight = 0;
  int line = 0;
};
// Throws Error(bad_input) naming FILE:LINE for a line that is not PATTERN WEIGHT, a weight that is
// not a number in (0, k_max_weight], a pattern weighted twice, or text that is not UTF-8.
inline constexpr double k_max_weight = 1e9;
std::vector<WeightEntry> parse_weights(std::string_view text, const std::string& file);

enum class PowerSource { measured, tdp };

struct ModelsOptions {
  PowerSource power = PowerSource::measured;
  double confidence = 0.99;
  std::string reference;  // substring of a model's name; empty: no ratio column
  std::vector<PriceEntry> prices;
  std::vector<WeightEntry> weights;
  OutlierRule outliers;
};

// A figure with its interval (NaN where unknown) and a ratio against the reference model.
struct Figure {
  LogEstimate estimate;
  std::string benchmark;  // the benchmark it comes from (headline figures)
  std::string unit;
  std::string note;  // why it is unknown, or what it rests on
};
struct Ratio {
  LogEstimate estimate;  // log(model / reference)
  std::string wording;   // "1.42x faster", "0.85x (slower)", "same" (interval holds 1)
};

struct SuiteFigure {
  std::string suite;
  std::size_t benchmarks = 0;
  Figure geomean;      // of the suite's primary figures (lower-is-better ones inverted)
  Figure pct_of_peak;  // geometric mean of its pct_of_peak metric, where it has one
  std::optional<Ratio> ratio;
};

struct HeadlineFigure {
  std::string key;    // "bf16_tflops"
  std::string label;  // "dense BF16 TFLOP/s"
  bool per_gpu = true;
  Figure value;
  Figure per_watt;   // value / W
  Figure per_price;  // value / price unit
  std::optional<Ratio> ratio;
};

struct ModelRow {
  std::string gpu_model;
  int gpus_per_node = 0;
  std::string interconnect;
  std::vector<int64_t> runs;
  std::vector<std::string> hosts;
  std::size_t gpus = 0;  // GPUs pooled (outliers left out)
  std::vector<FleetOutlier> excluded;
  std::optional<double> memory_gb;  // per GPU, 1e9 bytes
  std::optional<double> tdp_w;      // the prices file's power_w, else the enforced power limit
  const PriceEntry* price = nullptr;
  std::optional<double> memory_gb_per_price;
  std::vector<SuiteFigure> suites;
  std::vector<HeadlineFigure> headline;
  std::optional<Figure> composite;  // with --weights
  std::optional<Ratio> composite_ratio;
  bool is_reference = false;
};

struct ModelsTable {
  ModelsOptions options;
  std::string reference_model;  // resolved, empty without --reference
  std::vector<ModelRow> rows;
};

// Builds the table. Throws Error(bad_input) when --reference matches no model or several.
ModelsTable build_models(const Observations& obs, const ModelsOptions& options);

// "1.42x faster [1.30, 1.55]" wording for a ratio (neutral: faster/slower, never regression).
std::string ratio_wording(const LogEstimate& ratio, double confidence);

}  // namespace gpubench::compare
