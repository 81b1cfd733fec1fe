#include "compare/run_noise.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <unordered_map>

#include "compare/gpu_pairing.hpp"
#include "compare/selection.hpp"
#include "compare/stats/changepoints.hpp"
#include "compare/stats/stats.hpp"
#include "results/history_exclusions.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {
namespace {

using results::Statement;

// Hardware class and configuration of a run: what a history run must share with the base side.
struct RunClass {
  std::string cpu_model;
  // GPU model names in device order, '\n'-separated, "" without GPUs; when GPU series follow
  // their UUIDs, the distinct model names, sorted (a run that lost a GPU is the same class).
  std::string gpus;
  int64_t configuration_id = 0;
  int64_t host_id = 0;  // 0 unless history must come from the base side's host
  auto operator<=>(const RunClass&) const = default;
};

struct RunFacts {
  int64_t id = 0;
  bool complete = false;
  bool excluded = false;  // `history exclude`: never history, even as a base run
  RunClass cls;
  std::string gpu_list;  // GPU model names in device order: what host series and runs without
                         // GPU UUIDs need the same of
  std::vector<std::pair<std::string, int64_t>> ok_suites;  // suite, suite run id
};

// A JSON array of ids for `IN (SELECT value FROM json_each(?))`: one bound parameter for any
// number of ids.
std::string id_array(const std::vector<int64_t>& ids) {
  return nlohmann::json(ids).dump();
}

// Complete runs that started no later than `newest`, and the base side's runs, newest first.
std::vector<RunFacts> load_runs(results::Database& db, const std::string& newest,
                                const std::vector<int64_t>& base_ids, bool same_host,
                                bool by_uuid) {
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
    std::string& list = runs[it->second].gpu_list;
    if (!list.empty()) list += '\n';
    list += gpus.column_text(1);
  }
  for (RunFacts& f : runs) {
    std::vector<std::string> models = split(f.gpu_list, '\n');
    std::sort(models.begin(), models.end());
    models.erase(std::unique(models.begin(), models.end()), models.end());
    f.cls.gpus = by_uuid ? join(models, "\n") : f.gpu_list;
  }
  return runs;
}

// One stored per-run median of a series (ids, not names: the hot loop builds no strings).
struct RunMedian {
  int64_t benchmark_id, metric_id, device, run_id;
  double median;
  std::size_t age = 0;  // order of the run's start among the runs loaded, 0 the oldest
  int64_t suite_run_id = 0;
  // The series it belongs to, in the base's naming: index into the names (suite, benchmark) and
  // the base's CUDA ordinal (-1: host). By UUID, GPU-...4's device:3 of a run that lost a GPU is
  // the base's device:4.
  int64_t series = 0, series_device = -1;
  bool by_index = false;  // a GPU series' median placed by CUDA index: the run had no UUID
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
                            st.column_double(4), 0, st.column_int64(0)});
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

std::map<int64_t, std::map<int64_t, std::string>> suite_run_gpu_uuids(
    results::Database& db, const std::vector<int64_t>& suite_runs) {
  std::map<int64_t, std::map<int64_t, std::string>> out;
  // The list is a JSON array, or a string holding one (AddCustomContext writes strings):
  // json_extract gives the text of either.
  Statement st = db.prepare(
      "SELECT id, json_extract(context, '$.\"gpubench.devices\"') FROM suite_runs "
      "WHERE id IN (SELECT value FROM json_each(?1)) AND json_valid(context)");
  st.bind(1, id_array(suite_runs));
  while (st.step()) {
    if (st.is_null(1)) continue;
    const nlohmann::json devices = nlohmann::json::parse(st.column_text(1), nullptr, false);
    if (!devices.is_array()) continue;
    for (const nlohmann::json& d : devices) {
      if (!d.is_object() || !d.contains("index") || !d["index"].is_number_integer()) continue;
      const auto u = d.find("uuid");
      if (u == d.end() || !u->is_string()) continue;
      const std::string uuid = u->get<std::string>();
      if (uuid.empty() || uuid == results::k_unknown) continue;
      out[st.column_int64(0)][d["index"].get<int64_t>()] = uuid;
    }
  }
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
  // GPU series follow their UUIDs when the base names every GPU's (as compare pairs them).
  const GpuPairing keying = pair_gpus(base, base);
  std::vector<RunFacts> runs = load_runs(db, newest, base_ids, same_host, keying.by_uuid);

  std::set<RunClass> classes;
  std::set<std::pair<RunClass, std::string>> lists;  // with the GPU list in device order
  for (const RunFacts& f : runs) {
    if (std::find(base_ids.begin(), base_ids.end(), f.id) != base_ids.end()) {
      classes.insert(f.cls);
      lists.insert({f.cls, f.gpu_list});
    }
  }
  // Runs with a base run's GPU list: the only ones whose host series and CUDA indices mean the
  // same as the base's.
  std::set<int64_t> same_list;
  for (const RunFacts& f : runs) {
    if (lists.count({f.cls, f.gpu_list})) same_list.insert(f.id);
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
  // Each median's series in the base's naming: by the GPU's UUID where the run recorded it (the
  // base's ordinal of that GPU), else by CUDA index in runs with the base's GPU list.
  std::unordered_map<int64_t, std::pair<std::string, std::string>> benchmarks;  // suite, name
  {
    std::set<int64_t> ids;
    for (const RunMedian& m : medians) ids.insert(m.benchmark_id);
    Statement st = db.prepare(
        "SELECT id, suite, name FROM benchmarks WHERE id IN (SELECT value FROM json_each(?1))");
    st.bind(1, id_array(std::vector<int64_t>(ids.begin(), ids.end())));
    while (st.step()) benchmarks[st.column_int64(0)] = {st.column_text(1), st.column_text(2)};
  }
  const auto uuids = keying.by_uuid ? suite_run_gpu_uuids(db, suite_runs)
                                    : std::map<int64_t, std::map<int64_t, std::string>>{};
  std::map<int64_t, std::string> base_uuid;  // the base's ordinal -> its GPU's UUID
  for (const auto& [uuid, ordinal] : keying.base_index) base_uuid[ordinal] = uuid;
  std::map<std::pair<std::string, std::string>, int64_t> series_index;
  std::vector<std::pair<std::string, std::string>> series_names;  // suite, name
  std::vector<RunMedian> placed;
  placed.reserve(medians.size());
  for (RunMedian& m : medians) {
    const auto b = benchmarks.find(m.benchmark_id);
    if (b == benchmarks.end()) continue;
    std::string name = b->second.second;
    m.series_device = m.device;
    std::string uuid;
    if (const auto r = uuids.find(m.suite_run_id); m.device >= 0 && r != uuids.end()) {
      if (const auto u = r->second.find(m.device); u != r->second.end()) uuid = u->second;
    }
    if (!uuid.empty()) {
      const auto ordinal = keying.base_index.find(uuid);
      if (ordinal == keying.base_index.end()) continue;  // a GPU the base does not have
      m.series_device = ordinal->second;
      if (ordinal->second != m.device) name = with_device_index(name, ordinal->second);
    } else {
      if (!same_list.count(m.run_id)) continue;  // an index names another GPU there
      m.by_index = m.device >= 0 && keying.by_uuid;
    }
    auto [it, fresh] = series_index.try_emplace({b->second.first, name},
                                                static_cast<int64_t>(series_names.size()));
    if (fresh) series_names.emplace_back(b->second.first, std::move(name));
    m.series = it->second;
    placed.push_back(m);
  }
  medians = std::move(placed);
  auto series_of = [](const RunMedian& m) {
    return std::tie(m.series, m.metric_id, m.series_device);
  };
  std::sort(medians.begin(), medians.end(), [](const RunMedian& a, const RunMedian& b) {
    return std::tie(a.series, a.metric_id, a.series_device, a.age, a.run_id) <
           std::tie(b.series, b.metric_id, b.series_device, b.age, b.run_id);
  });
  const std::set<std::tuple<int64_t, int64_t, int64_t>> recorded =
      recorded_change_points(db, run_of);
  struct Found {
    int64_t series, metric_id, device;
    SeriesNoise noise;
  };
  std::vector<Found> found;
  std::vector<double> logs;
  std::vector<int64_t> log_runs, log_benchmarks;
  std::vector<double> same_run;
  for (std::size_t i = 0; i < medians.size();) {
    std::size_t end = i;
    while (end < medians.size() && series_of(medians[end]) == series_of(medians[i])) ++end;
    logs.clear();
    log_runs.clear();
    log_benchmarks.clear();
    std::set<int64_t> by_index;  // runs placed by CUDA index
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
        log_benchmarks.push_back(medians[r].benchmark_id);  // the run's own name of the series
        if (medians[r].by_index) by_index.insert(medians[r].run_id);
      }
      r = next;
    }
    // The last change point: recorded at one of these runs, or detected in them.
    std::size_t first = 0;
    for (std::size_t k = 1; k < log_runs.size(); ++k) {
      if (recorded.count({log_benchmarks[k], medians[i].metric_id, log_runs[k]})) first = k;
    }
    for (const ChangePoint& cp : detect_change_points(logs, history_detection())) {
      first = std::max(first, cp.index);
    }
    if (!logs.empty()) {
      SeriesNoise n = robust_series_noise(logs, first, first > 0 ? log_runs[first] : 0);
      const int64_t device = medians[i].series_device;
      if (device >= 0 && keying.by_uuid) {
        const auto u = base_uuid.find(device);
        n.gpu_note = u == base_uuid.end() ? "" : u->second + "'s own runs, by UUID";
        if (!by_index.empty()) {
          std::vector<std::string> ids;
          for (int64_t id : by_index) ids.push_back(std::to_string(id));
          n.gpu_note += std::string(n.gpu_note.empty() ? "" : "; ") + "run" +
                        (ids.size() == 1 ? " " : "s ") + join(ids, ", ") +
                        " by CUDA index: no GPU UUID recorded";
        }
      } else if (device >= 0) {
        n.gpu_note = "by CUDA index: the base recorded no GPU UUIDs";
      }
      found.push_back(Found{medians[i].series, medians[i].metric_id, device, std::move(n)});
    }
    i = end;
  }
  medians = {};
  // Keys sorted first, so the map is built by appending (no string comparisons per insert).
  std::vector<std::pair<Key, SeriesNoise>> keyed;
  keyed.reserve(found.size());
  for (Found& f : found) {
    const auto& [suite, name] = series_names[static_cast<std::size_t>(f.series)];
    keyed.emplace_back(
        Key{suite, name, metric_names[f.metric_id],
            device_label(f.device < 0 ? std::nullopt
                                      : std::optional<int>(static_cast<int>(f.device)))},
        std::move(f.noise));
  }
  std::sort(keyed.begin(), keyed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [key, n] : keyed) noise.emplace_hint(noise.end(), std::move(key), std::move(n));
  return noise;
}

}  // namespace gpubench::compare
