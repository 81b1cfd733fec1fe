// Where a GPU sits among the host's NUMA nodes and CPUs, from sysfs (CUDA-free; a root argument,
// so tests use a fake tree), and the calling thread's CPU affinity. Shared by the transfer suite's
// buffer placement (suites/transfer/numa.hpp) and the measuring thread's pin (pinning.hpp).
//
//   <root>/bus/pci/devices/<bus id>/numa_node      the GPU's node; -1 = the platform says nothing
//   <root>/bus/pci/devices/<bus id>/local_cpulist  CPUs next to the device ("0-31,64-95")
//   <root>/devices/system/node/has_memory          nodes with memory ("0-1"); falls back to online
//   <root>/devices/system/node/node<N>/cpulist     CPUs of a node
//   <root>/devices/system/node/has_cpu             nodes with CPUs (else: a non-empty cpulist)
//   <root>/devices/system/node/node<N>/distance    SLIT distances to the online nodes, in order
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpubench::suite {

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; nullopt when malformed. Empty text -> empty list.
std::optional<std::vector<int>> parse_id_list(const std::string& text);
// The inverse, for labels: {0,1,2,3,8} -> "0-3,8"; ids sorted first.
std::string format_id_list(std::vector<int> ids);

// sysfs's form of a PCI bus id: lower case, 4-digit domain ("00000000:3B:00.0" from NVML and
// "0000:3B:00.0" from CUDA both give "0000:3b:00.0").
std::string normalise_bus_id(std::string_view bus_id);

struct NumaTopology {
  std::vector<int> nodes;      // nodes with memory, ascending; empty when the host exposes no NUMA
  std::string reason;          // why nodes is empty
  std::vector<int> cpu_nodes;  // nodes with CPUs, ascending
  // distance[{from, to}]: the firmware's relative distance (10 = local); absent when unknown.
  std::map<std::pair<int, int>, int> distance;
};
NumaTopology read_numa_topology(const std::string& sysfs_root);

struct GpuNode {
  std::optional<int> node;
  std::string reason;  // why node is empty
};
GpuNode read_gpu_node(const std::string& sysfs_root, const std::string& pci_bus_id);

// CPUs of `node` (empty when unknown).
std::vector<int> read_node_cpus(const std::string& sysfs_root, int node);

// CPUs the platform lists as local to the PCI device (local_cpulist; empty when unreadable).
std::vector<int> read_pci_local_cpus(const std::string& sysfs_root, const std::string& pci_bus_id);

// The CPUs the calling thread may run on (sched_getaffinity), ascending; empty when the system
// does not say.
std::vector<int> thread_cpus();
// Sets the calling thread's CPUs (sched_setaffinity). Empty on success, else the system's reason
// ("sched_setaffinity: Invalid argument"); an empty list is refused.
std::string set_thread_cpus(const std::vector<int>& cpus);

// Runs the calling thread on `cpus` while alive (the copy's CPU work next to its memory) and
// restores the previous mask. A thread already running only on some of `cpus` (pinned to one
// CPU of the node by pinning.hpp) is left as it is. An empty list or a refusal leaves the thread
// as it was.
class ScopedAffinity {
 public:
  explicit ScopedAffinity(const std::vector<int>& cpus);
  ~ScopedAffinity();
  ScopedAffinity(const ScopedAffinity&) = delete;
  ScopedAffinity& operator=(const ScopedAffinity&) = delete;
  // Whether the mask was changed (and will be restored).
  bool applied() const noexcept { return !m_previous.empty(); }

 private:
  std::vector<int> m_previous;
};

}  // namespace gpubench::suite
