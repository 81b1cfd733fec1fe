#include "compare/run_noise.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <unordered_map>

#include "compare/selection.hpp"
#include "compare/stats/changepoints.hpp"
#include "compare/stats/stats.hpp"
#include "results/history_exclusions.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"

namespace gpubench::compare {
namespace {

using results::Statement;

// Hardware class and configuration of a run: what a history run must share with the base side.
struct RunClass {
  std::string cpu_model;
  std::string gpus;  // GPU model names in device order, '\n'-separated; "" without GPUs
  int64_t configuration_id = 0;
  int64_t host_id = 0;  // 0 unless history must come from the base side's host
  auto operator<=>(const RunClass&) const = default;
};

struct RunFacts {
  int64_t id = 0;
  bool complete = false;
  bool excluded = false;  // `history exclude`: never history, even as a base run
  RunClass cls;
  std::vector<std::pair<std::string, int64_t>> ok_suites;  // suite, suite run id
};

// A JSON array of ids for `IN (SELECT value FROM json_each(?))`: one bound parameter for any
// number of ids.
std::string id_array(const std::vector<int64_t>& ids) {
  return nlohmann::json(ids).dump();
}

// Complete runs that started no later than `newest`, and the base side's runs, newest first.
std::vector<RunFacts> load_runs(results::Database& db, const std::string& newest,
                                const std::vector<int64_t>& base_ids, bool same_host) {
  std::vector<RunFacts> runs;
  std::unordered_map<int64_t, std::size_t> index;
  Statement st = db.prepare(
      "SELECT r.id, r.status, r.configuration_id, h.cpu_model, sr.id, sr.suite, sr.status, "
      "r.host_id, " +
      results::not_excluded_sql(db, "r.id") +
      " "
      "FROM runs r JOIN hosts h ON h.id = r.host_id LEFT JOIN suite_runs sr ON sr.run_id = r.id "
      "WHERE (r.started_at <= ?1 AND r.status = 'complete') OR r.id IN "
      "(SELECT value FROM json_each(?2)) ORDER BY r.started_at DESC, r.id DESC, sr.id");
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
      if (same_host) f.cls.host_id = st.column_int64(7);
      f.excluded = st.column_int64(8) == 0;
      runs.push_back(std::move(f));
    }
    if (!st.is_null(4) && st.column_text(6) == "ok") {
      runs[it->second].ok_suites.emplace_back(st.column_text(5), st.column_int64(4));
    }
  }
  Statement gpus = db.prepare(
      "SELECT rg.run_id, g.name FROM run_gpus rg JOIN gpu_devices g ON g.id = rg.gpu_device_id "
      "JOIN runs r ON r.id = rg.run_id WHERE r.started_at <= ?1 OR r.id IN "
      "(SELECT value FROM json_each(?2)) ORDER BY rg.run_id, rg.device_index");
  gpus.bind(1, newest).bind(2, id_array(base_ids));
  while (gpus.step()) {
    auto it = index.find(gpus.column_int64(0));
    if (it == index.end()) continue;
    std::string& list = runs[it->second].cls.gpus;
    if (!list.empty()) list += '\n';
    list += gpus.column_text(1);
  }
  return runs;
}

// One stored per-run median of a series (ids, not names: the hot loop builds no strings).
struct RunMedian {
  int64_t benchmark_id, metric_id, device, run_id;
  double median;
  std::size_t age = 0;  // order of the run's start among the runs loaded, 0 the oldest
};

// Reads the stored per-run medians (results/schema/series_medians.hpp: the median of each series'
// valid repetitions, written with the samples) of the given suite runs, metrics in
// `metric_ids` only: one row per run and series, never the samples themselves.
std::vector<RunMedian> read_medians(results::Database& db, const std::vector<int64_t>& suite_runs,
                                    const std::string& metric_ids,
                                    const std::unordered_map<int64_t, int64_t>& run_of) {
  std::vector<RunMedian> out;
  Statement st = db.prepare(
      "SELECT m.suite_run_id, m.benchmark_id, m.metric_id, m.device_index, m.median "
      "FROM series_medians m WHERE m.suite_run_id IN (SELECT value FROM json_each(?1)) "
      "AND m.metric_id IN (SELECT value FROM json_each(?2))");
  st.bind(1, id_array(suite_runs)).bind(2, metric_ids);
  while (st.step()) {
    auto run = run_of.find(st.column_int64(0));
    if (run == run_of.end()) continue;
    out.push_back(RunMedian{st.column_int64(1), st.column_int64(2), st.column_int64(3), run->second,
                            st.column_double(4), 0});
  }
  return out;
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

// Stored change points (`history --record`) of the history's runs, as (benchmark id, metric id,
// run id): the first run of a new level. The table has no device: a recorded change applies to
// every device of the benchmark and metric.
std::set<std::tuple<int64_t, int64_t, int64_t>> recorded_change_points(
    results::Database& db, const std::unordered_map<int64_t, int64_t>& run_of) {
  std::set<int64_t> run_ids;
  for (const auto& [suite_run, run] : run_of) run_ids.insert(run);
  std::set<std::tuple<int64_t, int64_t, int64_t>> out;
  Statement st = db.prepare(
      "SELECT benchmark_id, metric_id, run_id FROM change_points WHERE run_id IN "
      "(SELECT value FROM json_each(?1))");
  st.bind(1, id_array(std::vector<int64_t>(run_ids.begin(), run_ids.end())));
  while (st.step()) out.insert({st.column_int64(0), st.column_int64(1), st.column_int64(2)});
  return out;
}

// Detection inside a history window (<= --history runs): the t-test, cheap enough for every
// series of a fleet comparison; the defaults of `history` otherwise (min segment 3, delta 2%).
const ChangePointOptions& history_detection() {
  static const ChangePointOptions options = [] {
    ChangePointOptions o;
    o.significance = Significance::ttest;
    return o;
  }();
  return options;
}

}  // namespace

SeriesNoise robust_series_noise(std::span<const double> logs, std::size_t first,
                                int64_t since_run) {
  SeriesNoise out;
  out.since_run = since_run;
  if (first >= logs.size()) return out;
  const std::span<const double> level = logs.subspan(first);
  const double centre = median(level);
  std::vector<double> deviations;
  deviations.reserve(level.size());
  for (double v : level) deviations.push_back(std::fabs(v - centre));
  // 1.4826 x MAD estimates a normal sd (as robust_cv in compare/stats/stats.hpp).
  const double robust_sd = 1.4826 * median(deviations);
  const double cut = std::max(k_outlier_robust_sds * robust_sd, k_outlier_floor);
  std::vector<double> kept;
  kept.reserve(level.size());
  for (double v : level) {
    if (std::fabs(v - centre) <= cut) {
      kept.push_back(v);
    } else {
      ++out.outliers;
    }
  }
  out.runs = kept.size();
  out.log_sd = kept.size() >= 2 ? stddev(kept) : std::nan("");
  out.usable = kept.size() >= k_min_history_runs && std::isfinite(out.log_sd);
  return out;
}

void check_history_window(int window) {
  if (window == 0 || window >= static_cast<int>(k_min_history_runs)) return;
  throw bad_input("invalid --history " + std::to_string(window),
                  window < 0
                      ? "it must be 0 (off) or a number of runs"
                      : "run-to-run noise needs at least " + std::to_string(k_min_history_runs) +
                            " runs of history; fewer would silently mean none",
                  "use --history 0 for no history, or " + std::to_string(k_min_history_runs) +
                      " or more (default " + std::to_string(k_default_history_window) + ")");
}

HistoryNoise load_history_noise(results::Store& store, const Side& base, const Side& candidate,
                                int window, const std::optional<std::string>& metric,
                                bool same_host) {
  HistoryNoise noise;
  if (window <= 0 || base.runs.empty()) return noise;
  // History ends with the candidate: runs after it were made with the change in place.
  std::string newest;
  std::vector<int64_t> base_ids;
  std::set<int64_t> candidate_ids;
  for (const results::RunDetail& r : base.runs) base_ids.push_back(r.run.id);
  for (const results::RunDetail& r : candidate.runs) {
    candidate_ids.insert(r.run.id);
    newest = std::max(newest, r.run.started_at);
  }
  if (candidate.runs.empty()) {
    for (const results::RunDetail& r : base.runs) newest = std::max(newest, r.run.started_at);
  }
  // Runs the candidate's selector matches but the base's does not carry the change too, also
  // those --last left out of the candidate side.
  const std::vector<int64_t> base_list = selector_group(store, base.selection);
  const std::set<int64_t> base_group(base_list.begin(), base_list.end());
  for (int64_t id : selector_group(store, candidate.selection)) {
    if (!base_group.count(id)) candidate_ids.insert(id);
  }
  results::Database& db = store.database();
  std::vector<RunFacts> runs = load_runs(db, newest, base_ids, same_host);

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
    if (candidate_ids.count(f.id) || f.excluded || !(f.complete || base_run) ||
        !classes.count(f.cls)) {
      continue;
    }
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
  for (const std::string& suite : suites) {
    noise.suite_runs[suite] = static_cast<std::size_t>(taken[suite]);
  }
  std::vector<int64_t> suite_runs;  // of suites with enough runs; the others cost no read
  for (const auto& [suite, ids] : suite_runs_of) {
    if (static_cast<std::size_t>(taken[suite]) >= k_min_history_runs)
      suite_runs.insert(suite_runs.end(), ids.begin(), ids.end());
  }
  if (suite_runs.empty()) return noise;

  // Per series: the per-run medians, sorted so each series' runs are adjacent and in the order
  // the runs started (oldest first: a change point splits them in time). A run that ran a suite
  // twice has two medians of a series; their median (the mean of the two) stands for it.
  std::unordered_map<int64_t, std::size_t> age;  // run id -> 0 for the oldest run loaded
  for (std::size_t i = 0; i < runs.size(); ++i) age[runs[i].id] = runs.size() - 1 - i;
  std::unordered_map<int64_t, std::string> metric_names;
  std::string metrics = metric_ids(db, metric, metric_names);
  std::vector<RunMedian> medians = read_medians(db, suite_runs, metrics, run_of);
  for (RunMedian& m : medians) m.age = age[m.run_id];
  auto series_of = [](const RunMedian& m) {
    return std::tie(m.benchmark_id, m.metric_id, m.device);
  };
  std::sort(medians.begin(), medians.end(), [](const RunMedian& a, const RunMedian& b) {
    return std::tie(a.benchmark_id, a.metric_id, a.device, a.age, a.run_id) <
           std::tie(b.benchmark_id, b.metric_id, b.device, b.age, b.run_id);
  });
  const std::set<std::tuple<int64_t, int64_t, int64_t>> recorded =
      recorded_change_points(db, run_of);
  struct Found {
    int64_t benchmark_id, metric_id, device;
    SeriesNoise noise;
  };
  std::vector<Found> found;
  std::vector<double> logs;
  std::vector<int64_t> log_runs;
  std::vector<double> same_run;
  for (std::size_t i = 0; i < medians.size();) {
    std::size_t end = i;
    while (end < medians.size() && series_of(medians[end]) == series_of(medians[i])) ++end;
    logs.clear();
    log_runs.clear();
    for (std::size_t r = i; r < end;) {
      same_run.clear();
      std::size_t next = r;
      for (; next < end && medians[next].run_id == medians[r].run_id; ++next) {
        same_run.push_back(medians[next].median);
      }
      const double m = median(same_run);
      if (m > 0 && std::isfinite(m)) {
        logs.push_back(std::log(m));
        log_runs.push_back(medians[r].run_id);
      }
      r = next;
    }
    // The last change point: recorded at one of these runs, or detected in them.
    std::size_t first = 0;
    for (std::size_t k = 1; k < log_runs.size(); ++k) {
      if (recorded.count({medians[i].benchmark_id, medians[i].metric_id, log_runs[k]})) first = k;
    }
    for (const ChangePoint& cp : detect_change_points(logs, history_detection())) {
      first = std::max(first, cp.index);
    }
    if (!logs.empty()) {
      found.push_back(Found{medians[i].benchmark_id, medians[i].metric_id, medians[i].device,
                            robust_series_noise(logs, first, first > 0 ? log_runs[first] : 0)});
    }
    i = end;
  }
  medians = {};
  std::vector<int64_t> benchmark_ids;
  for (const Found& f : found) {
    if (benchmark_ids.empty() || benchmark_ids.back() != f.benchmark_id) {
      benchmark_ids.push_back(f.benchmark_id);
    }
  }
  std::unordered_map<int64_t, std::pair<std::string, std::string>> benchmarks;  // suite, name
  {
    Statement st = db.prepare(
        "SELECT id, suite, name FROM benchmarks WHERE id IN (SELECT value FROM json_each(?1))");
    st.bind(1, id_array(benchmark_ids));
    while (st.step()) benchmarks[st.column_int64(0)] = {st.column_text(1), st.column_text(2)};
  }
  // Keys sorted first, so the map is built by appending (no string comparisons per insert).
  std::vector<std::pair<Key, SeriesNoise>> keyed;
  keyed.reserve(found.size());
  for (const Found& f : found) {
    auto b = benchmarks.find(f.benchmark_id);
    if (b == benchmarks.end()) continue;
    keyed.emplace_back(
        Key{b->second.first, b->second.second, metric_names[f.metric_id],
            device_label(f.device < 0 ? std::nullopt
                                      : std::optional<int>(static_cast<int>(f.device)))},
        f.noise);
  }
  std::sort(keyed.begin(), keyed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [key, n] : keyed) noise.emplace_hint(noise.end(), std::move(key), n);
  return noise;
}

}  // namespace gpubench::compare
