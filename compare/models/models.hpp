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
  double price = 0;      // in `currency` (after convert_prices: the target currency)
  std::string currency;  // as written, upper-cased ASCII ("usd" is "USD")
  std::optional<double> power_w;
  int line = 0;
  // Set by convert_prices when it converted this price: the price and currency as written and
  // the rate used (target currency units per 1 `written_currency`).
  std::optional<double> written_price;
  std::string written_currency;
  double rate = 1;
};
// Throws Error(bad_input) naming FILE:LINE, the cause and an example line (or the byte offset of
// text that is not UTF-8). A leading UTF-8 byte order mark is skipped.
std::vector<PriceEntry> parse_prices(std::string_view text, const std::string& file);
const PriceEntry* find_price(const std::vector<PriceEntry>& prices, const std::string& gpu_model);

// Exchange rates for convert_prices: currency (upper case) -> units of the target currency per
// one unit of it (`--rate EUR=1.08` with `--currency USD`: 1 EUR = 1.08 USD).
using CurrencyRates = std::vector<std::pair<std::string, double>>;
// Parses one `--rate CUR=X` (X a number > 0). Throws Error(bad_input) naming the text.
std::pair<std::string, double> parse_rate(const std::string& text);
// Puts every price in one currency, so per-price figures and their ratios compare like with like.
// `target` empty: the prices must share one currency, else Error(bad_input) naming both lines and
// the fix (--currency with --rate). `target` given: each price in another currency is converted
// by its rate (recorded in the entry); a currency without a rate is Error(bad_input) naming the
// line and the --rate to add. `file` names the prices file in messages.
void convert_prices(std::vector<PriceEntry>& prices, const std::string& target,
                    const CurrencyRates& rates, const std::string& file);

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

// Where a model's per-watt figures took their power from (measured: per GPU row, the median
// power_w of the benchmark's own samples, else of the suite run's NVML telemetry).
struct PowerSources {
  std::size_t samples = 0;    // units whose power came from their samples' power_w counters
  std::size_t telemetry = 0;  // units whose power came from NVML telemetry
  std::size_t tdp = 0;        // units divided by a power limit or the prices file's power_w
  std::size_t none = 0;       // GPU units without any power
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

// The purchase answer's clause for one ratio (model / reference, higher is better): the model
// that leads, by how much in percent, and the interval of that percentage, e.g. "H100 21.0% more
// per USD [20.6%, 21.4%]" (`lead` "more per USD"; the reference leads when the ratio's interval
// lies below 1: its lead is 1/ratio - 1 over [1/high - 1, 1/low - 1]) or, when the interval holds
// 1, "no clear difference per USD (H200 -1.2% [-3.0%, +0.6%])" (`aspect` "per USD").
std::string advantage_text(const LogEstimate& ratio, double confidence, const std::string& model,
                           const std::string& reference, const std::string& lead,
                           const std::string& aspect);

struct SuiteFigure {
  std::string suite;
  std::size_t benchmarks = 0;
  Figure geomean;      // of the suite's primary figures (lower-is-better ones inverted)
  Figure pct_of_peak;  // geometric mean of its pct_of_peak metric, where it has one
  std::optional<Ratio> ratio;
};

struct HeadlineFigure {
  std::string key;          // "bf16_tflops"
  std::string label;        // "dense BF16 TFLOP/s"
  std::string short_label;  // "BF16": how the purchase answer names it
  bool per_gpu = true;
  Figure value;
  Figure per_watt;   // value / W
  Figure per_price;  // value / price unit
  std::optional<Ratio> ratio;
  // Against the reference: per watt (both spreads) and per price (prices are constants, so the
  // interval is the throughput ratio's, shifted). Only where both models have the figure, and
  // per price only in one currency (convert_prices).
  std::optional<Ratio> per_watt_ratio;
  std::optional<Ratio> per_price_ratio;
};

struct ModelRow {
  std::string gpu_model;
  int gpus_per_node = 0;
  std::string interconnect;
  std::vector<int64_t> runs;
  std::vector<std::string> hosts;
  std::size_t gpus = 0;  // GPUs pooled (outliers left out)
  std::vector<FleetOutlier> excluded;
  std::optional<double> memory_gb;   // per GPU, 1e9 bytes (JSON memory_GB)
  std::optional<double> memory_gib;  // per GPU, 2^30 bytes: what every text shows, as `show`
  std::optional<double> tdp_w;       // the prices file's power_w, else the enforced power limit
  const PriceEntry* price = nullptr;
  std::optional<double> memory_gb_per_price;
  std::optional<double> memory_gib_per_price;
  PowerSources power;
  std::vector<SuiteFigure> suites;
  std::vector<HeadlineFigure> headline;
  std::optional<Figure> composite;  // with --weights
  std::optional<Ratio> composite_ratio;
  // The weights patterns that matched none of this model's benchmarks: the composite is the
  // weighted geometric mean over the others, their weights renormalised to sum to 1.
  std::vector<std::string> composite_missing;
  bool is_reference = false;
};

struct ModelsTable {
  ModelsOptions options;
  std::string reference_model;  // resolved, empty without --reference
  std::vector<ModelRow> rows;
  // Weights patterns that matched no benchmark of any model (each warned by the CLI).
  std::vector<WeightEntry> unmatched_weights;
};

// Builds the table. Throws Error(bad_input) when --reference matches no model or several.
ModelsTable build_models(const Observations& obs, const ModelsOptions& options);

// "1.42x faster [1.30, 1.55]" wording for a ratio (neutral: faster/slower, never regression).
std::string ratio_wording(const LogEstimate& ratio, double confidence);

}  // namespace gpubench::compare
