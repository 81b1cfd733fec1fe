// Internal to results/: Ingester, the rows one suite run's document becomes (benchmarks, metrics,
// samples in multi-row inserts, invalid values); defined in ingest_store.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "results/ingest/ingest_gpu.hpp"
#include "results/model.hpp"
#include "results/schema/series_medians.hpp"
#include "results/sqlite/sqlite.hpp"

namespace gpubench::results::detail {

// Hashes std::string and std::string_view alike, so maps keyed by std::string are searched with
// a view (no string built per lookup).
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

struct MetricDecl {
  std::string unit;
  Direction direction = Direction::unknown;
  std::string description;
};

class Ingester {
 public:
  Ingester(Database& db, int64_t suite_run_id);

  void declare(const std::string& name, MetricDecl decl) { m_declared[name] = std::move(decl); }
  bool has_declarations() const { return !m_declared.empty(); }

  // A benchmark's row, and the device its name gives ("gemm/.../device:1"; GPU suites name it
  // there): the sample's device unless a counter, key or label says otherwise.
  struct BenchmarkRef {
    int64_t id = 0;
    std::optional<int64_t> name_device;
  };

  BenchmarkRef benchmark(std::string_view name_view, const std::string& default_suite);

  // The benchmarks row of a name first seen in this document (stored when new).
  BenchmarkRef store_benchmark(const std::string& name, const std::string& default_suite);

  // 0 when the name is not stored.
  int64_t select_benchmark(const std::string& name);

  // A new benchmark's parameters, in one statement (one per parameter count).
  void insert_params(int64_t id, const std::vector<Param>& params);

  int64_t metric_id(std::string_view name_view);

  // The gpu_devices row of the GPU a suite named (results/ingest/ingest_gpu.hpp).
  int64_t gpu_device(const std::string& uuid, const std::string& pci_bus_id);

  struct SampleState {
    int64_t benchmark = 0;
    std::optional<int64_t> device_index;
    std::optional<int64_t> gpu_device;
    std::optional<int64_t> repetition;
    std::string kind;
    std::optional<int64_t> iterations;
    std::optional<int64_t> threads;
    std::optional<int64_t> throttled;
    std::optional<double> sm_clock_mhz;
    std::optional<double> temperature_c;
    std::optional<double> power_w;
    std::optional<int64_t> throttle_reasons;
    std::optional<int64_t> power_limited;
    std::optional<int64_t> thermal_or_hw_slowdown;
    std::optional<int64_t> clock_below_expected;
    std::optional<double> window_start_s;
    std::optional<double> window_end_s;
  };

  // The state the next insert_sample() calls store their samples with (one entry's), copied
  // once for all of them.
  void begin_samples(const SampleState& s);
  // Samples are buffered and inserted k_batch rows per statement: one multi-row INSERT costs
  // about what one single-row INSERT does, so a large import spends its time storing, not
  // starting statements. flush() stores the rest (before anything reads the samples back).
  void insert_sample(int64_t metric, double value);

  void flush();

  int64_t samples() const { return m_samples; }
  // Stores the pending samples and the suite run's series medians
  // (results/schema/series_medians.hpp).
  void finish();

  // A value that cannot be a sample (NaN, infinite, a negative time): kept with the reason in
  // invalid_samples, never in statistics.
  void insert_invalid(const SampleState& s, const std::string& metric, const std::string& raw,
                      const std::string& reason);
  int64_t invalid() const { return m_invalid; }

 private:
  static constexpr size_t k_batch = 64;
  static constexpr int k_columns = 20;
  // The first k_narrow_columns columns: a sample without a state (most of them, and every
  // sample of a foreign file) leaves the rest NULL, and a batch of such samples binds only these.
  static constexpr int k_narrow_columns = 10;

  static std::string insert_samples_sql(size_t rows, int columns);

  static bool has_state(const SampleState& s);

  struct Row {
    int64_t metric = 0;
    double value = 0;
    size_t state = 0;  // in m_states
  };

  // Binds `rows` pending rows from `first` into `st`, a statement of `columns` columns a row
  // (k_columns, or the first k_narrow_columns when no row has a state). The kinds are bound
  // without a copy: m_states holds them until the statement has run.
  void bind_rows(Statement& st, int columns, size_t rows, size_t first);

  std::vector<Row> m_pending;
  std::vector<SampleState> m_states;  // of the pending samples, then the current entry's
  MedianAccumulator m_medians;
  Database& m_db;
  int64_t m_suite_run;
  int64_t m_run = 0;
  Statement m_insert_sample;
  Statement m_insert_batch;
  Statement m_insert_narrow;
  Statement m_insert_benchmark;
  Statement m_select_benchmark;
  std::vector<std::unique_ptr<Statement>> m_insert_params;  // by parameter count - 1
  std::string m_last_benchmark_name;
  BenchmarkRef m_last_benchmark;
  bool m_expect_stored = false;
  Statement m_insert_invalid;
  int64_t m_samples = 0;
  int64_t m_invalid = 0;
  std::unordered_map<std::string, MetricDecl> m_declared;
  std::unordered_map<std::string, BenchmarkRef, StringHash, std::equal_to<>> m_benchmarks;
  // Bytes m_benchmarks holds, about; cleared past k_benchmark_cache_bytes (store_benchmark).
  std::size_t m_benchmark_bytes = 0;
  static constexpr std::size_t k_benchmark_cache_bytes = std::size_t{32} << 20;
  std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>> m_metrics;
  static constexpr std::size_t k_metric_cache = 32;
  std::vector<std::pair<std::string, int64_t>> m_metric_cache;
  GpuResolver m_gpus{m_db};
};

}  // namespace gpubench::results::detail
