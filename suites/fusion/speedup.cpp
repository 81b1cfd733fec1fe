#include "suites/fusion/speedup.hpp"

#include <algorithm>

namespace gpubench::fusion {

void Baselines::record(const std::string& key, double median_ms) {
  m_v1[key].push_back(median_ms);
}

std::optional<double> Baselines::for_repetition(const std::string& key, std::size_t index) const {
  const auto it = m_v1.find(key);
  if (it == m_v1.end() || it->second.empty()) return std::nullopt;
  return it->second[std::min(index, it->second.size() - 1)];
}

std::size_t Baselines::next_repetition(const std::string& name) {
  return m_runs[name]++;
}

Baselines& baselines() {
  static Baselines registry;
  return registry;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace gpubench::fusion
