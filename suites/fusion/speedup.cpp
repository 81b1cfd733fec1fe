#include "suites/fusion/speedup.hpp"

#include <algorithm>

namespace gpubench::fusion {

void Baselines::record(const std::string& key, double ms_per_call) {
  m_samples[key].push_back(ms_per_call);
}

std::optional<double> Baselines::median_ms(const std::string& key) const {
  const auto it = m_samples.find(key);
  if (it == m_samples.end() || it->second.empty()) return std::nullopt;
  return median(it->second);
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
