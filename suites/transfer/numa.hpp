// NUMA placement of the transfer suite's host buffers (METHODOLOGY rule 10).
//
// Discovery reads sysfs (suites/common/numa.hpp, a root argument, so tests use a fake tree).
// Binding uses the raw mbind / set_mempolicy / move_pages system calls (no libnuma needed), and
// every placement is verified afterwards by asking the kernel where the pages really are.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "suites/common/numa.hpp"
#include "suites/transfer/transfer_cases.hpp"

namespace gpubench::transfer {

// Discovery (sysfs) and thread affinity are shared with the other suites (common/numa.hpp).
using suite::GpuNode;
using suite::NumaTopology;
using suite::parse_id_list;
using suite::read_gpu_node;
using suite::read_node_cpus;
using suite::read_numa_topology;
using suite::ScopedAffinity;

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

}  // namespace gpubench::transfer
