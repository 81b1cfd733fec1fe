#include "suites/transfer/numa.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "suites/transfer/link_rates.hpp"

namespace gpubench::transfer {

namespace {
// From <linux/mempolicy.h> (not every libc ships numaif.h without libnuma).
constexpr int k_mpol_default = 0;
constexpr int k_mpol_bind = 2;
constexpr unsigned k_mpol_mf_strict = 1u << 0;
constexpr unsigned k_mpol_mf_move = 1u << 1;
constexpr std::size_t k_max_nodes = 1024;
using NodeMask = unsigned long[k_max_nodes / (8 * sizeof(unsigned long))];

std::optional<std::string> read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in) return std::nullopt;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string errno_text(const char* call) {
  return std::string(call) + ": " + std::strerror(errno);
}

void set_node(NodeMask& mask, int node) {
  std::memset(mask, 0, sizeof(NodeMask));
  const std::size_t bits = 8 * sizeof(unsigned long);
  mask[static_cast<std::size_t>(node) / bits] |= 1ul << (static_cast<std::size_t>(node) % bits);
}
}  // namespace

std::optional<std::vector<int>> parse_id_list(const std::string& text) {
  std::vector<int> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string part = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (part.empty()) continue;
    char* end = nullptr;
    const long first = std::strtol(part.c_str(), &end, 10);
    if (end == part.c_str() || first < 0) return std::nullopt;
    long last = first;
    if (*end == '-') {
      const char* second = end + 1;
      last = std::strtol(second, &end, 10);
      if (end == second || last < first) return std::nullopt;
    }
    if (*end != '\0') return std::nullopt;
    for (long i = first; i <= last; ++i) out.push_back(static_cast<int>(i));
  }
  return out;
}

NumaTopology read_numa_topology(const std::string& sysfs_root) {
  NumaTopology t;
  const std::string dir = sysfs_root + "/devices/system/node/";
  auto text = read_line(dir + "has_memory");
  if (!text) text = read_line(dir + "online");
  if (!text) {
    t.reason =
        "the host exposes no NUMA information (" + dir + " has neither has_memory nor online)";
    return t;
  }
  const auto ids = parse_id_list(*text);
  if (!ids) {
    t.reason = "cannot parse the NUMA node list '" + *text + "'";
    return t;
  }
  t.nodes = *ids;
  if (t.nodes.empty()) t.reason = "the host lists no NUMA node with memory";
  if (const auto cpu_text = read_line(dir + "has_cpu")) {
    t.cpu_nodes = parse_id_list(*cpu_text).value_or(std::vector<int>{});
  } else {
    for (int n : parse_id_list(read_line(dir + "online").value_or("")).value_or(t.nodes)) {
      if (!read_node_cpus(sysfs_root, n).empty()) t.cpu_nodes.push_back(n);
    }
  }
  // node<N>/distance lists the distance to every online node, in the order of "online".
  const auto online = parse_id_list(read_line(dir + "online").value_or(""));
  if (online) {
    for (int from : *online) {
      const auto row = read_line(dir + "node" + std::to_string(from) + "/distance");
      if (!row) continue;
      std::istringstream in(*row);
      int d = 0;
      for (std::size_t k = 0; k < online->size() && in >> d; ++k) {
        t.distance[{from, (*online)[k]}] = d;
      }
    }
  }
  return t;
}

GpuNode read_gpu_node(const std::string& sysfs_root, const std::string& pci_bus_id) {
  GpuNode g;
  if (pci_bus_id.empty() || pci_bus_id == "unknown") {
    g.reason = "the GPU's PCI bus id is unknown";
    return g;
  }
  const std::string path =
      sysfs_root + "/bus/pci/devices/" + normalise_bus_id(pci_bus_id) + "/numa_node";
  const auto text = read_line(path);
  if (!text) {
    g.reason = path + " is not readable";
    return g;
  }
  char* end = nullptr;
  const long v = std::strtol(text->c_str(), &end, 10);
  if (end == text->c_str() || *end != '\0') {
    g.reason = path + " holds '" + *text + "', not a node number";
    return g;
  }
  if (v < 0) {
    g.reason = "the platform reports no NUMA node for the GPU (" + path + " is " + *text + ")";
    return g;
  }
  g.node = static_cast<int>(v);
  return g;
}

std::vector<int> read_node_cpus(const std::string& sysfs_root, int node) {
  const auto text =
      read_line(sysfs_root + "/devices/system/node/node" + std::to_string(node) + "/cpulist");
  if (!text) return {};
  return parse_id_list(*text).value_or(std::vector<int>{});
}

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

ScopedAffinity::ScopedAffinity(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t previous;
  CPU_ZERO(&previous);
  if (sched_getaffinity(0, sizeof previous, &previous) != 0) return;
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  for (int c : cpus) {
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &wanted);
  }
  if (sched_setaffinity(0, sizeof wanted, &wanted) != 0) return;
  m_previous.resize(sizeof previous);
  std::memcpy(m_previous.data(), &previous, sizeof previous);
  m_applied = true;
}

ScopedAffinity::~ScopedAffinity() {
  if (!m_applied) return;
  cpu_set_t previous;
  std::memcpy(&previous, m_previous.data(), sizeof previous);
  (void)sched_setaffinity(0, sizeof previous, &previous);
}

}  // namespace gpubench::transfer
