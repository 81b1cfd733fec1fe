// Store: a run's results, streamed (Store::for_each_result) or collected (Store::get_results).
//
// One ordered pass: benchmark outcomes of the run in output order (index
// benchmark_outcomes_order), each joined to its samples (index samples_suite_run_benchmark, rowid
// order), so SQLite neither sorts nor materialises the samples and this loop holds one
// benchmark's samples at a time. Benchmark names and parameters are read once per benchmark
// (one query each for the whole run, no per-benchmark queries); metrics, GPUs, metric roles and
// telemetry flags once per run.
#include <algorithm>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "util/error.hpp"

namespace gpubench::results {

namespace {

// One benchmark, as stored: read once per run, shared by every row of it.
struct BenchmarkRecord {
  std::string suite, name, case_name;
  std::vector<Param> params;
};

struct OutcomeRecord {
  int64_t suite_run_id = 0;
  int64_t benchmark_id = 0;
  BenchmarkStatus status = BenchmarkStatus::ok;
  std::string message;
  bool aggregate_only = false;
  std::string complexity;
  std::string label;
  const BenchmarkRecord* benchmark = nullptr;
};

struct MetricRecord {
  std::string name, unit;
  Direction direction = Direction::unknown;
};

// The roles one suite run declared (results/metric_roles.hpp); empty: none declared.
using RoleMap = std::map<std::string, MetricRole, std::less<>>;

// One (metric, device index, GPU) series of the benchmark being read.
struct Group {
  int64_t metric_id = 0;
  std::optional<int64_t> device;  // CUDA ordinal; none for host results
  std::optional<int64_t> gpu;     // gpu_devices.id; none when not tied to a GPU
  std::vector<std::pair<int64_t, size_t>> order;  // (repetition, index into row.values)
  ResultRow row;
};

BenchmarkStatus outcome_status(std::string_view text) {
  return text == "error"     ? BenchmarkStatus::error
         : text == "skipped" ? BenchmarkStatus::skipped
                             : BenchmarkStatus::ok;
}

// Everything of a run that is small (per suite run, metric, GPU, benchmark), read up front.
struct RunIndex {
  std::vector<int64_t> suite_runs;
  std::unordered_map<int64_t, BenchmarkRecord> benchmarks;
  std::vector<OutcomeRecord> outcomes;  // in (suite run, position) order
  std::unordered_map<int64_t, MetricRecord> metrics;
  std::unordered_map<int64_t, std::pair<std::string, std::string>> gpus;  // id -> uuid, PCI bus
  std::unordered_map<int64_t, RoleMap> roles;                             // by suite run
  // Telemetry slowdown per (suite run, GPU UUID): 1 seen, 0 not (NULL reasons are left out).
  std::vector<std::pair<std::pair<int64_t, std::string>, int64_t>> telemetry;
};

RunIndex read_run_index(Database& db, int64_t run_id) {
  RunIndex x;
  {
    Statement st = db.prepare("SELECT id FROM suite_runs WHERE run_id = ?1 ORDER BY id");
    st.bind(1, run_id);
    while (st.step()) x.suite_runs.push_back(st.column_int64(0));
  }
  {
    Statement st = db.prepare(R"sql(
SELECT o.suite_run_id, o.benchmark_id, o.status, o.message, b.suite, b.name, b.case_name,
       o.kind = 'aggregate', o.complexity, o.label
FROM suite_runs sr CROSS JOIN benchmark_outcomes o JOIN benchmarks b ON b.id = o.benchmark_id
WHERE sr.run_id = ?1 AND o.suite_run_id = sr.id ORDER BY sr.id, o.position, o.rowid)sql");
    st.bind(1, run_id);
    while (st.step()) {
      OutcomeRecord o;
      o.suite_run_id = st.column_int64(0);
      o.benchmark_id = st.column_int64(1);
      o.status = outcome_status(st.column_view(2));
      o.message = st.column_text(3);
      o.aggregate_only = st.column_int64(7) != 0;
      o.complexity = st.is_null(8) ? std::string() : st.column_text(8);
      o.label = st.column_text(9);
      auto [it, fresh] = x.benchmarks.try_emplace(o.benchmark_id);
      if (fresh) {
        it->second.suite = st.column_text(4);
        it->second.name = st.column_text(5);
        it->second.case_name = st.column_text(6);
      }
      o.benchmark = &it->second;  // unordered_map nodes do not move
      x.outcomes.push_back(std::move(o));
    }
  }
  {
    Statement st = db.prepare(R"sql(
SELECT p.benchmark_id, p.key, p.text, p.number FROM benchmark_params p
WHERE p.benchmark_id IN (SELECT o.benchmark_id FROM benchmark_outcomes o
                         JOIN suite_runs sr ON sr.id = o.suite_run_id WHERE sr.run_id = ?1)
ORDER BY p.benchmark_id, p.position)sql");
    st.bind(1, run_id);
    while (st.step()) {
      auto it = x.benchmarks.find(st.column_int64(0));
      if (it == x.benchmarks.end()) continue;
      it->second.params.push_back(
          Param{st.column_text(1), st.column_text(2), st.column_optional_double(3)});
    }
  }
  // Metrics and GPUs are small tables: read once instead of joined into every sample row.
  {
    Statement st = db.prepare("SELECT id, name, unit, direction FROM metrics");
    while (st.step()) {
      x.metrics[st.column_int64(0)] = {
          st.column_text(1), st.column_text(2),
          direction_from_string(st.column_text(3)).value_or(Direction::unknown)};
    }
  }
  {
    Statement st = db.prepare("SELECT id, uuid, pci_bus_id FROM gpu_devices");
    while (st.step()) x.gpus[st.column_int64(0)] = {st.column_text(1), st.column_text(2)};
  }
  {
    Statement st = db.prepare(R"sql(
SELECT m.suite_run_id, m.metric, m.role FROM suite_run_metric_roles m
JOIN suite_runs sr ON sr.id = m.suite_run_id WHERE sr.run_id = ?1)sql");
    st.bind(1, run_id);
    while (st.step()) {
      x.roles[st.column_int64(0)][st.column_text(1)] =
          metric_role_from_string(st.column_text(2)).value_or(MetricRole::unknown);
    }
  }
  // Joined on the GPU's UUID, never on an index (telemetry rows carry NVML indices, results CUDA
  // ordinals). Telemetry has no per-benchmark times, so the overlap is judged per suite run.
  {
    Statement st = db.prepare(R"sql(
SELECT t.suite_run_id, COALESCE(g.uuid, ''), max((t.throttle_reasons & ?2) != 0)
FROM telemetry t LEFT JOIN gpu_devices g ON g.id = t.gpu_device_id
WHERE t.run_id = ?1 AND t.suite_run_id IS NOT NULL
GROUP BY t.suite_run_id, t.device_index)sql");
    st.bind(1, run_id).bind(2, k_reasons_slowdown);
    while (st.step()) {
      if (st.is_null(2)) continue;
      x.telemetry.push_back({{st.column_int64(0), st.column_text(1)}, st.column_int64(2)});
    }
  }
  return x;
}

// The row's benchmark part (suite, names, params, status, message), reusing `r`'s buffers.
void fill_benchmark(ResultRow& r, const OutcomeRecord& o) {
  r.suite_run_id = o.suite_run_id;
  r.suite = o.benchmark->suite;
  r.benchmark = o.benchmark->name;
  r.case_name = o.benchmark->case_name;
  r.params = o.benchmark->params;
  r.status = o.status;
  r.message = o.message;
  r.aggregate_only = o.aggregate_only;
  r.complexity = o.complexity;
  r.label = o.label;
}

// The parts of a row that depend on its suite run and metric: role and telemetry flag.
void fill_run_facts(ResultRow& r, const RunIndex& x) {
  auto roles = x.roles.find(r.suite_run_id);
  if (roles == x.roles.end() || roles->second.empty()) {
    r.role = MetricRole::unknown;  // no roles declared: every metric counts like a primary one
  } else {
    auto it = roles->second.find(r.metric);
    // A suite that declares roles leaves its undeclared counters secondary.
    r.role = it != roles->second.end() ? it->second : MetricRole::secondary;
  }
  std::optional<int64_t> flag;
  for (const auto& [key, value] : x.telemetry) {
    if (key.first != r.suite_run_id) continue;
    if (r.device_index && (r.gpu_uuid.empty() || key.second != r.gpu_uuid)) continue;
    flag = std::max(flag.value_or(0), value);
  }
  r.telemetry_throttled = flag ? std::optional<bool>(*flag != 0) : std::nullopt;
}

// Puts a group's values in repetition order (stable: equal repetitions keep file order).
void order_values(Group& g) {
  auto& order = g.order;
  bool sorted = std::is_sorted(order.begin(), order.end(),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
  if (sorted) return;
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  ResultRow& r = g.row;
  std::vector<double> values;
  std::vector<int> throttled, power_limited, clock_below;
  for (const auto& [rep, i] : order) {
    values.push_back(r.values[i]);
    throttled.push_back(r.throttled[i]);
    power_limited.push_back(r.power_limited[i]);
    clock_below.push_back(r.clock_below_expected[i]);
  }
  r.values = std::move(values);
  r.throttled = std::move(throttled);
  r.power_limited = std::move(power_limited);
  r.clock_below_expected = std::move(clock_below);
}

void check_run(Database& db, int64_t run_id) {
  Statement st = db.prepare("SELECT 1 FROM runs WHERE id = ?1");
  st.bind(1, run_id);
  if (st.step()) return;
  throw bad_input("unknown run '" + std::to_string(run_id) + "'",
                  "there is no run with this id in database '" + db.path().string() + "'",
                  "list runs with `gpubench runs`; a run is 'latest', 'latest~N', an id, or a "
                  "UUID (or its first 8+ characters)");
}

}  // namespace

void Store::for_each_result(int64_t run_id, const ResultVisitor& fn, const ResultFilter& select) {
  Database& db = *m_db;
  check_run(db, run_id);
  const RunIndex x = read_run_index(db, run_id);

  // Which outcomes to read (all without a filter); the filter sees the benchmark part only.
  std::vector<char> wanted(x.outcomes.size(), 1);
  std::string wanted_ids;  // JSON array of benchmark ids for the query, "" = all
  if (select) {
    ResultRow probe;
    std::vector<int64_t> ids;
    for (size_t i = 0; i < x.outcomes.size(); ++i) {
      fill_benchmark(probe, x.outcomes[i]);
      wanted[i] = select(probe) ? 1 : 0;
      if (wanted[i]) ids.push_back(x.outcomes[i].benchmark_id);
    }
    if (ids.empty()) return;
    wanted_ids = nlohmann::json(ids).dump();
  }

  std::vector<Group> groups;  // of the outcome being read, in order of their first sample
  size_t live = 0;            // groups in use (the rest keep their buffers for reuse)
  ResultRow bare;             // rows of benchmarks without samples
  auto emit_outcome = [&](const OutcomeRecord& o) {
    if (live == 0) {  // skipped or failed without samples: one row with no metric
      fill_benchmark(bare, o);
      bare.metric.clear();
      bare.unit.clear();
      bare.direction = Direction::unknown;
      bare.device_index.reset();
      bare.gpu_uuid.clear();
      bare.gpu_pci_bus_id.clear();
      bare.values.clear();
      bare.throttled.clear();
      bare.power_limited.clear();
      bare.clock_below_expected.clear();
      bare.aggregates.clear();
      fill_run_facts(bare, x);
      fn(bare);
      return;
    }
    for (size_t k = 0; k < live; ++k) {
      order_values(groups[k]);
      fn(groups[k].row);
    }
    live = 0;
  };
  // Outcome i is complete: its rows go out when it is wanted (a benchmark id can be wanted in
  // one suite run and not in another), else its samples are dropped.
  auto finish = [&](size_t i) {
    if (wanted[i]) {
      emit_outcome(x.outcomes[i]);
    } else {
      live = 0;
    }
  };

  // CROSS JOIN fixes the loop order (suite runs, then their outcomes by position through
  // benchmark_outcomes_order, then each one's samples through samples_suite_run_benchmark), so
  // rows arrive in the ORDER BY order without a sort of the run's samples.
  Statement st = db.prepare(
      "SELECT o.suite_run_id, o.benchmark_id, s.metric_id, s.device_index, s.gpu_device_id, "
      "s.kind = 'iteration', s.kind, s.repetition, s.value, s.throttled, s.power_limited, "
      "s.clock_below_expected "
      "FROM suite_runs sr CROSS JOIN benchmark_outcomes o CROSS JOIN samples s "
      "WHERE sr.run_id = ?1 AND o.suite_run_id = sr.id AND s.suite_run_id = o.suite_run_id "
      "AND s.benchmark_id = o.benchmark_id" +
      std::string(wanted_ids.empty() ? ""
                                     : " AND o.benchmark_id IN (SELECT value FROM json_each(?2))") +
      " ORDER BY sr.id, o.position, o.rowid, s.id");
  st.bind(1, run_id);
  if (!wanted_ids.empty()) st.bind(2, wanted_ids);

  size_t next = 0;  // the next outcome not yet emitted
  auto emit_until = [&](int64_t suite_run, int64_t bench) {
    // Emits every wanted outcome before (suite_run, bench); returns with `next` at it.
    while (next < x.outcomes.size() && !(x.outcomes[next].suite_run_id == suite_run &&
                                         x.outcomes[next].benchmark_id == bench)) {
      finish(next++);
    }
  };
  int64_t cur_suite_run = -1, cur_bench = -1;
  while (st.step()) {
    const int64_t suite_run = st.column_int64(0);
    const int64_t bench = st.column_int64(1);
    if (suite_run != cur_suite_run || bench != cur_bench) {
      if (cur_bench >= 0) finish(next++);  // the previous benchmark is complete
      emit_until(suite_run, bench);
      if (next == x.outcomes.size()) break;  // cannot happen: the join names an outcome
      cur_suite_run = suite_run;
      cur_bench = bench;
    }
    const int64_t metric = st.column_int64(2);
    const std::optional<int64_t> device = st.column_optional_int64(3);
    const std::optional<int64_t> gpu = st.column_optional_int64(4);
    Group* g = nullptr;
    for (size_t k = 0; k < live; ++k) {
      if (groups[k].metric_id == metric && groups[k].device == device && groups[k].gpu == gpu) {
        g = &groups[k];
        break;
      }
    }
    if (!g) {
      if (live == groups.size()) groups.emplace_back();
      g = &groups[live++];
      g->metric_id = metric;
      g->device = device;
      g->gpu = gpu;
      g->order.clear();
      ResultRow& r = g->row;
      fill_benchmark(r, x.outcomes[next]);
      auto m = x.metrics.find(metric);
      if (m != x.metrics.end()) {
        r.metric = m->second.name;
        r.unit = m->second.unit;
        r.direction = m->second.direction;
      } else {
        r.metric.clear();
        r.unit.clear();
        r.direction = Direction::unknown;
      }
      r.device_index =
          device ? std::optional<int>(static_cast<int>(*device)) : std::optional<int>();
      r.gpu_uuid.clear();
      r.gpu_pci_bus_id.clear();
      if (gpu) {
        if (auto u = x.gpus.find(*gpu); u != x.gpus.end()) {
          r.gpu_uuid = u->second.first;
          r.gpu_pci_bus_id = u->second.second;
        }
      }
      r.values.clear();
      r.throttled.clear();
      r.power_limited.clear();
      r.clock_below_expected.clear();
      r.aggregates.clear();
      fill_run_facts(r, x);
    }
    ResultRow& r = g->row;
    const double value = st.column_double(8);
    if (st.column_int64(5) != 0) {  // an iteration sample
      g->order.emplace_back(st.is_null(7) ? 0 : st.column_int64(7), r.values.size());
      r.values.push_back(value);
      r.throttled.push_back(st.is_null(9) ? -1 : static_cast<int>(st.column_int64(9)));
      r.power_limited.push_back(st.is_null(10) ? -1 : static_cast<int>(st.column_int64(10)));
      r.clock_below_expected.push_back(st.is_null(11) ? -1 : static_cast<int>(st.column_int64(11)));
    } else {
      r.aggregates[st.column_text(6)] = value;
    }
  }
  if (cur_bench >= 0 && next < x.outcomes.size()) finish(next++);
  while (next < x.outcomes.size()) finish(next++);
}

std::vector<ResultRow> Store::get_results(int64_t run_id) {
  std::vector<ResultRow> out;
  for_each_result(run_id, [&out](ResultRow& row) { out.push_back(std::move(row)); });
  return out;
}

}  // namespace gpubench::results
