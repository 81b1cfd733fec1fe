#include "compare/history.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <unordered_map>

#include "compare/stats.hpp"
#include "results/sqlite.hpp"

namespace gpubench::compare {
namespace {

using results::Statement;

// Hardware class and configuration of a run: what a history run must share with the base side.
struct RunClass {
  std::string cpu_model;
  std::string gpus;  // GPU model names in device order, '\n'-separated; "" without GPUs
  int64_t configuration_id = 0;
  auto operator<=>(const RunClass&) const = default;
};

struct RunFacts {
  int64_t id = 0;
  bool complete = false;
  RunClass cls;
  std::vector<std::pair<std::string, int64_t>> ok_suites;  // suite, suite run id
};

// A JSON array of ids for `IN (SELECT value FROM json_each(?))`: one bound parameter for any
// number of ids.
std::string id_array(const std::vector<int64_t>& ids) {
  return nlohmann::json(ids).dump();
}

// Runs that started no later than `newest` and are complete or on the base side, newest first.
std::vector<RunFacts> load_runs(results::Database& db, const std::string& newest,
                                const std::vector<int64_t>& base_ids) {
  std::vector<RunFacts> runs;
  std::unordered_map<int64_t, std::size_t> index;
  Statement st = db.prepare(
      "SELECT r.id, r.status, r.configuration_id, h.cpu_model, sr.id, sr.suite, sr.status "
      "FROM runs r JOIN hosts h ON h.id = r.host_id LEFT JOIN suite_runs sr ON sr.run_id = r.id "
      "WHERE r.started_at <= ?1 AND (r.status = 'complete' OR r.id IN "
      "(SELECT value FROM json_each(?2))) ORDER BY r.started_at DESC, r.id DESC, sr.id");
  st.bind(1, newest).bind(2, id_array(base_ids));
  while (st.step()) {
    int64_t id = st.column_int64(0);
    auto [it, inserted] = index.emplace(id, runs.size());
    if (inserted) {
      RunFacts f;
      f.id = id;
      f.complete = st.column_text(1) == "complete";
      f.cls.configuration_id = st.column_int64(2);
      f.cls.cpu_model = st.column_text(3);
      runs.push_back(std::move(f));
    }
    if (!st.is_null(4) && st.column_text(6) == "ok") {
      runs[it->second].ok_suites.emplace_back(st.column_text(5), st.column_int64(4));
    }
  }
  Statement gpus = db.prepare(
      "SELECT rg.run_id, g.name FROM run_gpus rg JOIN gpu_devices g ON g.id = rg.gpu_device_id "
      "JOIN runs r ON r.id = rg.run_id WHERE r.started_at <= ?1 "
      "ORDER BY rg.run_id, rg.device_index");
  gpus.bind(1, newest);
  while (gpus.step()) {
    auto it = index.find(gpus.column_int64(0));
    if (it == index.end()) continue;
    std::string& list = runs[it->second].cls.gpus;
    if (!list.empty()) list += '\n';
    list += gpus.column_text(1);
  }
  return runs;
}

// Per (series, run) by ids: the values a per-run median is taken from. Ids, not names, so the
// hot loop over ~10^6 samples neither joins nor builds strings; names are looked up once per id.
struct SeriesRun {
  int64_t benchmark_id = 0;
  int64_t metric_id = 0;
  int64_t device = -1;  // -1: host
  int64_t suite_run_id = 0;
  bool operator==(const SeriesRun&) const = default;
};
struct SeriesRunHash {
  std::size_t operator()(const SeriesRun& k) const noexcept {
    std::size_t h = std::hash<int64_t>()(k.benchmark_id);
    h = h * 1000003u ^ std::hash<int64_t>()(k.metric_id);
    h = h * 1000003u ^ std::hash<int64_t>()(k.device);
    return h * 1000003u ^ std::hash<int64_t>()(k.suite_run_id);
  }
};
using SampleMap = std::unordered_map<SeriesRun, std::vector<double>, SeriesRunHash>;

// Reads the repetitions and median aggregates of the given suite runs (metrics in `metric_ids`
// only) in one pass: the samples table has no index by kind, so every filter scans the rows.
void read_samples(results::Database& db, const std::vector<int64_t>& suite_runs,
                  const std::string& metric_ids, SampleMap& iterations, SampleMap& medians) {
  Statement st = db.prepare(
      "SELECT s.suite_run_id, s.benchmark_id, s.metric_id, s.device_index, s.value, "
      "s.kind = 'median' FROM samples s "
      "WHERE s.suite_run_id IN (SELECT value FROM json_each(?1)) "
      "AND s.kind IN ('iteration', 'median') "
      "AND s.metric_id IN (SELECT value FROM json_each(?2)) "
      "AND (s.throttled IS NULL OR s.throttled = 0)");
  st.bind(1, id_array(suite_runs)).bind(2, metric_ids);
  // A benchmark's repetitions are stored together, its metrics interleaved: a few recently used
  // entries save most hash lookups (unordered_map nodes do not move on rehash).
  std::array<std::pair<SeriesRun, std::vector<double>*>, 8> recent{};
  std::size_t next = 0;
  while (st.step()) {
    SeriesRun k;
    k.suite_run_id = st.column_int64(0);
    k.benchmark_id = st.column_int64(1);
    k.metric_id = st.column_int64(2);
    k.device = st.column_optional_int64(3).value_or(-1);
    if (st.column_int64(5) != 0) {
      medians[k].push_back(st.column_double(4));
      continue;
    }
    std::vector<double>* v = nullptr;
    for (auto& [rk, rv] : recent) {
      if (rv && rk == k) {
        v = rv;
        break;
      }
    }
    if (!v) {
      v = &iterations[k];
      recent[next] = {k, v};
      next = (next + 1) % recent.size();
    }
    v->push_back(st.column_double(4));
  }
}

// Ids of the metrics compare looks at (as Options::metric: that one, else all but cpu_time), as a
// JSON array, with their names.
std::string metric_ids(results::Database& db, const std::optional<std::string>& metric,
                       std::unordered_map<int64_t, std::string>& names) {
  Statement st = db.prepare("SELECT id, name FROM metrics");
  std::vector<int64_t> ids;
  while (st.step()) {
    std::string name = st.column_text(1);
    if (metric ? name != *metric : name == "cpu_time") continue;
    ids.push_back(st.column_int64(0));
    names[ids.back()] = name;
  }
  return id_array(ids);
}

}  // namespace

HistoryNoise load_history_noise(results::Store& store, const Side& base, const Side& candidate,
                                int window, const std::optional<std::string>& metric) {
  HistoryNoise noise;
  if (window <= 0 || base.runs.empty()) return noise;
  std::string newest;
  std::vector<int64_t> base_ids;
  std::set<int64_t> candidate_ids;
  for (const results::RunDetail& r : base.runs) {
    base_ids.push_back(r.run.id);
    newest = std::max(newest, r.run.started_at);
  }
  for (const results::RunDetail& r : candidate.runs) {
    candidate_ids.insert(r.run.id);
    newest = std::max(newest, r.run.started_at);
  }
  results::Database& db = store.database();
  std::vector<RunFacts> runs = load_runs(db, newest, base_ids);

  std::set<RunClass> classes;
  for (const RunFacts& f : runs) {
    if (std::find(base_ids.begin(), base_ids.end(), f.id) != base_ids.end()) classes.insert(f.cls);
  }
  std::set<std::string> suites;
  for (const results::ResultRow& row : base.results) suites.insert(row.suite);

  // Per suite, the newest `window` matching runs with an ok run of it.
  std::map<std::string, int> taken;
  std::map<std::string, std::vector<int64_t>> suite_runs_of;
  std::unordered_map<int64_t, int64_t> run_of;  // suite run id -> run id
  for (const RunFacts& f : runs) {
    bool base_run = std::find(base_ids.begin(), base_ids.end(), f.id) != base_ids.end();
    if (candidate_ids.count(f.id) || !(f.complete || base_run) || !classes.count(f.cls)) continue;
    std::set<std::string> counted;
    for (const auto& [suite, suite_run_id] : f.ok_suites) {
      if (!suites.count(suite)) continue;
      int& n = taken[suite];
      if (n >= window && !counted.count(suite)) continue;
      if (counted.insert(suite).second) ++n;
      suite_runs_of[suite].push_back(suite_run_id);
      run_of[suite_run_id] = f.id;
    }
  }
  std::vector<int64_t> suite_runs;  // of suites with enough runs; the others cost no read
  for (const auto& [suite, ids] : suite_runs_of) {
    if (static_cast<std::size_t>(taken[suite]) >= k_min_history_runs)
      suite_runs.insert(suite_runs.end(), ids.begin(), ids.end());
  }
  if (suite_runs.empty()) return noise;

  // Google Benchmark's median aggregates where recorded (one row per series and run), else the
  // repetitions of the suite runs that have none.
  std::unordered_map<int64_t, std::string> metric_names;
  std::string metrics = metric_ids(db, metric, metric_names);
  SampleMap iterations;
  SampleMap median_rows;
  read_samples(db, suite_runs, metrics, iterations, median_rows);
  std::set<int64_t> with_median;
  for (const auto& [k, v] : median_rows) with_median.insert(k.suite_run_id);
  SampleMap& values = median_rows;
  for (auto& [k, v] : iterations) {
    if (!with_median.count(k.suite_run_id)) values[k] = std::move(v);
  }

  // Per series (ids): the per-run medians, keyed by run so two suite runs of one run pool.
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::map<int64_t, std::vector<double>>> series;
  for (auto& [k, v] : values) {
    std::vector<double>& run =
        series[{k.benchmark_id, k.metric_id, k.device}][run_of[k.suite_run_id]];
    run.insert(run.end(), v.begin(), v.end());
  }
  std::vector<int64_t> benchmark_ids;
  for (const auto& [k, runs_of_series] : series) {
    if (runs_of_series.size() >= k_min_history_runs) benchmark_ids.push_back(std::get<0>(k));
  }
  std::unordered_map<int64_t, std::pair<std::string, std::string>> benchmarks;  // suite, name
  {
    Statement st = db.prepare(
        "SELECT id, suite, name FROM benchmarks WHERE id IN (SELECT value FROM json_each(?1))");
    st.bind(1, id_array(benchmark_ids));
    while (st.step()) benchmarks[st.column_int64(0)] = {st.column_text(1), st.column_text(2)};
  }
  for (const auto& [k, runs_of_series] : series) {
    if (runs_of_series.size() < k_min_history_runs) continue;
    auto [benchmark_id, metric_id, device] = k;
    auto b = benchmarks.find(benchmark_id);
    if (b == benchmarks.end()) continue;
    // sd of the log per-run medians: the run-to-run noise on the scale the estimator works on.
    // The plain sd, not a MAD: a transient run is run-to-run noise too, and the estimator carries
    // its runs - 1 degrees of freedom, so few runs widen the interval instead of fooling it.
    std::vector<double> logs;
    for (const auto& [run, v] : runs_of_series) {
      double m = median(v);
      if (m > 0 && std::isfinite(m)) logs.push_back(std::log(m));
    }
    if (logs.size() < k_min_history_runs) continue;
    double sd = stddev(logs);
    if (!std::isfinite(sd)) continue;
    Key key{b->second.first, b->second.second, metric_names[metric_id],
            device_label(device < 0 ? std::nullopt : std::optional<int>(static_cast<int>(device)))};
    noise[key] = SeriesNoise{sd, logs.size()};
  }
  return noise;
}

}  // namespace gpubench::compare
