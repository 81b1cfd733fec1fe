#include "compare/series_history.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <span>
#include <tuple>
#include <unordered_map>

#include "compare/selection.hpp"
#include "compare/stats.hpp"
#include "results/change_points.hpp"
#include "results/sqlite.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {
namespace {

using results::Statement;

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

struct SeriesId {
  std::string group;
  int64_t benchmark, metric, device;
  auto operator<=>(const SeriesId&) const = default;
};

std::vector<EnvDifference> differences(const HistoryRun& before, const HistoryRun& after) {
  std::vector<EnvDifference> out = environment_differences({before.detail}, {after.detail});
  append_doctor_differences({before.detail}, {after.detail}, out);
  std::map<std::string, std::pair<std::string, std::string>> tags;
  for (const auto& [k, v] : before.detail.run.tags) tags[k].first = v;
  for (const auto& [k, v] : after.detail.run.tags) tags[k].second = v;
  for (const auto& [k, v] : tags) {
    if (v.first != v.second) {
      out.push_back({"tag " + k, v.first.empty() ? "(unset)" : v.first,
                     v.second.empty() ? "(unset)" : v.second});
    }
  }
  return out;
}

std::vector<double> segment(const std::vector<RunPoint>& points, std::size_t from, std::size_t to) {
  std::vector<double> out;
  for (std::size_t i = from; i < to; ++i) out.push_back(points[i].median);
  return out;
}

// The stored state of one series that incremental recording starts from.
struct Prior {
  std::vector<std::pair<std::size_t, double>> kept;  // (point index, p value), oldest first
  std::size_t tail_from = 0;                         // detection runs on points [tail_from, n)
  bool reuse_all = false;                            // no new run: nothing to detect
};

// The prior of a series from its stored scan and change points ((run id, p), any order), or none
// when the scan no longer describes the start of this series (HistoryOptions::incremental).
std::optional<Prior> prior_of(const History& h, const SeriesHistory& s,
                              const results::ChangePointScan& scan,
                              const std::vector<std::pair<int64_t, double>>& stored) {
  if (s.points.empty() || scan.points < 1 ||
      static_cast<std::size_t>(scan.points) > s.points.size()) {
    return std::nullopt;
  }
  const auto last = static_cast<std::size_t>(scan.points - 1);
  if (h.runs[s.points.front().run].id != scan.first_run_id ||
      h.runs[s.points[last].run].id != scan.last_run_id) {
    return std::nullopt;  // runs deleted, merged in or windowed away before the scan's end
  }
  std::unordered_map<int64_t, std::size_t> at;
  for (std::size_t i = 0; i <= last; ++i) at.emplace(h.runs[s.points[i].run].id, i);
  Prior prior;
  for (const auto& [run, p] : stored) {
    const auto it = at.find(run);
    if (it == at.end() || it->second == 0) return std::nullopt;
    prior.kept.emplace_back(it->second, p);
  }
  std::sort(prior.kept.begin(), prior.kept.end());
  if (s.points.size() == static_cast<std::size_t>(scan.points)) {
    prior.reuse_all = true;
  } else if (!prior.kept.empty()) {
    prior.tail_from = prior.kept.back().first;  // the tail from the last stored change point
  }  // else no stored change point: the tail is the whole series (tail_from 0)
  return prior;
}

void find_changes(const History& h, SeriesHistory& s,
                  std::map<std::pair<std::size_t, std::size_t>, std::vector<EnvDifference>>& memo,
                  const Prior* prior) {
  std::vector<double> logs;
  for (const RunPoint& p : s.points) {
    if (!(p.median > 0)) return;  // log medians need positive values
    logs.push_back(std::log(p.median));
  }
  std::vector<std::pair<std::size_t, double>> points;  // (index, p value)
  if (prior != nullptr && prior->reuse_all) {
    points = prior->kept;
    s.scan = ScanKind::reused;
  } else {
    const std::size_t from = prior != nullptr ? prior->tail_from : 0;
    if (prior != nullptr) points = prior->kept;
    const std::span<const double> tail = std::span<const double>(logs).subspan(from);
    for (const ChangePoint& p : detect_change_points(tail, h.options.detection)) {
      points.emplace_back(p.index + from, p.stats.p_value);
    }
    s.scan = from > 0 ? ScanKind::tail : ScanKind::full;
    s.scanned_from = from;
  }
  for (std::size_t c = 0; c < points.size(); ++c) {
    const std::size_t from = c == 0 ? 0 : points[c - 1].first;
    const std::size_t to = c + 1 < points.size() ? points[c + 1].first : s.points.size();
    const std::vector<double> before = segment(s.points, from, points[c].first);
    const std::vector<double> after = segment(s.points, points[c].first, to);
    SeriesChange change;
    change.point = points[c].first;
    change.median_before = median(before);
    change.median_after = median(after);
    change.p_value = points[c].second;
    const LogRatioEstimate e = log_ratio_estimate(before, after);
    change.ratio = e.valid ? e.ratio : change.median_after / change.median_before;
    change.ci_low = e.valid ? e.ci_low : std::nan("");
    change.ci_high = e.valid ? e.ci_high : std::nan("");
    const std::pair<std::size_t, std::size_t> runs{s.points[change.point - 1].run,
                                                   s.points[change.point].run};
    auto it = memo.find(runs);
    if (it == memo.end()) {
      it = memo.emplace(runs, differences(h.runs[runs.first], h.runs[runs.second])).first;
    }
    for (const EnvDifference& d : it->second) change.differences.push_back({d, 0, 0});
    s.changes.push_back(std::move(change));
  }
}

// Ranks every change's differences: by the series that changed at the same run with that field
// differing, then by how rarely the field differs between consecutive runs of a group.
void rank_differences(History& h) {
  std::map<std::string, std::map<std::string, std::size_t>> flips;  // group -> field -> count
  std::map<std::string, std::size_t> last_of_group;
  for (std::size_t i = 0; i < h.runs.size(); ++i) {
    auto it = last_of_group.find(h.runs[i].group);
    if (it != last_of_group.end()) {
      for (const EnvDifference& d : differences(h.runs[it->second], h.runs[i])) {
        ++flips[h.runs[i].group][d.field];
      }
    }
    last_of_group[h.runs[i].group] = i;
  }
  std::map<std::pair<std::size_t, std::string>, std::size_t> at_run;  // (run, field) -> series
  for (const SeriesHistory& s : h.series) {
    for (const SeriesChange& c : s.changes) {
      for (const RankedDifference& d : c.differences)
        ++at_run[{s.points[c.point].run, d.difference.field}];
    }
  }
  for (SeriesHistory& s : h.series) {
    for (SeriesChange& c : s.changes) {
      const std::size_t run = s.points[c.point].run;
      for (RankedDifference& d : c.differences) {
        d.series = at_run[{run, d.difference.field}];
        d.flips = flips[s.group][d.difference.field];
      }
      std::stable_sort(c.differences.begin(), c.differences.end(),
                       [](const RankedDifference& a, const RankedDifference& b) {
                         if (a.series != b.series) return a.series > b.series;
                         return a.flips < b.flips;
                       });
    }
  }
}

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
  for (int64_t id : selected_runs(store, options.selector)) {
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
  for (HistoryRun& r : h.runs) r.annotations = r.detail.annotations;

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
  // The repetitions of every kept series, per run, for the per-run intervals.
  std::map<SeriesId, std::map<std::size_t, std::vector<double>>> values;
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
    values[{h.runs[run].group, s.column_int64(1), s.column_int64(2), s.column_int64(3)}][run]
        .push_back(s.column_double(4));
  }
  std::map<std::pair<std::size_t, std::size_t>, std::vector<EnvDifference>> memo;
  for (auto& [id, by_run] : values) {
    SeriesHistory series;
    series.group = id.group;
    const Name& bench = benchmarks.at(id.benchmark);
    const Metric& metric = metrics.at(id.metric);
    series.benchmark_id = id.benchmark;
    series.metric_id = id.metric;
    series.key = Key{bench.suite, bench.name, metric.name,
                     device_label(id.device < 0 ? std::nullopt
                                                : std::optional<int>(static_cast<int>(id.device)))};
    series.unit = metric.unit;
    series.direction = metric.direction;
    series.primary = role_of(bench.suite, metric.name) == "primary";
    for (auto& [run, v] : by_run) {  // std::map: runs in time order
      RunPoint p;
      p.run = run;
      p.n = v.size();
      p.median = median(v);
      p.interval_is_range = !median_interval(v, p.low, p.high);
      series.points.push_back(p);
    }
    h.series.push_back(std::move(series));
  }
  if (h.series.empty()) {
    throw bad_input("no series to show",
                    "the selected runs hold no repetitions" +
                        std::string(pattern ? " of benchmarks matching --benchmark" : ""),
                    "check the selector with 'gpubench runs' and the names with 'gpubench show'");
  }
  // Incremental recording: the stored scans and change points, by series.
  using SeriesKey = std::tuple<int64_t, int64_t, std::string, std::string>;
  std::map<SeriesKey, results::ChangePointScan> scans;
  std::map<SeriesKey, std::vector<std::pair<int64_t, double>>> stored;
  if (options.incremental) {
    const std::string parameters = scan_parameters_json(options).dump();
    for (results::ChangePointScan& scan : results::list_change_point_scans(db)) {
      if (scan.parameters != parameters) continue;
      SeriesKey key{scan.benchmark_id, scan.metric_id, scan.hardware_class, scan.device};
      scans.emplace(std::move(key), std::move(scan));
    }
    for (const results::StoredChangePoint& p : results::list_change_points(db)) {
      const nlohmann::json detail = nlohmann::json::parse(p.detail, nullptr, false);
      if (!detail.is_object() || !detail.contains("device") || !detail["device"].is_string()) {
        continue;  // the scan's check then finds a change point missing: detected in full
      }
      stored[{p.benchmark_id, p.metric_id, p.hardware_class, detail["device"].get<std::string>()}]
          .emplace_back(p.run_id, p.p_value);
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

std::vector<RunChanges> changes_by_run(const History& history) {
  std::map<std::size_t, RunChanges> by_run;
  for (std::size_t si = 0; si < history.series.size(); ++si) {
    const SeriesHistory& s = history.series[si];
    for (std::size_t ci = 0; ci < s.changes.size(); ++ci) {
      const SeriesChange& c = s.changes[ci];
      const std::size_t run = s.points[c.point].run;
      RunChanges& rc = by_run[run];
      rc.run = run;
      ++rc.series;
      rc.changes.emplace_back(si, ci);
      for (const RankedDifference& d : c.differences) {
        auto same = std::find_if(rc.differences.begin(), rc.differences.end(), [&](const auto& x) {
          return x.difference.field == d.difference.field;
        });
        if (same == rc.differences.end()) rc.differences.push_back(d);
      }
    }
  }
  std::vector<RunChanges> out;
  for (auto& [run, rc] : by_run) {
    // The geometric mean of the changes, with the mean of their 99% log intervals: the series
    // share their runs, so their errors are not independent and a t interval over the series
    // (n - 1 df) would treat two series as two independent witnesses.
    double log_sum = 0, half_sum = 0;
    std::size_t with_interval = 0;
    for (const auto& [si, ci] : rc.changes) {
      const SeriesChange& c = history.series[si].changes[ci];
      log_sum += std::log(c.ratio);
      if (std::isfinite(c.ci_low) && std::isfinite(c.ci_high) && c.ci_low > 0) {
        half_sum += (std::log(c.ci_high) - std::log(c.ci_low)) / 2;
        ++with_interval;
      }
    }
    const double centre = log_sum / static_cast<double>(rc.changes.size());
    rc.geomean.count = rc.changes.size();
    rc.geomean.value = std::exp(centre);
    if (with_interval > 0) {
      const double half = half_sum / static_cast<double>(with_interval);
      rc.geomean.ci_low = std::exp(centre - half);
      rc.geomean.ci_high = std::exp(centre + half);
    } else {
      rc.geomean.ci_low = rc.geomean.ci_high = std::nan("");
    }
    std::stable_sort(rc.differences.begin(), rc.differences.end(),
                     [](const RankedDifference& a, const RankedDifference& b) {
                       if (a.series != b.series) return a.series > b.series;
                       return a.flips < b.flips;
                     });
    out.push_back(std::move(rc));
  }
  return out;
}

}  // namespace gpubench::compare

namespace gpubench::compare {

nlohmann::json detection_parameters_json(const ChangePointOptions& o) {
  return {{"method", "e-divisive-means"},
          {"significance", o.significance == Significance::permutation ? "permutation" : "ttest"},
          {"max_pvalue", o.max_pvalue},
          {"permutations", o.permutations},
          {"seed", o.seed},
          {"min_segment", o.min_segment},
          {"min_magnitude", o.min_magnitude},
          {"short_interval_ttest", o.short_interval_ttest}};
}

nlohmann::json scan_parameters_json(const HistoryOptions& options) {
  nlohmann::json parameters = detection_parameters_json(options.detection);
  parameters["selector"] = options.selector;
  parameters["last"] = options.last;
  return parameters;
}

ScanCounts scan_counts(const History& history) {
  ScanCounts counts;
  for (const SeriesHistory& s : history.series) {
    if (s.scan == ScanKind::reused) {
      ++counts.reused;
    } else if (s.scan == ScanKind::tail) {
      ++counts.tail;
      counts.tail_points += s.points.size() - s.scanned_from;
    } else {
      ++counts.full;
    }
  }
  return counts;
}

std::size_t record_change_points(results::Store& store, const History& history) {
  const nlohmann::json parameters = scan_parameters_json(history.options);
  const std::string parameters_text = parameters.dump();
  std::vector<results::SeriesOfChangePoints> series;
  std::vector<results::StoredChangePoint> rows;
  std::vector<results::ChangePointScan> scans;
  for (const SeriesHistory& s : history.series) {
    series.push_back({s.benchmark_id, s.metric_id, s.group});
    if (!s.points.empty()) {
      scans.push_back({s.benchmark_id, s.metric_id, s.group, s.key.device, parameters_text,
                       history.runs[s.points.front().run].id, history.runs[s.points.back().run].id,
                       static_cast<int64_t>(s.points.size())});
    }
    for (const SeriesChange& c : s.changes) {
      nlohmann::json diffs = nlohmann::json::array();
      for (const RankedDifference& d : c.differences) {
        diffs.push_back({{"field", d.difference.field},
                         {"before", d.difference.base},
                         {"after", d.difference.candidate}});
      }
      const nlohmann::json detail = {
          {"parameters", parameters},
          {"device", s.key.device},
          {"previous_run", history.runs[s.points[c.point - 1].run].id},
          {"first_run", history.runs[s.points.front().run].id},
          {"last_run", history.runs[s.points.back().run].id},
          {"median_before", c.median_before},
          {"median_after", c.median_after},
          {"ci_low", std::isfinite(c.ci_low) ? nlohmann::json(c.ci_low) : nlohmann::json()},
          {"ci_high", std::isfinite(c.ci_high) ? nlohmann::json(c.ci_high) : nlohmann::json()},
          {"differences", std::move(diffs)}};
      rows.push_back({s.benchmark_id, s.metric_id, s.group, history.runs[s.points[c.point].run].id,
                      c.ratio, c.p_value, detail.dump(), ""});
    }
  }
  results::replace_change_points(store.database(), series, rows, scans);
  return rows.size();
}

}  // namespace gpubench::compare
