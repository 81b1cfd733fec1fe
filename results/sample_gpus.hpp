// Samples that each ran on several GPUs at once (an allreduce repetition: one collective over n
// GPUs, on one node or several). Such a sample has no single GPU (samples.gpu_device_id NULL), so
// its states come from every GPU it ran on: the suite names them in its context, and
// Store::classify_samples classifies the sample against each one's telemetry and expected clock
// and combines the answers (combine_gpu_states).
//
// The context key "gpubench.sample_devices" (a JSON array, or a string holding one):
//   [{"params": {"ranks": "8", "scope": ""}, "devices": [0, 1, 2, 3, 4, 5, 6, 7]}, ...]
// A benchmark whose name parameters match an entry's `params` (same text; "" = the parameter is
// absent) ran each of its samples on the GPUs `devices`, indices of the suite's
// "gpubench.devices" record (where each index names a GPU by UUID, on whichever node it is).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "results/sample_states.hpp"

namespace gpubench::results {

class Database;

struct SampleDeviceSet {
  std::map<std::string, std::string> params;  // key -> text; "" = absent
  std::vector<int64_t> devices;               // gpubench.devices indices
};

// The entries of context["gpubench.sample_devices"], empty without the key. Throws
// Error(bad_input) naming the fault when it is not such an array, or when an entry names a
// device that "gpubench.devices" does not list.
std::vector<SampleDeviceSet> sample_device_sets(const nlohmann::json& context);

// A sample's states from its GPUs' states: a state is true when it is true on any GPU (one
// throttled GPU holds the whole collective back), false only when it is known false on every
// GPU, else unknown (a GPU without telemetry, e.g. on another node, leaves "not throttled"
// unproven).
SampleStates combine_gpu_states(const std::vector<SampleStates>& per_gpu);

// The UUIDs of the GPUs each multi-GPU benchmark of one suite run ran on, read once from the
// suite run's stored context and looked up per benchmark (cached).
class SampleGpus {
 public:
  SampleGpus(Database& db, int64_t suite_run_id);
  // Empty when the benchmark matches no entry (or the suite named none).
  const std::vector<std::string>& of(int64_t benchmark_id);

 private:
  Database& m_db;
  std::vector<SampleDeviceSet> m_sets;
  std::unordered_map<int64_t, std::string> m_uuid_of;  // gpubench.devices index -> UUID
  std::unordered_map<int64_t, std::vector<std::string>> m_cache;
};

}  // namespace gpubench::results
