// Storing ingested entries: Ingester (ingest_store.hpp), and DocumentIngest::State::add and finish
// with it (samples, invalid values, outcomes, aggregate-only benchmarks, complexity fits).
#include "results/ingest/ingest_store.hpp"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "results/ingest/ingest_detail.hpp"
#include "results/schema/aggregates.hpp"
#include "results/sqlite/multi_row_insert.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "util/error.hpp"

namespace gpubench::results {

using nlohmann::json;

namespace {

int severity(BenchmarkStatus s) {
  return s == BenchmarkStatus::error ? 2 : s == BenchmarkStatus::skipped ? 1 : 0;
}

}  // namespace

namespace detail {

Ingester::Ingester(Database& db, int64_t suite_run_id)
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

Ingester::BenchmarkRef Ingester::benchmark(std::string_view name_view,
                                           const std::string& default_suite) {
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

Ingester::BenchmarkRef Ingester::store_benchmark(const std::string& name,
                                                 const std::string& default_suite) {
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
  // The cache holds names, so it is bounded in bytes: past the bound it starts over, and names
  // not in it are found by the SELECT (the UNIQUE index on name), so memory stays flat however
  // many distinct names a file has.
  if (m_benchmark_bytes + name.size() > k_benchmark_cache_bytes) {
    m_benchmarks.clear();
    m_benchmark_bytes = 0;
  }
  m_benchmarks.emplace(name, ref);
  m_benchmark_bytes += name.size() + sizeof(BenchmarkRef) + 64;  // + the node's own cost
  return ref;
}

int64_t Ingester::select_benchmark(const std::string& name) {
  Statement& sel = m_select_benchmark;
  sel.bind(1, name);
  const int64_t id = sel.step() ? sel.column_int64(0) : 0;
  sel.reset();
  return id;
}

void Ingester::insert_params(int64_t id, const std::vector<Param>& params) {
  if (params.empty()) return;
  if (m_insert_params.size() < params.size()) m_insert_params.resize(params.size());
  std::unique_ptr<Statement>& st = m_insert_params[params.size() - 1];
  constexpr int k_param_columns = 5;
  if (!st) {
    st = std::make_unique<Statement>(m_db.prepare(multi_row_sql(
        "INSERT INTO benchmark_params(benchmark_id, position, key, text, number) VALUES ",
        params.size(), k_param_columns)));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const int b = row_offset(i, k_param_columns);
    st->bind(b + 1, id).bind(b + 2, static_cast<int64_t>(i)).bind(b + 3, params[i].key);
    st->bind(b + 4, params[i].text).bind(b + 5, params[i].number);
  }
  st->run();
}

int64_t Ingester::metric_id(std::string_view name_view) {
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

int64_t Ingester::gpu_device(const std::string& uuid, const std::string& pci_bus_id) {
  return m_gpus.find(uuid, pci_bus_id);
}

void Ingester::begin_samples(const SampleState& s) {
  const bool in_use = !m_pending.empty() && m_pending.back().state + 1 == m_states.size();
  if (m_states.empty() || in_use) {
    m_states.push_back(s);
  } else {
    m_states.back() = s;  // no pending sample has the previous one
  }
}

void Ingester::insert_sample(int64_t metric, double value) {
  const SampleState& s = m_states.back();
  m_pending.push_back(Row{metric, value, m_states.size() - 1});
  if (s.kind == "iteration" && s.throttled.value_or(0) == 0) {
    m_medians.add(s.benchmark, metric, s.device_index.value_or(-1), value);
  }
  if (m_pending.size() == k_batch) flush();
  ++m_samples;
}

void Ingester::flush() {
  // A full buffer is one statement: the narrow one when no pending sample has a state (every
  // state in m_states belongs to a pending sample). What finish() leaves goes row by row.
  const bool narrow =
      m_pending.size() == k_batch && std::none_of(m_states.begin(), m_states.end(), has_state);
  Statement& many = narrow ? m_insert_narrow : m_insert_batch;
  insert_rows(many, m_insert_sample, k_batch, m_pending.size(),
              [&](Statement& st, size_t first, size_t rows) {
                bind_rows(st, &st == &m_insert_narrow ? k_narrow_columns : k_columns, rows, first);
              });
  m_pending.clear();
  // Only the current entry's state can be used by samples still to come.
  if (m_states.size() > 1) {
    m_states.front() = std::move(m_states.back());
    m_states.resize(1);
  }
}

void Ingester::finish() {
  flush();
  m_medians.store(m_db, m_suite_run);
}

void Ingester::insert_invalid(const SampleState& s, const std::string& metric,
                              const std::string& raw, const std::string& reason) {
  Statement& st = m_insert_invalid;
  st.bind(1, m_suite_run).bind(2, s.benchmark).bind(3, metric).bind(4, s.kind);
  st.bind(5, s.repetition).bind(6, s.device_index).bind(7, raw).bind(8, reason);
  st.run();
  ++m_invalid;
}

std::string Ingester::insert_samples_sql(size_t rows, int columns) {
  std::string head =
      "INSERT INTO samples(suite_run_id, benchmark_id, metric_id, device_index, "
      "gpu_device_id, repetition, kind, value, iterations, threads";
  if (columns == k_columns) {
    head +=
        ", throttled, sm_clock_mhz, temperature_c, power_w, throttle_reasons, "
        "power_limited, thermal_or_hw_slowdown, clock_below_expected, window_start_s, "
        "window_end_s";
  }
  // ?1 is the suite run in every row, bound once; each row's other columns take the next numbers.
  head += ") VALUES ";
  return multi_row_sql(head, rows, columns, {}, FirstValue::shared);
}

bool Ingester::has_state(const SampleState& s) {
  return s.throttled || s.sm_clock_mhz || s.temperature_c || s.power_w || s.throttle_reasons ||
         s.power_limited || s.thermal_or_hw_slowdown || s.clock_below_expected ||
         s.window_start_s || s.window_end_s;
}

void Ingester::bind_rows(Statement& st, int columns, size_t rows, size_t first) {
  for (size_t r = 0; r < rows; ++r) {
    const Row& row = m_pending[first + r];
    const SampleState& s = m_states[row.state];
    const int b = row_offset(r, columns, FirstValue::shared);
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
}

}  // namespace detail

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
  if (o.label.empty() && !p.label.empty()) o.label = p.label;
}

IngestSummary detail::DocumentIngest::State::finish() {
  in.finish();
  IngestSummary summary;
  // 64 rows per statement (each benchmark once, so no two rows of one statement conflict; a row
  // already stored for this suite run is updated).
  constexpr size_t k_outcome_batch = 64;
  constexpr int k_outcome_columns = 6;
  auto outcome_sql = [](size_t rows) {
    return multi_row_sql(
        "INSERT INTO benchmark_outcomes(suite_run_id, benchmark_id, position, status, message, "
        "label) VALUES ",
        rows, k_outcome_columns,
        " ON CONFLICT(suite_run_id, benchmark_id) DO UPDATE SET status = excluded.status, "
        "message = excluded.message, label = excluded.label");
  };
  Statement batch = db.prepare(outcome_sql(k_outcome_batch));
  Statement one = db.prepare(outcome_sql(1));
  insert_rows(batch, one, k_outcome_batch, order.size(),
              [&](Statement& st, size_t first, size_t rows) {
                for (size_t r = 0; r < rows; ++r) {
                  const int64_t bench = order[first + r];
                  const Outcome& o = outcomes[bench];
                  const int p = row_offset(r, k_outcome_columns);
                  st.bind(p + 1, suite_run_id).bind(p + 2, bench).bind(p + 3, o.position);
                  st.bind(p + 4, to_string(o.status)).bind(p + 5, o.message);
                  st.bind(p + 6, o.label);
                }
              });
  for (int64_t bench : order) {
    const BenchmarkStatus status = outcomes[bench].status;
    if (status == BenchmarkStatus::error) ++summary.errors;
    if (status == BenchmarkStatus::skipped) ++summary.skipped;
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

}  // namespace gpubench::results
