#include "suites/allreduce/sweep.hpp"

namespace gpubench::allreduce {

SweepPlan nccl_plan(suite::Profile profile) {
  SweepPlan p;
  switch (profile) {
    case suite::Profile::quick:
      p.max_bytes = std::size_t{256} << 20;
      break;
    case suite::Profile::standard:
      p.max_bytes = std::size_t{1} << 30;
      break;
    case suite::Profile::full:
      p.max_bytes = std::size_t{8} << 30;
      break;
  }
  return p;
}

SweepPlan host_plan(suite::Profile profile) {
  SweepPlan p;
  switch (profile) {
    case suite::Profile::quick:
      p.max_bytes = std::size_t{512} << 10;
      p.factor = 4;
      break;
    case suite::Profile::standard:
      p.max_bytes = std::size_t{64} << 20;
      break;
    case suite::Profile::full:
      p.max_bytes = std::size_t{1} << 30;
      break;
  }
  return p;
}

std::string series_name(const SeriesKey& key) {
  std::string name = std::string(to_string(key.collective)) + "/dtype:" + key.dtype +
                     "/mode:" + to_string(key.placement) + "/ranks:" + std::to_string(key.ranks);
  if (key.scope != Scope::world) name += std::string("/scope:") + to_string(key.scope);
  if (key.host_reference) name += "/device:host";
  return name;
}

void SweepRecorder::add(const SeriesKey& key, std::size_t nominal_bytes, std::size_t bytes,
                        double busbw_GB_per_s) {
  Point& p = m_busbw[key][nominal_bytes];
  p.bytes = bytes;
  p.busbw_GB_per_s.push_back(busbw_GB_per_s);
}

void SweepRecorder::set_nodes(Scope scope, int ranks, int nodes) {
  m_nodes[{scope, ranks}] = nodes;
}

int SweepRecorder::nodes(Scope scope, int ranks) const {
  const auto it = m_nodes.find({scope, ranks});
  return it == m_nodes.end() ? 1 : it->second;
}

void SweepRecorder::add_slow_rank(const std::string& case_name, const SlowRank& slow) {
  m_slow.push_back({{"benchmark", case_name},
                    {"rank", slow.rank.rank},
                    {"local_rank", slow.rank.local_rank},
                    {"host", slow.rank.host},
                    {"gpu_uuid", slow.rank.gpu_uuid},
                    {"ratio_to_median", slow.ratio_to_median},
                    {"text", describe(slow)}});
}

std::optional<double> SweepRecorder::busbw(const SeriesKey& key, std::size_t nominal_bytes) const {
  const auto s = m_busbw.find(key);
  if (s == m_busbw.end()) return std::nullopt;
  const auto b = s->second.find(nominal_bytes);
  if (b == s->second.end() || b->second.busbw_GB_per_s.empty()) return std::nullopt;
  return median(b->second.busbw_GB_per_s);
}

std::string SweepRecorder::unlike_link(const SeriesKey& key) const {
  const int mine = nodes(key.scope, key.ranks);
  const int two = nodes(key.scope, 2);
  if ((mine > 1) == (two > 1)) return "";
  return "spans " + std::to_string(mine) + " node" + (mine == 1 ? "" : "s") + " while ranks:2 " +
         (two > 1 ? "spans " + std::to_string(two) + " nodes" : "runs on one node") +
         ": not a like link, so no scaling efficiency (compare scope:inter_node, or this series "
         "across runs)";
}

std::optional<double> SweepRecorder::efficiency_vs_two(const SeriesKey& key,
                                                       std::size_t nominal_bytes) const {
  if (key.ranks <= 2 || key.scope != Scope::world || !unlike_link(key).empty()) {
    return std::nullopt;
  }
  SeriesKey two = key;
  two.ranks = 2;
  const auto mine = busbw(key, nominal_bytes);
  const auto base = busbw(two, nominal_bytes);
  if (!mine || !base) return std::nullopt;
  return scaling_efficiency(*mine, *base);
}

nlohmann::json SweepRecorder::summary() const {
  nlohmann::json series = nlohmann::json::array();
  for (const auto& [key, sizes] : m_busbw) {
    std::vector<std::pair<std::size_t, double>> points;  // (bytes, median busbw)
    for (const auto& [nominal, p] : sizes) {
      if (!p.busbw_GB_per_s.empty()) points.emplace_back(p.bytes, median(p.busbw_GB_per_s));
    }
    if (points.empty()) continue;
    std::pair<std::size_t, double> peak = points.front();
    for (const auto& p : points) {
      if (p.second > peak.second) peak = p;
    }
    const auto knee = knee_bytes(points);
    const std::size_t largest_nominal = sizes.rbegin()->first;
    const auto eff = efficiency_vs_two(key, largest_nominal);
    nlohmann::json row = {
        {"series", series_name(key)},
        {"sizes", points.size()},
        {"peak_busbw_GB_per_s", peak.second},
        {"peak_bytes", peak.first},
        {"knee_bytes", knee ? nlohmann::json(*knee) : nlohmann::json(nullptr)},
        {"scaling_efficiency_vs_2_ranks", eff ? nlohmann::json(*eff) : nlohmann::json(nullptr)},
        {"largest_bytes", sizes.rbegin()->second.bytes},
        {"nodes", nodes(key.scope, key.ranks)}};
    if (key.scope == Scope::world && key.ranks > 2) {
      if (const std::string why = unlike_link(key); !why.empty()) row["scaling_note"] = why;
    }
    series.push_back(std::move(row));
  }
  return {{"series", series}, {"slow_ranks", m_slow}};
}

}  // namespace gpubench::allreduce
