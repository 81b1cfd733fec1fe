#include "suites/allreduce/sample_devices.hpp"

#include "util/strings.hpp"

namespace gpubench::allreduce {

namespace {
std::string at_or_empty(const std::vector<std::string>& list, std::size_t i) {
  if (i >= list.size()) return "";
  const std::string v(trim(list[i]));
  return v == "none" || v == "unknown" ? std::string() : v;
}
}  // namespace

std::vector<SlotGpu> slot_gpus(const std::vector<RankGpus>& ranks) {
  std::vector<SlotGpu> out;
  if (ranks.size() == 1) {
    // Alone: the process lists every GPU it drives; slot = CUDA ordinal.
    const RankGpus& r = ranks.front();
    const auto uuids = split(r.uuids, ',');
    const auto pcis = split(r.pci_bus_ids, ',');
    for (std::size_t i = 0; i < uuids.size(); ++i) {
      if (trim(uuids[i]).empty()) continue;
      out.push_back({static_cast<int>(i), r.rank, static_cast<int>(i), r.host,
                     at_or_empty(uuids, i), at_or_empty(pcis, i)});
    }
    return out;
  }
  for (const RankGpus& r : ranks) {
    // Under a launcher a rank drives one GPU (its local rank's).
    out.push_back({r.rank, r.rank, r.local_rank, r.host, at_or_empty(split(r.uuids, ','), 0),
                   at_or_empty(split(r.pci_bus_ids, ','), 0)});
  }
  return out;
}

std::vector<int> series_slots(Scope scope, int ranks, const std::vector<SlotGpu>& gpus) {
  std::vector<int> out;
  for (const SlotGpu& g : gpus) {
    const bool in = scope == Scope::world        ? g.slot < ranks
                    : scope == Scope::intra_node ? g.local_rank < ranks
                                                 : g.local_rank == 0;
    if (in) out.push_back(g.slot);
  }
  return out;
}

nlohmann::json devices_record(const std::vector<SlotGpu>& gpus) {
  nlohmann::json out = nlohmann::json::array();
  for (const SlotGpu& g : gpus) {
    out.push_back({{"index", g.slot},
                   {"uuid", g.uuid},
                   {"pci_bus_id", g.pci_bus_id},
                   {"host", g.host},
                   {"rank", g.rank},
                   {"local_rank", g.local_rank}});
  }
  return out;
}

nlohmann::json sample_devices_record(const std::vector<std::pair<Scope, int>>& series,
                                     const std::vector<SlotGpu>& gpus) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [scope, ranks] : series) {
    const std::vector<int> slots = series_slots(scope, ranks, gpus);
    if (slots.empty()) continue;
    out.push_back(
        {{"params",
          {{"ranks", std::to_string(ranks)},
           {"scope", scope == Scope::world ? std::string() : std::string(to_string(scope))},
           {"device", ""}}},
         {"devices", slots}});
  }
  return out;
}

}  // namespace gpubench::allreduce
