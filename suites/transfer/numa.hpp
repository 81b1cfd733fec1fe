// NUMA placement of the transfer suite's host buffers (METHODOLOGY rule 10).
//
// Discovery reads sysfs (a root argument, so tests use a fake tree):
//   <root>/bus/pci/devices/<bus id>/numa_node      the GPU's node; -1 = the platform says nothing
//   <root>/devices/system/node/has_memory          nodes with memory ("0-1"); falls back to online
//   <root>/devices/system/node/node<N>/cpulist     CPUs of a node (the copy thread runs there)
//   <root>/devices/system/node/has_cpu             nodes with CPUs (else: a non-empty cpulist)
//   <root>/devices/system/node/node<N>/distance    SLIT distances to the online nodes, in order
// Binding uses the raw mbind / set_mempolicy / move_pages system calls (no libnuma needed), and
// every placement is verified afterwards by asking the kernel where the pages really are.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "suites/transfer/transfer_cases.hpp"

namespace gpubench::transfer {

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; nullopt when malformed. Empty text -> empty list.
std::optional<std::vector<int>> parse_id_list(const std::string& text);

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

// What a case does with its host buffer.
struct Placement {
  std::optional<int> bind_node;  // bind the buffer here; empty: leave it where the kernel puts it
  std::string label;             // for the result's label, e.g. "host node 1 (remote; GPU on 0)"
  std::string skip_reason;       // non-empty: the case cannot run as asked
};
// Remote: the node with memory and CPUs farthest from the GPU's node (the other socket, not a
// sub-NUMA cluster of the same one), lowest id on ties or when distances are unknown. A node with
// memory but no CPUs (GH200's GPU memory, CXL memory) is never the remote node: it is not host
// memory a CPU-side application would place its buffers in.
Placement plan_placement(Numa want, const GpuNode& gpu, const NumaTopology& topology);

// --- binding (Linux system calls; the host must allow them: containers often do not) ----------

// Binds [addr, addr + bytes) to `node` and moves pages already there. Empty on success, else the
// system's reason ("mbind: Operation not permitted").
std::string bind_range(void* addr, std::size_t bytes, int node);

// The node of the page holding `addr` (it must be touched first); nullopt when the kernel does
// not say, with errno set to why (for a page the kernel cannot locate: its status, e.g. ENOENT for
// a page never touched).
std::optional<int> node_of_page(const void* addr);

// Checks pages at the start, middle and end of the range; empty when all are on `node`, else
// what was found.
std::string verify_placement(const void* addr, std::size_t bytes, int node);

// Restricts the calling thread's future allocations to `node` while alive (for memory the
// driver allocates itself, e.g. write-combined). ok() false when the system refused.
class ScopedMemPolicy {
 public:
  explicit ScopedMemPolicy(int node);
  ~ScopedMemPolicy();
  ScopedMemPolicy(const ScopedMemPolicy&) = delete;
  ScopedMemPolicy& operator=(const ScopedMemPolicy&) = delete;
  bool ok() const noexcept { return m_error.empty(); }
  const std::string& error() const noexcept { return m_error; }

 private:
  std::string m_error;
};

// Pins the calling thread to `cpus` while alive (the copy's CPU work runs next to its memory);
// restores the previous mask. An empty list or a refusal leaves the thread as it was.
class ScopedAffinity {
 public:
  explicit ScopedAffinity(const std::vector<int>& cpus);
  ~ScopedAffinity();
  ScopedAffinity(const ScopedAffinity&) = delete;
  ScopedAffinity& operator=(const ScopedAffinity&) = delete;
  bool applied() const noexcept { return m_applied; }

 private:
  bool m_applied = false;
  std::vector<unsigned char> m_previous;  // cpu_set_t bytes
};

}  // namespace gpubench::transfer
