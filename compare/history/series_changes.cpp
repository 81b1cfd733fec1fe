// The change points of loaded series: finding them (in full, on the tail, or reused from a stored
// scan), ranking the environment differences, grouping them by run, and recording them.
#include "compare/history/series_history.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <unordered_map>

#include "compare/history/series_history_detail.hpp"
#include "compare/stats/stats.hpp"
#include "results/change_points.hpp"

namespace gpubench::compare {
namespace {

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

}  // namespace

namespace series_history_detail {

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
  // A series the stored scan still describes is reused, detectable or not (a series with a zero
  // or negative median has no log medians and no change points either way).
  if (prior != nullptr && prior->reuse_all) s.scan = ScanKind::reused;
  std::vector<double> logs;
  for (const RunPoint& p : s.points) {
    if (!(p.median > 0)) return;  // log medians need positive values
    logs.push_back(std::log(p.median));
  }
  std::vector<std::pair<std::size_t, double>> points;  // (index, p value)
  if (prior != nullptr && prior->reuse_all) {
    points = prior->kept;
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

}  // namespace series_history_detail

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
    // Per side, the geometric mean of the speed-ups with the mean of their 99% log intervals:
    // the series share their runs, so their errors are not independent and a t interval over
    // the series (n - 1 df) would treat two series as two independent witnesses.
    struct LogSums {
      double log_sum = 0, half_sum = 0;
      std::size_t count = 0, with_interval = 0;
    } worse, better;
    for (const auto& [si, ci] : rc.changes) {
      const SeriesHistory& s = history.series[si];
      const SeriesChange& c = s.changes[ci];
      if (!s.primary) {
        ++rc.secondary;
        continue;
      }
      if (s.direction == results::Direction::unknown || !(c.ratio > 0)) {
        ++rc.unknown_direction;
        continue;
      }
      // log speed-up: log(after/before) for higher-is-better, its negative for lower.
      const double sign = s.direction == results::Direction::lower ? -1.0 : 1.0;
      const double log_speed = sign * std::log(c.ratio);
      LogSums& side = log_speed < 0 ? worse : better;
      side.log_sum += log_speed;
      ++side.count;
      if (std::isfinite(c.ci_low) && std::isfinite(c.ci_high) && c.ci_low > 0) {
        side.half_sum += (std::log(c.ci_high) - std::log(c.ci_low)) / 2;
        ++side.with_interval;
      }
    }
    for (auto [sums, mean] : {std::pair{&worse, &rc.worse}, std::pair{&better, &rc.better}}) {
      mean->count = sums->count;
      if (sums->count == 0) {
        mean->ci_low = mean->ci_high = std::nan("");
        continue;
      }
      const double centre = sums->log_sum / static_cast<double>(sums->count);
      mean->value = std::exp(centre);
      if (sums->with_interval > 0) {
        const double half = sums->half_sum / static_cast<double>(sums->with_interval);
        mean->ci_low = std::exp(centre - half);
        mean->ci_high = std::exp(centre + half);
      } else {
        mean->ci_low = mean->ci_high = std::nan("");
      }
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
  // Only when some run is excluded, so scans stored before exclusions existed stay reusable.
  if (!options.excluded_runs.empty()) parameters["excluded_runs"] = options.excluded_runs;
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
  std::vector<results::SeriesOfChangePoints> series;
  std::vector<results::StoredChangePoint> rows;
  std::vector<results::ChangePointScan> scans;
  for (const SeriesHistory& s : history.series) {
    series.push_back({s.benchmark_id, s.metric_id, s.group});
    if (!s.points.empty()) {
      // The scan says how many change points it stored: the next record reuses it only while
      // they are all still there (an older gpubench's --record, or one with other parameters,
      // replaces or deletes them and leaves the scan).
      nlohmann::json scan_parameters = parameters;
      scan_parameters[series_history_detail::k_scan_change_points] = s.changes.size();
      scans.push_back({s.benchmark_id, s.metric_id, s.group, s.key.device, scan_parameters.dump(),
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
