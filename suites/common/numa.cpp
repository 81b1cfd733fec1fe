#include "suites/common/numa.hpp"

#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gpubench::suite {

namespace {
std::optional<std::string> read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in) return std::nullopt;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string pci_dir(const std::string& sysfs_root, const std::string& pci_bus_id) {
  return sysfs_root + "/bus/pci/devices/" + normalise_bus_id(pci_bus_id) + "/";
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

std::string format_id_list(std::vector<int> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ids[i]);
    if (j > i) out += '-' + std::to_string(ids[j]);
    i = j + 1;
  }
  return out;
}

std::string normalise_bus_id(std::string_view bus_id) {
  std::string s(bus_id);
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  // NVML writes an 8-digit domain; sysfs and CUDA a 4-digit one.
  const auto colon = s.find(':');
  if (colon != std::string::npos && colon > 4) s.erase(0, colon - 4);
  return s;
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
  const std::string path = pci_dir(sysfs_root, pci_bus_id) + "numa_node";
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

std::vector<int> read_pci_local_cpus(const std::string& sysfs_root, const std::string& pci_bus_id) {
  if (pci_bus_id.empty() || pci_bus_id == "unknown") return {};
  const auto text = read_line(pci_dir(sysfs_root, pci_bus_id) + "local_cpulist");
  if (!text) return {};
  return parse_id_list(*text).value_or(std::vector<int>{});
}

std::vector<int> thread_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

std::string set_thread_cpus(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  }
  if (CPU_COUNT(&set) == 0) return "sched_setaffinity: no CPU given";
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    return std::string("sched_setaffinity: ") + std::strerror(errno);
  }
  return {};
}

ScopedAffinity::ScopedAffinity(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  std::vector<int> previous = thread_cpus();
  if (previous.empty()) return;
  const bool inside = std::all_of(previous.begin(), previous.end(), [&](int c) {
    return std::find(cpus.begin(), cpus.end(), c) != cpus.end();
  });
  if (inside) return;
  if (!set_thread_cpus(cpus).empty()) return;
  m_previous = std::move(previous);
}

ScopedAffinity::~ScopedAffinity() {
  if (!m_previous.empty()) (void)set_thread_cpus(m_previous);
}

}  // namespace gpubench::suite
