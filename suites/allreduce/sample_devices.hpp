// Which GPUs each allreduce sample ran on, for the results store (results/sample_gpus.hpp): a
// collective repetition has no GPU of its own, so rank 0 records every rank's GPU, on every node,
// as "gpubench.devices" (one entry per GPU slot) and the slots of each series as
// "gpubench.sample_devices"; the store then classifies each sample over those GPUs' telemetry and
// expected clocks (suites/README.md "Sample states"). CUDA- and MPI-free.
//
// A GPU slot is who a GPU is in the run: alone (one process driving every GPU), its CUDA ordinal
// (= its communicator rank in every series); under a launcher (one GPU per rank), the world rank
// driving it. The series' slots: world scope ranks:n = slots 0..n-1; scope:intra_node = every
// rank whose local rank < n (each node's first n, all nodes at once); scope:inter_node = each
// node's local rank 0.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "suites/allreduce/collectives.hpp"

namespace gpubench::allreduce {

struct SlotGpu {
  int slot = 0;
  int rank = 0;        // world rank (alone: 0, the one process)
  int local_rank = 0;  // alone: the CUDA ordinal
  std::string host;
  std::string uuid;        // "" when the rank could not name its GPU
  std::string pci_bus_id;  // "" when unknown
};

// The GPUs of a run, one per slot. `uuids` / `pci_bus_ids`: what each rank drives, as comma
// lists (local_gpu_uuids()); alone the one process lists every GPU, under a launcher each rank
// its one. hosts, local ranks: per world rank.
struct RankGpus {
  int rank = 0;
  int local_rank = 0;
  std::string host;
  std::string uuids;
  std::string pci_bus_ids;
};
std::vector<SlotGpu> slot_gpus(const std::vector<RankGpus>& ranks);

// The slots a series runs on.
std::vector<int> series_slots(Scope scope, int ranks, const std::vector<SlotGpu>& gpus);

// "gpubench.devices": [{"index": slot, "uuid", "pci_bus_id", "host", "rank", "local_rank"}].
nlohmann::json devices_record(const std::vector<SlotGpu>& gpus);

// "gpubench.sample_devices": per series {"params": {"ranks": "n", "scope": "" | "intra_node" |
// "inter_node", "device": ""}, "devices": [slots]} ("device": "" keeps the host reference's
// `device:host` cases out: they run on no GPU). Series without a slot are left out.
nlohmann::json sample_devices_record(const std::vector<std::pair<Scope, int>>& series,
                                     const std::vector<SlotGpu>& gpus);

}  // namespace gpubench::allreduce
