// Series noisy between executions (compare/noisy_series.hpp).
#include "compare/noisy_series.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compare/stats/executions.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {

void NoisySeriesFinder::add(const results::ResultRow& row) {
  if (row.status != results::BenchmarkStatus::ok || row.values.empty()) return;
  if (!compared_metric(row.metric, std::nullopt)) return;
  // Primary metrics only: the ones compare counts and gates on (secondary ones are shown there).
  if (row.role == results::MetricRole::parameter || row.role == results::MetricRole::secondary) {
    return;
  }
  const double mean = execution_log_mean(row.values);
  if (!std::isfinite(mean)) return;
  Series& s = m_series[Key{row.suite, row.benchmark, row.metric, device_label(row.device_index)}];
  s.sign = row.direction == results::Direction::higher ? -1.0 : 1.0;
  s.means[row.suite_run_id] = s.sign * mean;
}

std::vector<NoisySeries> NoisySeriesFinder::find(double threshold, double confidence) const {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  m_sized = 0;
  // Per suite: its executions (suite run ids), and each series' means placed at them.
  std::map<std::string, std::vector<const std::pair<const Key, Series>*>> suites;
  for (const auto& entry : m_series) {
    if (entry.second.means.size() >= 2) suites[entry.first.suite].push_back(&entry);
  }
  std::vector<NoisySeries> out;
  for (const auto& [suite, list] : suites) {
    std::vector<int64_t> ids;
    for (const auto* s : list) {
      for (const auto& [id, mean] : s->second.means) ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    SuiteExecutionMeans means;
    for (const auto* s : list) {
      std::vector<double> placed(ids.size(), nan);
      for (const auto& [id, mean] : s->second.means) {
        placed[static_cast<std::size_t>(std::lower_bound(ids.begin(), ids.end(), id) -
                                        ids.begin())] = mean;
      }
      means.base.push_back(std::move(placed));
      means.candidate.emplace_back();  // one run: no second side
    }
    const std::vector<SeriesExecutionNoise> noise = execution_noise(means);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const SeriesExecutionNoise& n = noise[i];
      if (!(n.variance > 0) || !(n.df > 0)) continue;
      ++m_sized;
      const std::size_t executions = list[i]->second.means.size();
      const ExecutionSizing z = size_executions(n, executions, threshold, confidence);
      if (!(z.mde > threshold)) continue;
      out.push_back({list[i]->first, executions, std::sqrt(n.variance), z.mde,
                     z.executions_needed});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const NoisySeries& a, const NoisySeries& b) { return a.mde > b.mde; });
  return out;
}

std::vector<std::string> noisy_series_lines(const std::vector<NoisySeries>& noisy,
                                            double threshold, std::size_t limit) {
  std::vector<std::string> lines;
  auto pct = [](double f) {
    return f > 10 ? std::string("more than 1000%") : format_significant(f * 100.0, 2) + "%";
  };
  for (std::size_t i = 0; i < noisy.size() && i < limit; ++i) {
    const NoisySeries& s = noisy[i];
    std::string line = s.key.benchmark + " " + s.key.metric +
                       (s.key.device == "host" ? "" : " (" + s.key.device + ")") + ": " +
                       pct(s.execution_cv) + " between executions; two runs of " +
                       std::to_string(s.executions) + " detect " + pct(s.mde) + ", ";
    line += s.executions_needed > 0
                ? "about " + std::to_string(s.executions_needed) + " executions a side would " +
                      "detect " + pct(threshold)
                : "more than 100 executions a side would be needed to detect " + pct(threshold);
    lines.push_back(std::move(line));
  }
  if (noisy.size() > limit) {
    lines.push_back("... and " + std::to_string(noisy.size() - limit) + " more");
  }
  return lines;
}

}  // namespace gpubench::compare
