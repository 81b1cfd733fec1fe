// Doctor checks for multi-node jobs: RDMA port state and rate, GPUDirect RDMA, PCIe ACS on the
// switches above GPUs and NICs (review n5). Everything is read under a root directory so tests run
// the rules on FIXTURE trees.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <system_error>

#include "harness/doctor/doctor.hpp"
#include "harness/doctor/doctor_detail.hpp"
#include "harness/probe/environment.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

namespace fs = std::filesystem;
using namespace doctor_detail;

namespace {

constexpr const char* k_not_applicable = "not applicable: no RDMA devices";

std::string read_trimmed(const fs::path& p) {
  const auto text = read_text_file(p.string());
  return text ? std::string(trim(*text)) : std::string();
}

// "mlx5_0/1" for people.
std::string port_name(const RdmaPort& p) {
  return p.device + "/" + p.port;
}

bool port_active(const RdmaPort& p) {
  // phys_state is "5: LinkUp" on an up link; a missing file does not make a port down.
  return sysfs_state_word(p.state) == "ACTIVE" &&
         (p.phys_state.empty() || sysfs_state_word(p.phys_state) == "LinkUp");
}

std::string layer_name(const RdmaPort& p) {
  if (p.link_layer == "Ethernet") return "RoCE";
  if (p.link_layer == "InfiniBand") return "InfiniBand";
  return p.link_layer.empty() ? std::string("unknown link layer") : p.link_layer;
}

// "6.8.0-45-generic" -> (6, 8).
std::optional<std::pair<int, int>> kernel_major_minor(const std::string& release) {
  int major = 0, minor = 0;
  if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) != 2) return std::nullopt;
  return std::make_pair(major, minor);
}

// Device directories under a "pciDDDD:BB" host bridge, top first ("0000:15:01.0", ...).
std::vector<std::string> pci_chain(const fs::path& device_dir) {
  std::vector<std::string> chain;
  bool below_host = false;
  for (const fs::path& part : device_dir) {
    const std::string s = part.string();
    if (s.rfind("pci", 0) == 0) {
      below_host = true;
      chain.clear();
      continue;
    }
    // A PCI address "DDDD:BB:DD.F" (domain may be longer than 4 digits under VMD).
    if (below_host && s.find(':') != std::string::npos && s.find('.') != std::string::npos) {
      chain.push_back(s);
    }
  }
  return chain;
}

uint32_t le32(const std::string& b, std::size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(b[at])) |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8 |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 2])) << 16 |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 3])) << 24;
}

}  // namespace

std::string sysfs_state_word(const std::string& text) {
  const auto colon = text.find(':');
  return std::string(trim(colon == std::string::npos ? text : text.substr(colon + 1)));
}

std::optional<double> parse_ib_rate_gbps(const std::string& rate) {
  char* end = nullptr;
  const double v = std::strtod(rate.c_str(), &end);
  if (end == rate.c_str() || v <= 0 || std::string(end).find("Gb/sec") == std::string::npos) {
    return std::nullopt;
  }
  return v;
}

RdmaFacts probe_rdma(const fs::path& root) {
  RdmaFacts f;
  std::error_code ec;
  const fs::path cls = root / "sys/class/infiniband";
  if (!fs::is_directory(cls, ec)) return f;
  f.sysfs_readable = true;
  for (const auto& dev : fs::directory_iterator(cls, ec)) {
    std::error_code ec2;
    for (const auto& port : fs::directory_iterator(dev.path() / "ports", ec2)) {
      RdmaPort p;
      p.device = dev.path().filename().string();
      p.port = port.path().filename().string();
      p.state = read_trimmed(port.path() / "state");
      p.phys_state = read_trimmed(port.path() / "phys_state");
      p.rate = read_trimmed(port.path() / "rate");
      p.link_layer = read_trimmed(port.path() / "link_layer");
      f.ports.push_back(p);
    }
  }
  std::sort(f.ports.begin(), f.ports.end(), [](const RdmaPort& a, const RdmaPort& b) {
    return a.device != b.device ? a.device < b.device : a.port < b.port;
  });
  return f;
}

std::pair<std::optional<bool>, std::string> parse_nvidia_proc_version(const std::string& text) {
  const auto line_end = text.find('\n');
  const std::string line = text.substr(0, line_end);
  if (line.find("NVRM version:") == std::string::npos) return {std::nullopt, ""};
  const bool open = line.find("Open Kernel Module") != std::string::npos;
  std::string version;
  for (const std::string& word : split(line, ' ')) {
    if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0])) &&
        word.find('.') != std::string::npos) {
      version = word;
      break;
    }
  }
  return {open, version};
}

GdrFacts probe_gdr(const fs::path& root) {
  GdrFacts g;
  // The paths NCCL's IB transport checks (ncclIbGdrSupport), in its order.
  for (const char* p :
       {"sys/kernel/mm/memory_peers/nv_mem/version", "sys/kernel/mm/memory_peers/nv_mem_nc/version",
        "sys/module/nvidia_peermem/version"}) {
    std::error_code ec;
    if (fs::exists(root / p, ec)) {
      g.peer_memory_module = std::string("/") + p;
      g.peer_memory_version = read_trimmed(root / p);
      break;
    }
  }
  g.kernel_release = read_trimmed(root / "proc/sys/kernel/osrelease");
  if (const auto text = read_text_file((root / "proc/driver/nvidia/version").string())) {
    auto [open, version] = parse_nvidia_proc_version(*text);
    g.open_kernel_module = open;
    g.driver_version = version;
  }
  if (const char* v = std::getenv("NCCL_DMABUF_ENABLE")) g.nccl_dmabuf_enable = v;
  return g;
}

DoctorCheck check_ib_ports(const RdmaFacts& f) {
  const std::string name = "network.ib_ports";
  const std::string expected =
      "every RDMA port ACTIVE with its link up, ports of one link layer at one rate";
  const std::string fix =
      "check the cable and the switch port of the named port (ibstat, ibstatus; for RoCE, ip "
      "link); a port at a lower rate trained down: reseat or replace the cable";
  if (!f.sysfs_readable || f.ports.empty()) {
    return make_check(name, k_area_network, CheckStatus::pass, k_not_applicable, expected, fix);
  }
  std::vector<std::string> down;
  std::map<std::string, std::map<double, int>> rates;  // layer -> rate (Gb/s) -> active ports
  std::vector<std::string> unknown_rate;
  int active = 0;
  for (const RdmaPort& p : f.ports) {
    if (!port_active(p)) {
      down.push_back(port_name(p) + " " +
                     (p.state.empty() ? std::string("state unknown") : sysfs_state_word(p.state)) +
                     (p.phys_state.empty() ? "" : "/" + sysfs_state_word(p.phys_state)));
      continue;
    }
    ++active;
    if (const auto gbps = parse_ib_rate_gbps(p.rate)) {
      ++rates[layer_name(p)][*gbps];
    } else {
      unknown_rate.push_back(port_name(p));
    }
  }
  std::vector<std::string> groups;
  bool mixed = false;
  for (const auto& [layer, by_rate] : rates) {
    mixed = mixed || by_rate.size() > 1;
    for (const auto& [gbps, n] : by_rate) {
      char rate[32];
      std::snprintf(rate, sizeof rate, "%g", gbps);  // "400", "56", "53.125"
      groups.push_back(std::to_string(n) + " x " + rate + " Gb/s " + layer);
    }
  }
  std::string value = std::to_string(active) + " of " + std::to_string(f.ports.size()) +
                      " ports active" + (groups.empty() ? "" : " (" + join(groups, ", ") + ")");
  if (!unknown_rate.empty()) value += "; rate unreadable: " + join(unknown_rate, ", ");
  if (!down.empty()) value += "; not active: " + join(down, ", ");
  CheckStatus status = CheckStatus::pass;
  if (active == 0) {
    status = CheckStatus::warn;
    value += " (a multi-node job would run over TCP sockets)";
  } else if (!down.empty()) {
    status = CheckStatus::fail;
  } else if (mixed) {
    status = CheckStatus::warn;
  }
  return make_check(name, k_area_network, status, value, expected, fix);
}

DoctorCheck check_gpudirect_rdma(const RdmaFacts& rdma, const GdrFacts& g) {
  const std::string name = "network.gpudirect_rdma";
  const std::string expected =
      "GPU memory registrable with the RDMA NICs: nvidia_peermem loaded, or DMA-BUF (Linux 5.12+ "
      "and NVIDIA's open GPU kernel modules, NCCL_DMABUF_ENABLE not 0)";
  const std::string fix =
      "modprobe nvidia_peermem (ships with the driver), or install the open GPU kernel modules on "
      "a 5.12+ kernel; confirm with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=NET (\"GPU Direct RDMA "
      "Enabled\")";
  if (!rdma.sysfs_readable || rdma.ports.empty()) {
    return make_check(name, k_area_network, CheckStatus::pass, k_not_applicable, expected, fix);
  }
  if (!g.peer_memory_module.empty()) {
    return make_check(name, k_area_network, CheckStatus::pass,
                      "peer memory: " + g.peer_memory_module +
                          (g.peer_memory_version.empty() ? "" : " (" + g.peer_memory_version + ")"),
                      expected, fix);
  }
  const auto kernel = kernel_major_minor(g.kernel_release);
  if (!kernel && !g.open_kernel_module) {
    return unknown_check(name, k_area_network,
                         "no peer-memory module, and neither the kernel release nor "
                         "/proc/driver/nvidia/version is readable",
                         expected, fix);
  }
  std::vector<std::string> missing;
  if (!kernel) {
    missing.push_back("kernel release unreadable");
  } else if (*kernel < std::make_pair(5, 12)) {
    missing.push_back("kernel " + g.kernel_release + " is older than 5.12");
  }
  if (!g.open_kernel_module) {
    missing.push_back("NVIDIA kernel module flavour unknown (/proc/driver/nvidia/version)");
  } else if (!*g.open_kernel_module) {
    missing.push_back("the proprietary NVIDIA kernel module " + g.driver_version +
                      " (DMA-BUF needs the open one)");
  }
  if (g.nccl_dmabuf_enable == "0") missing.push_back("NCCL_DMABUF_ENABLE=0 turns it off");
  const std::string base = "no peer-memory module (nvidia_peermem)";
  if (missing.empty()) {
    return make_check(name, k_area_network, CheckStatus::pass,
                      base + "; DMA-BUF: kernel " + g.kernel_release + ", open kernel module " +
                          g.driver_version + " (NCCL uses it where the NIC driver supports it)",
                      expected, fix);
  }
  return make_check(name, k_area_network, CheckStatus::warn,
                    base + "; no DMA-BUF: " + join(missing, "; ") +
                        ": NCCL would stage inter-node traffic through host memory",
                    expected, fix);
}

std::optional<uint16_t> acs_control(const std::string& config, bool* readable) {
  constexpr std::size_t k_ext = 0x100;  // PCIe extended capabilities start here
  constexpr uint32_t k_acs_id = 0x000D;
  *readable = config.size() >= k_ext + 8;
  if (!*readable) return std::nullopt;
  std::size_t at = k_ext;
  for (int hops = 0; hops < 64 && at >= k_ext && at + 8 <= config.size(); ++hops) {
    const uint32_t header = le32(config, at);
    if (header == 0 || header == 0xffffffffu) return std::nullopt;
    if ((header & 0xffffu) == k_acs_id) {
      return static_cast<uint16_t>(static_cast<unsigned char>(config[at + 6]) |
                                   static_cast<unsigned char>(config[at + 7]) << 8);
    }
    at = (header >> 20) & 0xffcu;  // next capability, dword aligned; 0 ends the list
  }
  return std::nullopt;
}

AcsFacts probe_acs(const std::vector<std::string>& gpu_bus_ids, const fs::path& root) {
  AcsFacts f;
  std::vector<std::pair<std::string, fs::path>> devices;  // what, its sysfs directory
  for (const std::string& id : gpu_bus_ids) {
    const std::string bdf = sysfs_pci_address(id);
    devices.emplace_back("GPU " + bdf, root / "sys/bus/pci/devices" / bdf);
  }
  std::error_code ec;
  for (const auto& dev : fs::directory_iterator(root / "sys/class/infiniband", ec)) {
    devices.emplace_back("NIC " + dev.path().filename().string(), dev.path() / "device");
  }
  std::set<std::string> seen;
  bool any_device = false;
  for (const auto& [what, link] : devices) {
    std::error_code ec2;
    const fs::path real = fs::canonical(link, ec2);
    if (ec2) continue;
    any_device = true;
    const std::vector<std::string> chain = pci_chain(real);
    // chain: root port, switch ports..., the device. Root ports are not judged: traffic between
    // root ports crosses the root complex whatever ACS says.
    for (std::size_t i = 1; i + 1 < chain.size(); ++i) {
      if (!seen.insert(chain[i]).second) continue;
      AcsBridge b;
      b.bdf = chain[i];
      b.below = what;
      fs::path dir = real;
      for (std::size_t up = chain.size() - 1; up > i; --up) dir = dir.parent_path();
      const auto config = read_text_file((dir / "config").string());
      bool readable = false;
      if (!config) {
        b.reason = "config space not readable";
      } else if (const auto control = acs_control(*config, &readable)) {
        b.redirect = (*control & 0x000Cu) != 0;  // bit 2 request, bit 3 completion redirect
      } else if (readable) {
        b.redirect = false;  // no ACS capability: nothing redirects
      } else {
        b.reason = "the PCIe extended config space reads only as root";
      }
      f.bridges.push_back(b);
    }
  }
  if (!any_device) f.reason = "no GPU or RDMA NIC found in sysfs";
  return f;
}

DoctorCheck check_pcie_acs(const AcsFacts& f) {
  const std::string name = "topology.pcie_acs";
  const std::string expected =
      "no ACS P2P redirect on the PCIe switch ports above GPUs and RDMA NICs (redirect sends "
      "peer-to-peer and GPUDirect RDMA traffic up to the root complex: slower, or a hang)";
  const std::string fix =
      "disable ACS on the switch ports (BIOS setting, or setpci -s <bridge> ECAP_ACS+0x6.w=0000 at "
      "boot "
      "as NCCL's troubleshooting guide shows); keep it only where VM isolation needs it";
  if (!f.reason.empty()) return unknown_check(name, k_area_topology, f.reason, expected, fix);
  if (f.bridges.empty()) {
    return make_check(name, k_area_topology, CheckStatus::pass,
                      "no PCIe switch above the GPUs and NICs", expected, fix);
  }
  std::vector<std::string> redirect, unreadable;
  std::string reason;
  for (const AcsBridge& b : f.bridges) {
    if (!b.redirect) {
      unreadable.push_back(b.bdf);
      reason = b.reason;
    } else if (*b.redirect) {
      redirect.push_back(b.bdf + " (above " + b.below + ")");
    }
  }
  if (!redirect.empty()) {
    return make_check(name, k_area_topology, CheckStatus::warn,
                      "ACS redirect on " + join(redirect, ", "), expected, fix);
  }
  if (unreadable.size() == f.bridges.size()) {
    return unknown_check(name, k_area_topology,
                         reason + " (" + std::to_string(unreadable.size()) + " switch ports)",
                         expected, fix);
  }
  std::string value =
      "no redirect on " + std::to_string(f.bridges.size() - unreadable.size()) + " switch ports";
  if (!unreadable.empty()) value += "; unreadable: " + join(unreadable, ", ") + " (" + reason + ")";
  return make_check(name, k_area_topology,
                    unreadable.empty() ? CheckStatus::pass : CheckStatus::unknown, value, expected,
                    fix);
}

}  // namespace gpubench::harness
