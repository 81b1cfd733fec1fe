// Ingest of Google Benchmark JSON output (any reporter version from 1.5 on) into the store.
//
// One benchmark entry becomes one sample per metric: real_time and cpu_time (converted to ns),
// then every user counter. Iteration rows are samples with kind 'iteration' and their
// repetition index; aggregate rows are samples with kind = aggregate_name, and a benchmark with
// only aggregate rows is stored as such (results/aggregates.hpp). Errors and skips are
// outcomes, not samples. Everything happens in one transaction with statements prepared once
// and benchmark/metric ids cached, so a million samples take a few seconds.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>

#include "results/aggregates.hpp"
#include "results/ingest.hpp"
#include "results/ingest_gpu.hpp"
#include "results/ingest_stream.hpp"
#include "results/metric_roles.hpp"
#include "results/series_medians.hpp"
#include "results/sqlite.hpp"
#include "results/store.hpp"
#include "results/store_detail.hpp"
#include "util/error.hpp"
#include "util/sample_state.hpp"
#include "util/strings.hpp"

namespace gpubench::results {

using detail::MedianAccumulator;
using nlohmann::json;

namespace {

// Keys of a benchmark entry that are not user counters, and where EntryFields keeps them.
enum Meta : std::size_t {
  k_name,
  k_family_index,
  k_per_family_instance_index,
  k_run_name,
  k_run_type,
  k_repetitions,
  k_repetition_index,
  k_threads,
  k_iterations,
  k_real_time,
  k_cpu_time,
  k_time_unit,
  k_aggregate_name,
  k_aggregate_unit,
  k_error_occurred,
  k_error_message,
  k_skipped,
  k_skip_message,
  k_label,
  k_big_o,
  k_device_index,
  k_gpu_uuid,
  k_meta_count
};
constexpr std::string_view k_meta_keys[k_meta_count] = {"name",
                                                        "family_index",
                                                        "per_family_instance_index",
                                                        "run_name",
                                                        "run_type",
                                                        "repetitions",
                                                        "repetition_index",
                                                        "threads",
                                                        "iterations",
                                                        "real_time",
                                                        "cpu_time",
                                                        "time_unit",
                                                        "aggregate_name",
                                                        "aggregate_unit",
                                                        "error_occurred",
                                                        "error_message",
                                                        "skipped",
                                                        "skip_message",
                                                        "label",
                                                        "big_o",
                                                        "device_index",
                                                        "gpu_uuid"};

// k_meta_count when `key` is a user counter's.
std::size_t meta_index(std::string_view key) {
  for (std::size_t k = 0; k < k_meta_count; ++k) {
    if (k_meta_keys[k].size() == key.size() && k_meta_keys[k] == key) return k;
  }
  return k_meta_count;
}

// An entry's members sorted out in one walk over them (one walk costs less than a lookup per
// field): the meta members by Meta index (null when absent), and every other member in name
// order. A key given twice counts with its last value, as in nlohmann's documents.
struct EntryFields {
  const json* meta[k_meta_count] = {};
  std::vector<std::pair<std::string_view, const json*>> others;

  // A document's object (a std::map: in name order, each key once).
  void read(const json& e) {
    start();
    for (auto it = e.begin(); it != e.end(); ++it) add(it.key(), &*it);
  }
  // A streamed entry's members, in file order.
  void read(const StreamedEntry& e) {
    start();
    for (std::size_t k = 0; k < e.size(); ++k) add(e.key(k), &e.value(k));
    if (others.size() > 1) {
      std::stable_sort(others.begin(), others.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      std::size_t kept = 0;
      for (std::size_t k = 0; k < others.size(); ++k) {
        if (k + 1 < others.size() && others[k + 1].first == others[k].first) continue;
        others[kept++] = others[k];  // the last of a key given twice
      }
      others.resize(kept);
    }
  }
  const json* operator[](Meta k) const { return meta[k]; }

 private:
  void start() {
    std::fill(std::begin(meta), std::end(meta), nullptr);
    others.clear();
  }
  void add(std::string_view key, const json* value) {
    const std::size_t k = meta_index(key);
    if (k == k_meta_count) {
      others.emplace_back(key, value);
    } else {
      meta[k] = value;
    }
  }
};

// Hashes std::string and std::string_view alike, so maps keyed by std::string are searched with
// a view (no string built per lookup).
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Counters a gpubench suite reports per sample as the state it ran under (METHODOLOGY rule 5)
// fill sample columns instead of becoming metrics: util/sample_state.hpp names them, case-exact.
// Only for files that declare gpubench.metrics: in a foreign file they are ordinary counters.

struct MetricDecl {
  std::string unit;
  Direction direction = Direction::unknown;
  std::string description;
};

[[noreturn]] void not_gb(const std::string& why) {
  throw bad_input("cannot ingest the JSON", why,
                  "give the output of a Google Benchmark binary run with "
                  "--benchmark_format=json or --benchmark_out=FILE");
}

const char* type_name(const json& j) {
  return j.type_name();
}

// The declared metrics from context["gpubench.metrics"] (a JSON array or a string holding one),
// in declaration order.
std::vector<std::pair<std::string, MetricDecl>> declared_metrics(const json& context) {
  std::vector<std::pair<std::string, MetricDecl>> out;
  auto it = context.find("gpubench.metrics");
  if (it == context.end()) return out;
  json arr = *it;
  if (arr.is_string()) {
    arr = json::parse(arr.get<std::string>(), nullptr, false);
    if (arr.is_discarded()) not_gb("context 'gpubench.metrics' is a string that is not JSON");
  }
  if (!arr.is_array()) {
    not_gb(std::string("context 'gpubench.metrics' is a ") + type_name(arr) + ", not an array");
  }
  for (const json& m : arr) {
    if (!m.is_object() || !m.contains("name") || !m["name"].is_string()) {
      not_gb("an entry of context 'gpubench.metrics' has no string 'name'");
    }
    MetricDecl d;
    d.unit = m.value("unit", std::string());
    d.direction = direction_from_string(m.value("direction", std::string("unknown")))
                      .value_or(Direction::unknown);
    d.description = m.value("description", std::string());
    out.emplace_back(m["name"].get<std::string>(), std::move(d));
  }
  return out;
}

// A member that is not a meta key is a counter, and a counter is a number (or Google Benchmark's
// "NaN"/"inf" strings, kept as invalid values). Anything else ([[1]], "fast", null, true) is
// refused: dropping it would store the benchmark as if the counter had never been reported.
[[noreturn]] void not_a_counter(size_t entry, std::string_view benchmark, std::string_view key,
                                const json& value) {
  std::string shown = value.dump();
  if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
  throw bad_input("cannot ingest the JSON",
                  "benchmarks[" + std::to_string(entry) + "] ('" + std::string(benchmark) +
                      "'): counter '" + std::string(key) + "' is " + shown + " (" +
                      value.type_name() + "), not a number",
                  "fix the value or remove the counter from the file; gpubench refuses a value "
                  "rather than drop it");
}

double time_unit_to_ns(const std::string& unit, size_t entry) {
  if (unit == "ns") return 1.0;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  not_gb("benchmarks[" + std::to_string(entry) + "] has unknown time_unit '" + unit + "'");
}

// "device_index=1,gpu_uuid=GPU-..." style labels (',', ';' or ' ' separated).
void parse_label(const std::string& label, std::optional<int64_t>& device, std::string& gpu_uuid) {
  std::string token;
  auto flush = [&] {
    const size_t eq = token.find('=');
    if (eq != std::string::npos) {
      const std::string key(trim(token.substr(0, eq)));
      const std::string value(trim(token.substr(eq + 1)));
      if (key == "device_index" && !device) {
        if (auto v = parse_int(value)) device = *v;
      } else if (key == "gpu_uuid" && gpu_uuid.empty()) {
        gpu_uuid = value;
      }
    }
    token.clear();
  };
  for (char c : label) {
    if (c == ',' || c == ';' || c == ' ') {
      flush();
    } else {
      token += c;
    }
  }
  flush();
}

class Ingester {
 public:
  Ingester(Database& db, int64_t suite_run_id)
      : m_db(db),
        m_suite_run(suite_run_id),
        m_insert_sample(db.prepare(insert_samples_sql(1, k_columns))),
        m_insert_batch(db.prepare(insert_samples_sql(k_batch, k_columns))),
        m_insert_narrow(db.prepare(insert_samples_sql(k_batch, k_narrow_columns))),
        m_insert_benchmark(db.prepare(
            "INSERT INTO benchmarks(name, suite, case_name, params) VALUES (?1, ?2, ?3, ?4) "
            "ON CONFLICT(name) DO NOTHING")),
        m_select_benchmark(db.prepare("SELECT id FROM benchmarks WHERE name = ?1")),
        m_insert_invalid(db.prepare(
            "INSERT INTO invalid_samples(suite_run_id, benchmark_id, metric, kind, repetition, "
            "device_index, raw, reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")) {
    Statement st = db.prepare("SELECT run_id FROM suite_runs WHERE id = ?1");
    st.bind(1, suite_run_id);
    if (!st.step()) {
      throw bad_input("unknown suite run id " + std::to_string(suite_run_id),
                      "database '" + db.path().string() + "' has no such suite run",
                      "record the suite run with add_suite_run first");
    }
    m_run = st.column_int64(0);
    for (Statement* insert : {&m_insert_sample, &m_insert_batch, &m_insert_narrow}) {
      insert->bind(1, m_suite_run);
    }
    m_gpus.set_run(m_run);
  }

  void declare(const std::string& name, MetricDecl decl) { m_declared[name] = std::move(decl); }
  bool has_declarations() const { return !m_declared.empty(); }

  // A benchmark's row, and the device its name gives ("gemm/.../device:1"; GPU suites name it
  // there): the sample's device unless a counter, key or label says otherwise.
  struct BenchmarkRef {
    int64_t id = 0;
    std::optional<int64_t> name_device;
  };

  BenchmarkRef benchmark(std::string_view name_view, const std::string& default_suite) {
    // The rows of one benchmark come together: the last one answers most lookups.
    if (m_last_benchmark.id != 0 && name_view == m_last_benchmark_name) return m_last_benchmark;
    if (auto it = m_benchmarks.find(name_view); it != m_benchmarks.end()) {
      m_last_benchmark = it->second;
    } else {
      m_last_benchmark = store_benchmark(std::string(name_view), default_suite);
    }
    m_last_benchmark_name = name_view;
    return m_last_benchmark;
  }

  // The benchmarks row of a name first seen in this document (stored when new).
  BenchmarkRef store_benchmark(const std::string& name, const std::string& default_suite) {
    const ParsedName parsed = parse_benchmark_name(name, default_suite);
    // A database that holds this file's benchmarks already (a nightly run of the same sweep)
    // answers with a SELECT, a new name needs the INSERT: try first what the last name needed.
    int64_t id = m_expect_stored ? select_benchmark(name) : 0;
    bool inserted = false;
    if (id == 0) {
      json params = json::object();
      for (const Param& p : parsed.params) {
        params[p.key] = p.number ? json(*p.number) : json(p.text);
      }
      Statement& ins = m_insert_benchmark;
      ins.bind(1, name).bind(2, parsed.suite).bind(3, parsed.case_name).bind(4, params.dump());
      ins.run();
      inserted = m_db.changes() > 0;
      id = inserted ? m_db.last_insert_rowid() : select_benchmark(name);
    }
    m_expect_stored = !inserted;
    if (inserted) insert_params(id, parsed.params);
    BenchmarkRef ref{id, std::nullopt};
    for (const Param& p : parsed.params) {
      if (p.key == "device" && p.number && *p.number >= 0) {
        ref.name_device = static_cast<int64_t>(*p.number);
        break;
      }
    }
    m_benchmarks.emplace(name, ref);
    return ref;
  }

  // 0 when the name is not stored.
  int64_t select_benchmark(const std::string& name) {
    Statement& sel = m_select_benchmark;
    sel.bind(1, name);
    const int64_t id = sel.step() ? sel.column_int64(0) : 0;
    sel.reset();
    return id;
  }

  // A new benchmark's parameters, in one statement (one per parameter count).
  void insert_params(int64_t id, const std::vector<Param>& params) {
    if (params.empty()) return;
    if (m_insert_params.size() < params.size()) m_insert_params.resize(params.size());
    std::unique_ptr<Statement>& st = m_insert_params[params.size() - 1];
    if (!st) {
      std::string sql =
          "INSERT INTO benchmark_params(benchmark_id, position, key, text, number) VALUES ";
      for (size_t i = 0; i < params.size(); ++i) sql += i == 0 ? "(?,?,?,?,?)" : ",(?,?,?,?,?)";
      st = std::make_unique<Statement>(m_db.prepare(sql));
    }
    for (size_t i = 0; i < params.size(); ++i) {
      const int b = static_cast<int>(i) * 5;
      st->bind(b + 1, id).bind(b + 2, static_cast<int64_t>(i)).bind(b + 3, params[i].key);
      st->bind(b + 4, params[i].text).bind(b + 5, params[i].number);
    }
    st->run();
  }

  int64_t metric_id(std::string_view name_view) {
    // The few metrics of a file, searched without hashing (one lookup per sample).
    for (const auto& [known, id] : m_metric_cache) {
      if (known.size() == name_view.size() && known == name_view) return id;
    }
    if (auto it = m_metrics.find(name_view); it != m_metrics.end()) return it->second;
    const std::string name(name_view);
    MetricDecl decl;
    if (auto d = m_declared.find(name); d != m_declared.end()) {
      decl = d->second;
    } else if (name == "real_time" || name == "cpu_time") {
      decl = {"ns", Direction::lower, "Google Benchmark time per iteration"};
    } else if (name == "bytes_per_second") {
      decl = {"B/s", Direction::higher, "Google Benchmark SetBytesProcessed rate"};
    } else if (name == "items_per_second") {
      decl = {"items/s", Direction::higher, "Google Benchmark SetItemsProcessed rate"};
    }
    // A metric first stored with direction unknown learns it from a later declaration.
    Statement ins = m_db.prepare(
        "INSERT INTO metrics(name, unit, direction, description) VALUES (?1, ?2, ?3, ?4) "
        "ON CONFLICT(name, unit) DO UPDATE SET direction = excluded.direction, "
        "description = excluded.description "
        "WHERE metrics.direction = 'unknown' AND excluded.direction <> 'unknown'");
    ins.bind(1, name).bind(2, decl.unit).bind(3, to_string(decl.direction));
    ins.bind(4, decl.description).run();
    Statement sel = m_db.prepare("SELECT id FROM metrics WHERE name = ?1 AND unit = ?2");
    sel.bind(1, name).bind(2, decl.unit);
    sel.step();
    const int64_t id = sel.column_int64(0);
    m_metrics.emplace(name, id);
    if (m_metric_cache.size() < k_metric_cache) m_metric_cache.emplace_back(name, id);
    return id;
  }

  // The gpu_devices row of the GPU a suite named (results/ingest_gpu.hpp).
  int64_t gpu_device(const std::string& uuid, const std::string& pci_bus_id) {
    return m_gpus.find(uuid, pci_bus_id);
  }

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
  void begin_samples(const SampleState& s) {
    const bool in_use = !m_pending.empty() && m_pending.back().state + 1 == m_states.size();
    if (m_states.empty() || in_use) {
      m_states.push_back(s);
    } else {
      m_states.back() = s;  // no pending sample has the previous one
    }
  }
  // Samples are buffered and inserted k_batch rows per statement: one multi-row INSERT costs
  // about what one single-row INSERT does, so a large import spends its time storing, not
  // starting statements. flush() stores the rest (before anything reads the samples back).
  void insert_sample(int64_t metric, double value) {
    const SampleState& s = m_states.back();
    m_pending.push_back(Row{metric, value, m_states.size() - 1});
    if (s.kind == "iteration" && s.throttled.value_or(0) == 0) {
      m_medians.add(s.benchmark, metric, s.device_index.value_or(-1), value);
    }
    if (m_pending.size() == k_batch) flush();
    ++m_samples;
  }

  void flush() {
    if (m_pending.size() == k_batch) {
      // Every state in m_states belongs to a pending sample.
      if (std::none_of(m_states.begin(), m_states.end(), has_state)) {
        bind_rows(m_insert_narrow, k_narrow_columns, k_batch);
      } else {
        bind_rows(m_insert_batch, k_columns, k_batch);
      }
    } else {
      for (size_t i = 0; i < m_pending.size(); ++i) bind_rows(m_insert_sample, k_columns, 1, i);
    }
    m_pending.clear();
    // Only the current entry's state can be used by samples still to come.
    if (m_states.size() > 1) {
      m_states.front() = std::move(m_states.back());
      m_states.resize(1);
    }
  }

  int64_t samples() const { return m_samples; }
  // Stores the pending samples and the suite run's series medians (results/series_medians.hpp).
  void finish() {
    flush();
    m_medians.store(m_db, m_suite_run);
  }

  // A value that cannot be a sample (NaN, infinite, a negative time): kept with the reason in
  // invalid_samples, never in statistics.
  void insert_invalid(const SampleState& s, const std::string& metric, const std::string& raw,
                      const std::string& reason) {
    Statement& st = m_insert_invalid;
    st.bind(1, m_suite_run).bind(2, s.benchmark).bind(3, metric).bind(4, s.kind);
    st.bind(5, s.repetition).bind(6, s.device_index).bind(7, raw).bind(8, reason);
    st.run();
    ++m_invalid;
  }
  int64_t invalid() const { return m_invalid; }

 private:
  static constexpr size_t k_batch = 64;
  static constexpr int k_columns = 20;
  // The first k_narrow_columns columns: a sample without a state (most of them, and every
  // sample of a foreign file) leaves the rest NULL, and a batch of such samples binds only these.
  static constexpr int k_narrow_columns = 10;

  static std::string insert_samples_sql(size_t rows, int columns) {
    std::string sql = "INSERT INTO samples(suite_run_id, benchmark_id, metric_id, device_index, "
                      "gpu_device_id, repetition, kind, value, iterations, threads";
    if (columns == k_columns) {
      sql += ", throttled, sm_clock_mhz, temperature_c, power_w, throttle_reasons, "
             "power_limited, thermal_or_hw_slowdown, clock_below_expected, window_start_s, "
             "window_end_s";
    }
    // ?1 is the suite run in every row, bound once (bindings outlive run()); each row's other
    // columns take the next numbers.
    sql += ") VALUES ";
    for (size_t r = 0; r < rows; ++r) {
      sql += r == 0 ? "(?1" : ", (?1";
      for (int c = 1; c < columns; ++c) sql += ", ?";
      sql += ")";
    }
    return sql;
  }

  static bool has_state(const SampleState& s) {
    return s.throttled || s.sm_clock_mhz || s.temperature_c || s.power_w || s.throttle_reasons ||
           s.power_limited || s.thermal_or_hw_slowdown || s.clock_below_expected ||
           s.window_start_s || s.window_end_s;
  }

  struct Row {
    int64_t metric = 0;
    double value = 0;
    size_t state = 0;  // in m_states
  };

  // Binds `rows` pending rows from `first` into `st`, a statement of `columns` columns a row
  // (k_columns, or the first k_narrow_columns when no row has a state), and runs it. The kinds
  // are bound without a copy: m_states holds them until the statement has run.
  void bind_rows(Statement& st, int columns, size_t rows, size_t first = 0) {
    for (size_t r = 0; r < rows; ++r) {
      const Row& row = m_pending[first + r];
      const SampleState& s = m_states[row.state];
      const int b = static_cast<int>(r) * (columns - 1);
      st.bind(b + 2, s.benchmark).bind(b + 3, row.metric);
      st.bind(b + 4, s.device_index).bind(b + 5, s.gpu_device).bind(b + 6, s.repetition);
      st.bind_static(b + 7, s.kind).bind(b + 8, row.value).bind(b + 9, s.iterations);
      st.bind(b + 10, s.threads);
      if (columns == k_narrow_columns) continue;
      st.bind(b + 11, s.throttled).bind(b + 12, s.sm_clock_mhz);
      st.bind(b + 13, s.temperature_c).bind(b + 14, s.power_w).bind(b + 15, s.throttle_reasons);
      st.bind(b + 16, s.power_limited).bind(b + 17, s.thermal_or_hw_slowdown);
      st.bind(b + 18, s.clock_below_expected).bind(b + 19, s.window_start_s);
      st.bind(b + 20, s.window_end_s);
    }
    st.run();
  }

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
  std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>> m_metrics;
  static constexpr std::size_t k_metric_cache = 32;
  std::vector<std::pair<std::string, int64_t>> m_metric_cache;
  GpuResolver m_gpus{m_db};
};

std::optional<int64_t> int_field(const json* it, std::string_view key, size_t entry) {
  if (it == nullptr || it->is_null()) return std::nullopt;
  auto where = [&] { return "benchmarks[" + std::to_string(entry) + "]." + std::string(key); };
  if (!it->is_number()) {
    not_gb(where() + " is a " + type_name(*it) + ", not a number");
  }
  if (it->is_number_unsigned() &&
      it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    not_gb(where() + " is " + it->dump() + ", out of range for a whole number");
  }
  if (it->is_number_float()) {
    const double v = it->get<double>();
    // 2^63 is the first double past int64's range.
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0) || v != std::trunc(v)) {
      not_gb(where() + " is " + it->dump() + ", not a whole number in range");
    }
    return static_cast<int64_t>(v);
  }
  return it->get<int64_t>();
}

// "NaN", "-Infinity", "-5500000": a rejected value as people read it.
std::string raw_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// The string member (empty when absent or null); a view into the entry.
std::string_view string_field(const json* it, std::string_view key, size_t entry) {
  if (it == nullptr || it->is_null()) return {};
  if (!it->is_string()) {
    not_gb("benchmarks[" + std::to_string(entry) + "]." + std::string(key) + " is a " +
           type_name(*it) + ", not a string");
  }
  return it->get_ref<const std::string&>();
}

bool bool_field(const json* it) {
  return it != nullptr && it->is_boolean() && it->get<bool>();
}

struct Outcome {
  int64_t position = 0;
  BenchmarkStatus status = BenchmarkStatus::ok;
  std::string message;
  std::string complexity;  // big_o of its BigO row (results/aggregates.hpp)
  int64_t next_repetition = 0;   // for files that do not number them
  std::optional<int64_t> device;  // the device of its rows
};

int severity(BenchmarkStatus s) {
  return s == BenchmarkStatus::error ? 2 : s == BenchmarkStatus::skipped ? 1 : 0;
}

}  // namespace

IngestSummary Store::ingest_benchmark_json(int64_t suite_run_id, const json& doc,
                                           const std::string& default_suite) {
  Database& db = *m_db;
  Transaction tx(db);
  IngestSummary summary = detail::ingest_document(db, suite_run_id, doc, default_suite);
  tx.commit();
  return summary;
}

namespace {
// What one entry says, read without the database (DocumentIngest::prepare): on the parsing
// thread of a streamed import, while the entries before it are stored.
struct PreparedEntry final : EntryWork {
  std::exception_ptr problem;  // what is wrong with the entry; add() throws it
  std::string identity;        // the benchmark's name
  bool aggregate = false;
  BenchmarkStatus status = BenchmarkStatus::ok;
  std::string message;
  std::string gpu_uuid;  // a UUID the entry names
  std::string big_o;     // the complexity a BigO row names ("N", "NlgN")
  // Everything but the benchmark, GPU and counted repetition, which need the database or the
  // entries before this one.
  Ingester::SampleState state;
  struct Value {
    std::string metric;
    double value = 0;
    bool valid = true;
    std::string raw, reason;  // of an invalid value
  };
  std::vector<Value> values;  // in storing order
};
}  // namespace

// One document's benchmarks, stored entry by entry (whole documents and streamed files alike).
struct detail::DocumentIngest::State {
  State(Database& db_, int64_t suite_run_id_, const json& context, const std::string& default_suite)
      : db(db_),
        suite_run_id(suite_run_id_),
        suite(suite_of(context, default_suite)),
        declared(declared_metrics(context)),
        devices(suite_devices(context)),
        in(db_, suite_run_id_) {
    for (const auto& [name, decl] : declared) in.declare(name, decl);
    gpubench_file = in.has_declarations();
    {
      Statement st = db.prepare("UPDATE suite_runs SET context = ?1 WHERE id = ?2");
      st.bind(1, context.dump()).bind(2, suite_run_id).run();
    }
    record_metric_roles(db, suite_run_id, context);
  }

  static std::string suite_of(const json& context, const std::string& default_suite) {
    if (auto s = context.find("gpubench.suite"); s != context.end() && s->is_string()) {
      return s->get<std::string>();
    }
    return default_suite;
  }

  // Reads only what the constructor fixed (declared, gpubench_file): safe on another thread.
  void read(const EntryFields& f, size_t i, PreparedEntry& p) const;
  // Throws bad_input for an element that is not an object.
  static void expect_object(bool object, const char* type, size_t i) {
    if (!object) {
      not_gb("benchmarks[" + std::to_string(i) + "] is a " + type + ", not an object");
    }
  }
  void add(PreparedEntry& p);
  IngestSummary finish();

  Database& db;
  int64_t suite_run_id;
  std::string suite;
  std::vector<std::pair<std::string, MetricDecl>> declared;
  std::unordered_map<int64_t, SuiteDevice> devices;
  Ingester in;
  bool gpubench_file = false;
  std::unordered_map<int64_t, Outcome> outcomes;
  std::vector<int64_t> order;  // benchmark ids in order of first appearance
};

void detail::DocumentIngest::State::read(const EntryFields& f, size_t i, PreparedEntry& p) const {
  auto where = [i] { return "benchmarks[" + std::to_string(i) + "]"; };
  std::string_view identity = string_field(f[k_run_name], "run_name", i);
  if (identity.empty()) identity = string_field(f[k_name], "name", i);
  if (identity.empty()) not_gb(where() + " has no 'name'");
  const std::string_view run_type = string_field(f[k_run_type], "run_type", i);
  const bool aggregate = run_type == "aggregate";
  const std::string_view aggregate_name = string_field(f[k_aggregate_name], "aggregate_name", i);
  if (aggregate && !aggregate_name.empty()) {
    // "<name>_<aggregate_name>"
    if (identity.size() > aggregate_name.size() + 1 && identity.ends_with(aggregate_name) &&
        identity[identity.size() - aggregate_name.size() - 1] == '_') {
      identity.remove_suffix(aggregate_name.size() + 1);
    }
  }
  p.identity = identity;
  p.aggregate = aggregate;

  // Errors and skips: GB reports them with zero times; they are outcomes, not samples.
  if (bool_field(f[k_error_occurred])) {
    p.message = string_field(f[k_error_message], "error_message", i);
    p.status = BenchmarkStatus::error;
    if (p.message.rfind("skipped:", 0) == 0) {  // gpubench::suite::skip() on GB 1.7
      p.status = BenchmarkStatus::skipped;
      p.message = std::string(trim(p.message.substr(8)));
    }
  } else if (bool_field(f[k_skipped])) {  // Google Benchmark >= 1.8
    p.status = BenchmarkStatus::skipped;
    p.message = string_field(f[k_skip_message], "skip_message", i);
  }
  if (p.status != BenchmarkStatus::ok) return;

  // Device: a "device_index" counter or key, a "gpu_uuid" key, or either in the label.
  // In aggregate rows a device_index counter is itself aggregated (its stddev is 0, its cv
  // NaN), so only mean/median rows may name the device; the others inherit it (add()).
  Ingester::SampleState& s = p.state;
  s.kind = aggregate ? (aggregate_name.empty() ? std::string("aggregate")
                                               : std::string(aggregate_name))
                     : std::string("iteration");
  const bool central = !aggregate || s.kind == "mean" || s.kind == "median";
  if (central) s.device_index = int_field(f[k_device_index], "device_index", i);
  p.gpu_uuid = string_field(f[k_gpu_uuid], "gpu_uuid", i);
  if (const std::string_view label = string_field(f[k_label], "label", i); !label.empty()) {
    parse_label(std::string(label), s.device_index, p.gpu_uuid);
  }
  s.iterations = int_field(f[k_iterations], "iterations", i);
  s.threads = int_field(f[k_threads], "threads", i);
  if (!aggregate) s.repetition = int_field(f[k_repetition_index], "repetition_index", i);

  std::vector<std::pair<std::string_view, double>> counters;
  for (const auto& [key, value_ptr] : f.others) {
    const json& value = *value_ptr;
    const std::optional<double> non_finite =
        value.is_string() ? non_finite_value(value) : std::nullopt;
    if (!value.is_number() && !non_finite) not_a_counter(i, identity, key, value);
    const double v = non_finite ? *non_finite : value.get<double>();
    if (const auto field = sample_state::field_of(key); gpubench_file && field) {
      using sample_state::Field;
      // The stddev of a clock is not a clock; a window is only a repetition's own.
      if (!central || (aggregate && sample_state::is_window(*field))) continue;
      const std::optional<int64_t> flag = v != 0 ? 1 : 0;
      switch (*field) {
        case Field::sm_clock_mhz:
          s.sm_clock_mhz = v;
          break;
        case Field::temperature_c:
          s.temperature_c = v;
          break;
        case Field::power_w:
          s.power_w = v;
          break;
        case Field::throttle_reasons:
          s.throttle_reasons = static_cast<int64_t>(v);
          break;
        case Field::power_limited:
          s.power_limited = flag;
          break;
        case Field::thermal_or_hw_slowdown:
          s.thermal_or_hw_slowdown = flag;
          break;
        case Field::clock_below_expected:
          s.clock_below_expected = flag;
          break;
        case Field::window_start_s:
          s.window_start_s = v;
          break;
        case Field::window_end_s:
          s.window_end_s = v;
          break;
      }
      // `throttled` is the invalid mark: a thermal or hardware slowdown.
      s.throttled = s.thermal_or_hw_slowdown;
      continue;
    }
    counters.emplace_back(key, v);
  }
  // Declared metrics first, in declaration order; then other counters by name.
  std::stable_sort(counters.begin(), counters.end(), [&](const auto& a, const auto& b) {
    auto rank = [&](std::string_view n) {
      for (size_t k = 0; k < declared.size(); ++k) {
        if (declared[k].first == n) return k;
      }
      return declared.size();
    };
    return rank(a.first) < rank(b.first);
  });

  // cv aggregates are ratios; every other time value is in time_unit.
  const bool percentage =
      string_field(f[k_aggregate_unit], "aggregate_unit", i) == "percentage";
  const std::string unit(string_field(f[k_time_unit], "time_unit", i));
  const double scale = percentage ? 1.0 : time_unit_to_ns(unit.empty() ? "ns" : unit, i);
  if (s.kind == "BigO") {
    // A complexity fit's coefficients are times in time_unit, stored in ns like every time.
    p.big_o = string_field(f[k_big_o], "big_o", i);
    for (auto& [key, v] : counters) {
      if (key == "real_coefficient" || key == "cpu_coefficient") v *= scale;
    }
  }
  for (const Meta time : {k_real_time, k_cpu_time}) {
    const std::string key(k_meta_keys[time]);
    const json* t = f[time];
    if (t == nullptr) continue;
    const std::optional<double> non_finite = non_finite_value(*t);
    if (!t->is_number() && !non_finite) {
      not_gb(where() + "." + key + " is a " + type_name(*t) + ", not a number");
    }
    const double raw = non_finite ? *non_finite : t->get<double>();
    const double v = raw * scale;
    if (!std::isfinite(v)) {
      p.values.push_back({key, v, false, raw_text(raw),
                          key + " is " + raw_text(raw) +
                              (std::isfinite(raw) ? " (overflows in ns)" : "")});
    } else if (v < 0) {
      p.values.push_back({key, v, false, raw_text(raw),
                          key + " is negative (" + raw_text(raw) + " " +
                              (unit.empty() ? "ns" : unit) + "); a time cannot be"});
    } else {
      p.values.push_back({key, v, true, {}, {}});
    }
  }
  for (const auto& [key, v] : counters) {
    if (std::isfinite(v)) {
      p.values.push_back({std::string(key), v, true, {}, {}});
    } else {
      p.values.push_back({std::string(key), v, false, raw_text(v),
                          "counter " + std::string(key) + " is " + raw_text(v)});
    }
  }
}

void detail::DocumentIngest::State::add(PreparedEntry& p) {
  if (p.problem) std::rethrow_exception(p.problem);
  Ingester::SampleState& s = p.state;
  const Ingester::BenchmarkRef benchmark = in.benchmark(p.identity, suite);
  s.benchmark = benchmark.id;
  auto [oit, first_seen] = outcomes.try_emplace(s.benchmark);
  Outcome& o = oit->second;
  if (first_seen) {
    o.position = static_cast<int64_t>(order.size());
    order.push_back(s.benchmark);
  }
  if (p.status != BenchmarkStatus::ok) {
    if (severity(p.status) > severity(o.status)) {
      o.status = p.status;
      o.message = p.message;
    }
    return;
  }

  if (!s.device_index) s.device_index = benchmark.name_device;
  if (s.device_index) {
    o.device = s.device_index;
  } else if (p.aggregate && o.device) {
    s.device_index = o.device;
  }
  // The GPU: a UUID the row names, else the one the suite recorded for its CUDA ordinal.
  std::string& gpu_uuid = p.gpu_uuid;
  std::string gpu_pci;
  if (gpu_uuid.empty() && s.device_index) {
    if (auto d = devices.find(*s.device_index); d != devices.end()) {
      gpu_uuid = d->second.uuid;
      gpu_pci = d->second.pci_bus_id;
    }
  }
  if (!gpu_uuid.empty() || !gpu_pci.empty()) s.gpu_device = in.gpu_device(gpu_uuid, gpu_pci);
  if (!p.aggregate) {
    int64_t& next = o.next_repetition;
    if (!s.repetition) s.repetition = next;  // old GB versions: count them
    next = *s.repetition + 1;
  }
  in.begin_samples(s);
  for (const PreparedEntry::Value& v : p.values) {
    if (v.valid) {
      in.insert_sample(in.metric_id(v.metric), v.value);
    } else {
      in.insert_invalid(s, v.metric, v.raw, v.reason);
    }
  }
  if (!p.big_o.empty()) o.complexity = p.big_o;
}

IngestSummary detail::DocumentIngest::State::finish() {
  in.finish();
  IngestSummary summary;
  // k_outcome_batch rows per statement (each benchmark once, so no two rows of one statement
  // conflict; a row already stored for this suite run is updated).
  constexpr size_t k_outcome_batch = 64;
  auto outcome_sql = [](size_t rows) {
    std::string sql =
        "INSERT INTO benchmark_outcomes(suite_run_id, benchmark_id, position, status, message) "
        "VALUES ";
    for (size_t r = 0; r < rows; ++r) sql += r == 0 ? "(?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?)";
    return sql +
           " ON CONFLICT(suite_run_id, benchmark_id) DO UPDATE SET status = excluded.status, "
           "message = excluded.message";
  };
  Statement batch = db.prepare(outcome_sql(k_outcome_batch));
  Statement one = db.prepare(outcome_sql(1));
  for (size_t first = 0; first < order.size(); first += k_outcome_batch) {
    const size_t rows = std::min(k_outcome_batch, order.size() - first);
    for (size_t done = 0; done < rows;) {
      Statement& st = rows == k_outcome_batch ? batch : one;
      const size_t n = rows == k_outcome_batch ? rows : 1;
      for (size_t r = 0; r < n; ++r) {
        const int64_t bench = order[first + done + r];
        const Outcome& o = outcomes[bench];
        const int p = static_cast<int>(r) * 5;
        st.bind(p + 1, suite_run_id).bind(p + 2, bench).bind(p + 3, o.position);
        st.bind(p + 4, to_string(o.status)).bind(p + 5, o.message);
        if (o.status == BenchmarkStatus::error) ++summary.errors;
        if (o.status == BenchmarkStatus::skipped) ++summary.skipped;
      }
      st.run();
      done += n;
    }
  }
  // Benchmarks with only aggregate rows are kept as such, never refused (issue 23).
  mark_aggregate_only(db, suite_run_id);
  for (int64_t bench : order) {
    const Outcome& o = outcomes[bench];
    if (!o.complexity.empty()) record_complexity(db, suite_run_id, bench, o.complexity);
  }
  summary.benchmarks = static_cast<int64_t>(order.size());
  summary.samples = in.samples();
  summary.invalid = in.invalid();
  return summary;
}

detail::DocumentIngest::DocumentIngest(Database& db, int64_t suite_run_id, const json& context,
                                       const std::string& default_suite)
    : m(std::make_unique<State>(db, suite_run_id, context, default_suite)) {}
detail::DocumentIngest::~DocumentIngest() = default;
std::unique_ptr<EntryWork> detail::DocumentIngest::prepare(const StreamedEntry& entry,
                                                           size_t index) const {
  auto p = std::make_unique<PreparedEntry>();
  try {
    State::expect_object(entry.is_object(), entry.element().type_name(), index);
    EntryFields f;
    f.read(entry);
    m->read(f, index, *p);
  } catch (...) {
    p->problem = std::current_exception();
  }
  return p;
}
void detail::DocumentIngest::add(const StreamedEntry& entry, size_t index, EntryWork* prepared) {
  if (prepared != nullptr) {
    m->add(static_cast<PreparedEntry&>(*prepared));
    return;
  }
  auto p = prepare(entry, index);
  m->add(static_cast<PreparedEntry&>(*p));
}
void detail::DocumentIngest::add(const json& entry, size_t index) {
  State::expect_object(entry.is_object(), entry.type_name(), index);
  EntryFields f;
  f.read(entry);
  PreparedEntry p;
  m->read(f, index, p);
  m->add(p);
}
IngestSummary detail::DocumentIngest::finish() {
  return m->finish();
}

json detail::document_context(const json& doc) {
  if (!doc.is_object()) not_gb(std::string("the JSON is a ") + type_name(doc) + ", not an object");
  json context = json::object();
  if (auto c = doc.find("context"); c != doc.end()) {
    if (!c->is_object()) not_gb(std::string("'context' is a ") + type_name(*c) + ", not an object");
    context = *c;
  }
  return context;
}

IngestSummary detail::ingest_document(Database& db, int64_t suite_run_id, const json& doc,
                                      const std::string& default_suite) {
  if (!doc.is_object()) not_gb(std::string("the JSON is a ") + type_name(doc) + ", not an object");
  auto bench_it = doc.find("benchmarks");
  if (bench_it == doc.end()) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : doc.items()) keys.push_back("'" + k + "'");
    not_gb("it has no 'benchmarks' array (top-level keys: " +
           (keys.empty() ? std::string("none") : join(keys, ", ")) + ")");
  }
  if (!bench_it->is_array()) {
    not_gb(std::string("'benchmarks' is a ") + type_name(*bench_it) + ", not an array");
  }
  DocumentIngest ingest(db, suite_run_id, document_context(doc), default_suite);
  const json& entries = *bench_it;
  for (size_t i = 0; i < entries.size(); ++i) ingest.add(entries[i], i);
  return ingest.finish();
}

}  // namespace gpubench::results
