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

std::optional<double> speedup_over_v1(const FusionCase& c, double call_ms,
                                      const std::function<double(const FusionCase& v1)>& time_v1) {
  const std::string key = baseline_key(c);
  const std::size_t repetition = baselines().next_repetition(benchmark_name(c));
  if (c.variant == Variant::v1) {
    baselines().record(key, call_ms);
  } else if (!baselines().for_repetition(key, repetition)) {
    FusionCase v1 = c;
    v1.variant = Variant::v1;
    baselines().record(key, time_v1(v1));
  }
  if (const auto base = baselines().for_repetition(key, repetition); base && call_ms > 0)
    return c.variant == Variant::v1 ? 1.0 : *base / call_ms;
  return std::nullopt;
}

}  // namespace gpubench::fusion
