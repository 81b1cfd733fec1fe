// Loading the history of series over runs: the selected runs in time order, their groups, and
// each series' per-run medians with intervals (change points are in series_changes.cpp).
#include "compare/history/series_history.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <span>
#include <tuple>
#include <unordered_map>

#include "compare/gpu_pairing.hpp"
#include "compare/history/series_history_detail.hpp"
#include "compare/run_noise.hpp"
#include "compare/selection.hpp"
#include "compare/stats/stats.hpp"
#include "results/change_points.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {
namespace {

using results::Statement;
using series_history_detail::find_changes;
using series_history_detail::k_scan_change_points;
using series_history_detail::Prior;
using series_history_detail::prior_of;
using series_history_detail::rank_differences;

std::string id_array(const std::vector<int64_t>& ids) {
  return nlohmann::json(ids).dump();
}

// "node-1 [8x NVIDIA H100]": the host and its GPU models with their counts, in device order.
std::string group_of(const results::RunDetail& d) {
  std::vector<std::pair<std::string, int>> models;
  for (const auto& g : d.info.gpus) {
    if (models.empty() || models.back().first != g.name) models.emplace_back(g.name, 0);
    ++models.back().second;
  }
  std::vector<std::string> parts;
  for (const auto& [name, n] : models) parts.push_back(std::to_string(n) + "x " + name);
  return d.info.host.hostname + " [" + (parts.empty() ? "no GPU" : join(parts, ", ")) + "]";
}

std::vector<int64_t> selected_runs(results::Store& store, const std::string& selector) {
  std::vector<int64_t> ids;
  if (selector == "all") {
    Statement st = store.database().prepare("SELECT id FROM runs WHERE status = 'complete'");
    while (st.step()) ids.push_back(st.column_int64(0));
    if (ids.empty()) {
      throw bad_input("no complete runs in the database", "history needs runs",
                      "'gpubench run' makes one; 'gpubench runs' lists what is stored");
    }
    return ids;
  }
  ids = selector_group(store, selector);
  if (ids.empty()) ids = resolve_selection(store, selector, 1);
  return ids;
}

// Order-statistic interval of the median at 99%: the k-th smallest and largest values with
// P(Binomial(n, 1/2) < k) <= 0.005 each side; nullopt below 8 values (no k reaches it).
bool median_interval(std::vector<double>& v, double& low, double& high) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  if (n == 0) return false;
  double cdf = 0;  // P(B < k)
  double pmf = std::pow(0.5, static_cast<double>(n));
  std::size_t k = 0;
  for (std::size_t j = 0; j < n; ++j) {
    if (cdf + pmf > 0.005) break;
    cdf += pmf;
    pmf *= static_cast<double>(n - j) / static_cast<double>(j + 1);
    k = j + 1;
  }
  if (k == 0) {
    low = v.front();
    high = v.back();
    return false;
  }
  low = v[k - 1];
  high = v[n - k];
  return true;
}

// A series by CUDA index: group, benchmark, metric, device. A GPU series whose runs recorded the
// GPU's UUID follows the GPU instead (issue 38): group "host + UUID", `name` its benchmark name
// with the index left out, benchmark 0 and device k_by_uuid; it is shown under the group and
// names of its newest run.
constexpr int64_t k_by_uuid = -2;
struct SeriesId {
  std::string group;
  std::string name;
  int64_t benchmark, metric, device;
  auto operator<=>(const SeriesId&) const = default;
};

}  // namespace

History load_history(results::Store& store, const HistoryOptions& options) {
  History h;
  h.options = options;
  if (options.last < 0) {
    throw bad_input("--last must be 0 (every run) or more", "got " + std::to_string(options.last),
                    "e.g. --last 30");
  }
  std::optional<std::regex> pattern;
  if (options.benchmark) {
    try {
      pattern.emplace(*options.benchmark, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw bad_input("--benchmark is not a valid regular expression",
                      "'" + *options.benchmark + "': " + e.what(), "e.g. --benchmark 'spin/.*'");
    }
  }
  std::vector<int64_t> selected = selected_runs(store, options.selector);
  // Runs excluded on purpose (`history exclude`) are in no history; the output names them.
  h.excluded = results::list_history_exclusions(store.database(), selected);
  for (const results::HistoryExclusion& x : h.excluded) {
    h.options.excluded_runs.push_back(x.run_id);
    selected.erase(std::remove(selected.begin(), selected.end(), x.run_id), selected.end());
  }
  if (selected.empty()) {
    throw bad_input("every run of '" + options.selector + "' is excluded from history",
                    "'gpubench history exclude' left them out (see 'gpubench runs')",
                    "'gpubench history include RUN' takes one back");
  }
  for (int64_t id : selected) {
    HistoryRun r;
    r.id = id;
    r.detail = store.get_run(id);
    r.uuid = r.detail.run.uuid;
    r.started_at = r.detail.run.started_at;
    r.group = group_of(r.detail);
    h.runs.push_back(std::move(r));
  }
  std::sort(h.runs.begin(), h.runs.end(), [](const HistoryRun& a, const HistoryRun& b) {
    return std::tie(a.started_at, a.id) < std::tie(b.started_at, b.id);
  });
  if (options.last > 0 && h.runs.size() > static_cast<std::size_t>(options.last)) {
    h.runs.erase(h.runs.begin(), h.runs.end() - options.last);
  }
  std::vector<int64_t> run_ids;
  std::unordered_map<int64_t, std::size_t> run_index;
  for (std::size_t i = 0; i < h.runs.size(); ++i) {
    run_ids.push_back(h.runs[i].id);
    run_index[h.runs[i].id] = i;
  }

  results::Database& db = store.database();
  std::unordered_map<int64_t, std::size_t> suite_run_to_run;
  std::vector<int64_t> suite_runs;
  Statement sr = db.prepare(
      "SELECT id, run_id FROM suite_runs WHERE status = 'ok' AND run_id IN "
      "(SELECT value FROM json_each(?1))");
  sr.bind(1, id_array(run_ids));
  while (sr.step()) {
    suite_runs.push_back(sr.column_int64(0));
    suite_run_to_run[sr.column_int64(0)] = run_index.at(sr.column_int64(1));
  }
  struct Name {
    std::string name, suite;
    bool keep = true;
  };
  std::unordered_map<int64_t, Name> benchmarks;
  Statement b = db.prepare("SELECT id, name, suite FROM benchmarks");
  while (b.step()) {
    Name n{b.column_text(1), b.column_text(2)};
    n.keep = !pattern || std::regex_search(n.name, *pattern);
    benchmarks.emplace(b.column_int64(0), std::move(n));
  }
  struct Metric {
    std::string name, unit;
    results::Direction direction;
    bool keep;
  };
  std::unordered_map<int64_t, Metric> metrics;
  Statement m = db.prepare("SELECT id, name, unit, direction FROM metrics");
  while (m.step()) {
    Metric x{m.column_text(1), m.column_text(2),
             results::direction_from_string(m.column_text(3)).value_or(results::Direction::unknown),
             false};
    x.keep = compared_metric(x.name, options.metric);
    metrics.emplace(m.column_int64(0), std::move(x));
  }
  // Metric roles as the suites declared them: (suite, metric) -> role.
  std::map<std::pair<std::string, std::string>, std::string> roles;
  Statement ro = db.prepare(
      "SELECT sr.suite, r.metric, r.role FROM suite_run_metric_roles r JOIN suite_runs sr ON "
      "sr.id = r.suite_run_id WHERE r.suite_run_id IN (SELECT value FROM json_each(?1))");
  ro.bind(1, id_array(suite_runs));
  while (ro.step()) roles[{ro.column_text(0), ro.column_text(1)}] = ro.column_text(2);
  auto role_of = [&](const std::string& suite, const std::string& metric) {
    auto it = roles.find({suite, metric});
    return it == roles.end() ? std::string("primary") : it->second;
  };
  // The repetitions of every kept series, per run and execution (suite run), for the per-run
  // intervals.
  std::map<SeriesId, std::map<std::size_t, std::map<int64_t, std::vector<double>>>> values;
  // A UUID series' newest run (index into h.runs), its benchmark id and CUDA index there.
  std::map<SeriesId, std::tuple<std::size_t, int64_t, int64_t>> newest;
  const auto uuids = suite_run_gpu_uuids(db, suite_runs);
  Statement s = db.prepare(
      "SELECT suite_run_id, benchmark_id, metric_id, COALESCE(device_index, -1), value "
      "FROM samples WHERE suite_run_id IN (SELECT value FROM json_each(?1)) AND kind = "
      "'iteration' AND (throttled IS NULL OR throttled = 0)");
  s.bind(1, id_array(suite_runs));
  while (s.step()) {
    const auto bench = benchmarks.find(s.column_int64(1));
    const auto metric = metrics.find(s.column_int64(2));
    if (bench == benchmarks.end() || !bench->second.keep) continue;
    if (metric == metrics.end() || !metric->second.keep) continue;
    if (role_of(bench->second.suite, metric->second.name) == "parameter") continue;
    const std::size_t run = suite_run_to_run.at(s.column_int64(0));
    const int64_t device = s.column_int64(3);
    SeriesId id{h.runs[run].group, "", s.column_int64(1), s.column_int64(2), device};
    if (const auto r = uuids.find(s.column_int64(0)); device >= 0 && r != uuids.end()) {
      if (const auto u = r->second.find(device); u != r->second.end()) {
        id = SeriesId{h.runs[run].detail.info.host.hostname + "\n" + u->second,
                      with_device_index(bench->second.name, -1), 0, s.column_int64(2), k_by_uuid};
        auto [at, fresh] = newest.try_emplace(id, run, s.column_int64(1), device);
        if (!fresh && std::get<0>(at->second) < run) at->second = {run, s.column_int64(1), device};
      }
    }
    values[id][run][s.column_int64(0)].push_back(s.column_double(4));
  }
  std::map<std::pair<std::size_t, std::size_t>, std::vector<EnvDifference>> memo;
  // In the order of (group, benchmark, metric, CUDA index) as shown.
  std::vector<std::pair<std::tuple<std::string, int64_t, int64_t, int64_t>, SeriesHistory>> built;
  for (auto& [id, by_run] : values) {
    SeriesHistory series;
    int64_t benchmark = id.benchmark, device = id.device;
    series.group = id.group;
    if (id.device == k_by_uuid) {
      const auto& [run, newest_benchmark, newest_device] = newest.at(id);
      series.group = h.runs[run].group;
      benchmark = newest_benchmark;
      device = newest_device;
    }
    const Name& bench = benchmarks.at(benchmark);
    const Metric& metric = metrics.at(id.metric);
    series.benchmark_id = benchmark;
    series.metric_id = id.metric;
    series.key =
        Key{bench.suite, bench.name, metric.name,
            device_label(device < 0 ? std::nullopt : std::optional<int>(static_cast<int>(device)))};
    series.unit = metric.unit;
    series.direction = metric.direction;
    series.primary = role_of(bench.suite, metric.name) == "primary";
    for (auto& [run, executions] : by_run) {  // std::map: runs in time order
      RunPoint p;
      p.run = run;
      std::vector<double> v, per_execution;
      for (auto& [suite_run, values_of] : executions) {
        v.insert(v.end(), values_of.begin(), values_of.end());
        per_execution.push_back(median(values_of));
      }
      p.n = v.size();
      p.median = median(v);
      // Repetitions of one process are not independent draws of the run (issue 35): with
      // several executions the interval is over their medians, one value a process.
      p.interval_is_range =
          !median_interval(per_execution.size() >= 2 ? per_execution : v, p.low, p.high);
      series.points.push_back(p);
    }
    built.emplace_back(std::tuple(series.group, benchmark, id.metric, device), std::move(series));
  }
  std::sort(built.begin(), built.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [order, series] : built) h.series.push_back(std::move(series));
  if (h.series.empty()) {
    throw bad_input("no series to show",
                    "the selected runs hold no repetitions" +
                        std::string(pattern ? " of benchmarks matching --benchmark" : ""),
                    "check the selector with 'gpubench runs' and the names with 'gpubench show'");
  }
  // Incremental recording: the stored scans and change points, by series.
  using SeriesKey = std::tuple<int64_t, int64_t, std::string, std::string>;
  std::map<SeriesKey, results::ChangePointScan> scans;
  std::map<SeriesKey, std::size_t> scanned_points;  // change points each scan stored
  std::map<SeriesKey, std::vector<std::pair<int64_t, double>>> stored;
  if (options.incremental) {
    const std::string parameters = scan_parameters_json(options).dump();
    for (results::ChangePointScan& scan : results::list_change_point_scans(db)) {
      nlohmann::json scanned = nlohmann::json::parse(scan.parameters, nullptr, false);
      const auto count = scanned.is_object() ? scanned.find(k_scan_change_points) : scanned.end();
      if (!scanned.is_object() || count == scanned.end() || !count->is_number_unsigned()) continue;
      SeriesKey key{scan.benchmark_id, scan.metric_id, scan.hardware_class, scan.device};
      scanned_points[key] = count->get<std::size_t>();
      scanned.erase(k_scan_change_points);
      if (scanned.dump() != parameters) continue;
      scans.emplace(std::move(key), std::move(scan));
    }
    for (const results::StoredChangePoint& p : results::list_change_points(db)) {
      const nlohmann::json detail = nlohmann::json::parse(p.detail, nullptr, false);
      if (!detail.is_object() || !detail.contains("device") || !detail["device"].is_string()) {
        continue;  // the scan's check then finds a change point missing: detected in full
      }
      const SeriesKey key{p.benchmark_id, p.metric_id, p.hardware_class,
                          detail["device"].get<std::string>()};
      // A change point recorded with other parameters (an older gpubench's --record replaces
      // change points but knows no scans) is not the scan's: the series is detected in full.
      if (!detail.contains("parameters") || detail["parameters"].dump() != parameters) {
        scans.erase(key);
        continue;
      }
      stored[key].emplace_back(p.run_id, p.p_value);
    }
    // A scan whose change points are not all there any more (deleted, or replaced by a record
    // that found fewer) vouches for nothing: the series is detected in full.
    for (auto it = scans.begin(); it != scans.end();) {
      const auto found = stored.find(it->first);
      const std::size_t have = found == stored.end() ? 0 : found->second.size();
      it = have == scanned_points[it->first] ? std::next(it) : scans.erase(it);
    }
  }
  for (SeriesHistory& series : h.series) {
    std::optional<Prior> prior;
    const SeriesKey key{series.benchmark_id, series.metric_id, series.group, series.key.device};
    if (const auto scan = scans.find(key); scan != scans.end()) {
      const auto it = stored.find(key);
      prior = prior_of(h, series, scan->second,
                       it == stored.end() ? std::vector<std::pair<int64_t, double>>{} : it->second);
    }
    find_changes(h, series, memo, prior ? &*prior : nullptr);
  }
  rank_differences(h);
  return h;
}

}  // namespace gpubench::compare
