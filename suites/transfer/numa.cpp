#include "suites/transfer/numa.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gpubench::transfer {

namespace {
// From <linux/mempolicy.h> (not every libc ships numaif.h without libnuma).
constexpr int k_mpol_default = 0;
constexpr int k_mpol_bind = 2;
constexpr unsigned k_mpol_mf_strict = 1u << 0;
constexpr unsigned k_mpol_mf_move = 1u << 1;
constexpr std::size_t k_max_nodes = 1024;
using NodeMask = unsigned long[k_max_nodes / (8 * sizeof(unsigned long))];

std::string errno_text(const char* call) {
  return std::string(call) + ": " + std::strerror(errno);
}

void set_node(NodeMask& mask, int node) {
  std::memset(mask, 0, sizeof(NodeMask));
  const std::size_t bits = 8 * sizeof(unsigned long);
  mask[static_cast<std::size_t>(node) / bits] |= 1ul << (static_cast<std::size_t>(node) % bits);
}
}  // namespace

Placement plan_placement(Numa want, const GpuNode& gpu, const NumaTopology& topology) {
  Placement p;
  if (want == Numa::none) {
    p.label = "no host buffer";
    return p;
  }
  if (want == Numa::local) {
    if (!gpu.node) {
      p.label = "numa unknown: " + gpu.reason + "; host buffer not bound";
    } else if (topology.nodes.empty()) {
      p.label = "host without NUMA (" + topology.reason + "); host buffer not bound";
    } else {
      p.bind_node = gpu.node;
      p.label = "host buffer on node " + std::to_string(*gpu.node) + " (local to the GPU)";
    }
    return p;
  }
  // Remote.
  if (topology.nodes.size() < 2) {
    p.skip_reason = topology.nodes.empty()
                        ? "no remote NUMA node: " + topology.reason
                        : "no remote NUMA node: the host has one node with memory (node " +
                              std::to_string(topology.nodes.front()) + ")";
    return p;
  }
  if (!gpu.node) {
    p.skip_reason = "cannot tell a remote node from the local one: " + gpu.reason;
    return p;
  }
  std::optional<int> best;
  int best_distance = -1;
  std::vector<int> without_cpus;
  for (int n : topology.nodes) {
    if (n == *gpu.node) continue;
    if (std::find(topology.cpu_nodes.begin(), topology.cpu_nodes.end(), n) ==
        topology.cpu_nodes.end()) {
      without_cpus.push_back(n);
      continue;
    }
    const auto it = topology.distance.find({*gpu.node, n});
    const int d = it == topology.distance.end() ? 0 : it->second;
    if (!best || d > best_distance) {
      best = n;
      best_distance = d;
    }
  }
  if (!best) {
    std::string nodes;
    for (int n : without_cpus) nodes += (nodes.empty() ? "" : ",") + std::to_string(n);
    p.skip_reason = "no remote NUMA node with CPUs: the other nodes with memory (" + nodes +
                    ") have no CPUs (GPU or CXL memory)";
    return p;
  }
  p.bind_node = best;
  p.label = "host buffer on node " + std::to_string(*best) + " (remote; GPU on node " +
            std::to_string(*gpu.node) +
            (best_distance > 0 ? ", distance " + std::to_string(best_distance) : "") + ")";
  return p;
}

std::string bind_range(void* addr, std::size_t bytes, int node) {
  NodeMask mask;
  set_node(mask, node);
  if (syscall(SYS_mbind, addr, bytes, k_mpol_bind, mask, k_max_nodes + 1,
              k_mpol_mf_move | k_mpol_mf_strict) != 0) {
    return errno_text("mbind");
  }
  return {};
}

std::optional<int> node_of_page(const void* addr) {
  void* pages[1] = {const_cast<void*>(addr)};
  int status[1] = {-1};
  if (syscall(SYS_move_pages, 0, 1ul, pages, nullptr, status, 0) != 0) return std::nullopt;
  if (status[0] < 0) {
    errno = -status[0];  // the page's own error (the call succeeded and left errno alone)
    return std::nullopt;
  }
  return status[0];
}

std::string verify_placement(const void* addr, std::size_t bytes, int node) {
  if (bytes == 0) return {};
  const auto* base = static_cast<const unsigned char*>(addr);
  const std::size_t offsets[] = {0, bytes / 2, bytes - 1};
  for (std::size_t off : offsets) {
    const auto found = node_of_page(base + off);
    if (!found)
      return "move_pages could not say where the page at offset " + std::to_string(off) + " is (" +
             std::strerror(errno) + ")";
    if (*found != node) {
      return "page at offset " + std::to_string(off) + " is on node " + std::to_string(*found) +
             ", not " + std::to_string(node);
    }
  }
  return {};
}

ScopedMemPolicy::ScopedMemPolicy(int node) {
  NodeMask mask;
  set_node(mask, node);
  if (syscall(SYS_set_mempolicy, k_mpol_bind, mask, k_max_nodes + 1) != 0) {
    m_error = errno_text("set_mempolicy");
  }
}

ScopedMemPolicy::~ScopedMemPolicy() {
  if (m_error.empty()) (void)syscall(SYS_set_mempolicy, k_mpol_default, nullptr, 0ul);
}

}  // namespace gpubench::transfer
