#include "suites/transfer/link_rates.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gpubench::transfer {

std::optional<double> pcie_lane_gb_per_s(int gen) {
  // GT/s x payload fraction / 8 bits per byte.
  switch (gen) {
    case 1:
      return 2.5 * 8.0 / 10.0 / 8.0;
    case 2:
      return 5.0 * 8.0 / 10.0 / 8.0;
    case 3:
      return 8.0 * 128.0 / 130.0 / 8.0;
    case 4:
      return 16.0 * 128.0 / 130.0 / 8.0;
    case 5:
      return 32.0 * 128.0 / 130.0 / 8.0;
    case 6:
      return 64.0 * 242.0 / 256.0 / 8.0;
    case 7:
      return 128.0 * 242.0 / 256.0 / 8.0;
    default:
      return std::nullopt;
  }
}

std::optional<int> pcie_gen_from_speed(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double gts = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return std::nullopt;
  std::string rest(end);
  rest.erase(0, rest.find_first_not_of(' '));
  if (rest.rfind("GT/s", 0) != 0) return std::nullopt;
  const struct {
    double gts;
    int gen;
  } table[] = {{2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}, {128.0, 7}};
  for (const auto& row : table) {
    if (gts > row.gts * 0.99 && gts < row.gts * 1.01) return row.gen;
  }
  return std::nullopt;
}

namespace {
std::string gen_width(const std::optional<int>& gen, const std::optional<int>& width) {
  return "gen" + (gen ? std::to_string(*gen) : std::string("?")) + " x" +
         (width ? std::to_string(*width) : std::string("?"));
}
}  // namespace

LinkRate pcie_rate(const PcieLink& link) {
  LinkRate r;
  // The current generation is not shown: read between measurements it is the idle (power-saving)
  // speed, usually gen1. A narrower current width is shown: lanes do not retrain to save power.
  r.description = "PCIe " + gen_width(link.max_gen, link.max_width);
  if (link.current_width && link.max_width && *link.current_width < *link.max_width) {
    r.description += " (trained at x" + std::to_string(*link.current_width) + ")";
  }
  if (!link.source.empty()) r.description += " from " + link.source;
  if (!link.max_gen || !link.max_width) {
    r.reason = "PCIe maximum generation/width unknown" +
               (link.reason.empty() ? std::string() : " (" + link.reason + ")");
    return r;
  }
  const auto lane = pcie_lane_gb_per_s(*link.max_gen);
  if (!lane) {
    r.reason = "no published rate for PCIe gen" + std::to_string(*link.max_gen);
    return r;
  }
  r.gb_per_s = *lane * *link.max_width;
  return r;
}

LinkRate host_link_rate(const PcieLink& link, HostPath path) {
  if (path == HostPath::pcie) return pcie_rate(link);
  LinkRate r;
  r.description = "NVLink-C2C (the GPU reads host memory through the host's page tables)";
  r.reason = "no NVLink-C2C rate in the table (the GPU's PCIe link is not the path)";
  return r;
}

namespace {
std::optional<std::string> read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

std::optional<int> parse_int(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(text->c_str(), &end, 10);
  if (*end != '\0' || v <= 0) return std::nullopt;
  return static_cast<int>(v);
}
}  // namespace

PcieLink read_pcie_link_sysfs(const std::string& sysfs_root, const std::string& pci_bus_id) {
  PcieLink link;
  const std::string dir = sysfs_root + "/bus/pci/devices/" + normalise_bus_id(pci_bus_id) + "/";
  const auto cur_speed = read_line(dir + "current_link_speed");
  const auto max_speed = read_line(dir + "max_link_speed");
  if (cur_speed) link.current_gen = pcie_gen_from_speed(*cur_speed);
  if (max_speed) link.max_gen = pcie_gen_from_speed(*max_speed);
  link.current_width = parse_int(read_line(dir + "current_link_width"));
  link.max_width = parse_int(read_line(dir + "max_link_width"));
  if (link.max_gen || link.max_width || link.current_gen || link.current_width) {
    link.source = "sysfs";
  }
  if (!max_speed) {
    link.reason = dir + "max_link_speed not readable";
  } else if (!link.max_gen) {
    link.reason = "max_link_speed '" + *max_speed + "' is not a known PCIe rate";
  } else if (!link.max_width) {
    link.reason = dir + "max_link_width not readable";
  }
  // The GPU's max_link_* is what the GPU supports; the link can only reach what the port above it
  // (the slot: a root port or switch downstream port, the parent directory in /sys/devices)
  // supports too. NVML's maximum already is the system's; sysfs needs the minimum of the two.
  std::error_code ec;
  const auto real = std::filesystem::canonical(dir, ec);
  if (!ec && real.has_parent_path()) {
    const std::string port = real.parent_path().string() + "/";
    const auto port_gen = [&]() -> std::optional<int> {
      const auto text = read_line(port + "max_link_speed");
      return text ? pcie_gen_from_speed(*text) : std::nullopt;
    }();
    const auto port_width = parse_int(read_line(port + "max_link_width"));
    if (port_gen && link.max_gen && *port_gen < *link.max_gen) {
      link.max_gen = port_gen;
      link.source = "sysfs, limited by the slot";
    }
    if (port_width && link.max_width && *port_width < *link.max_width) {
      link.max_width = port_width;
      link.source = "sysfs, limited by the slot";
    }
  }
  return link;
}

std::optional<double> nvlink_link_gb_per_s(unsigned nvml_version) {
  switch (nvml_version) {
    case 1:
      return 20.0;  // NVLink 1.0, P100: 4 links, 160 GB/s both ways
    case 2:
      return 25.0;  // NVLink 2.0, V100: 6 links, 300 GB/s
    case 4:
      return 25.0;  // NVLink 3.0, A100: 12 links, 600 GB/s
    case 6:
      return 25.0;  // NVLink 4.0, H100/H200: 18 links, 900 GB/s
    case 7:
      return 50.0;  // NVLink 5.0, B200: 18 links, 1.8 TB/s
    default:
      return std::nullopt;
  }
}

std::optional<NvlinkGeneration> nvlink_generation(ComputeCapability cc) {
  // Datasheet totals (both directions) / links / 2: P100 160 GB/s over 4, V100 300 over 6, A100
  // 600 over 12, H100/H200 900 over 18, B200 1800 over 18.
  if (cc.major == 6 && cc.minor == 0) return NvlinkGeneration{"1.0", 20.0};
  if (cc.major == 7 && cc.minor == 0) return NvlinkGeneration{"2.0", 25.0};
  if (cc.major == 8 && cc.minor == 0) return NvlinkGeneration{"3.0", 25.0};
  if (cc.major == 9 && cc.minor == 0) return NvlinkGeneration{"4.0", 25.0};
  if (cc.major == 10 && (cc.minor == 0 || cc.minor == 3)) return NvlinkGeneration{"5.0", 50.0};
  return std::nullopt;
}

std::string nvlink_version_name(unsigned nvml_version) {
  const char* names[] = {"invalid", "1.0", "2.0", "2.2", "3.0", "3.1", "4.0", "5.0"};
  return nvml_version < 8 ? names[nvml_version] : "v" + std::to_string(nvml_version);
}

NvlinkPair nvlink_pair(const std::vector<NvlinkInfo>& src, const std::vector<NvlinkInfo>& dst,
                       const std::string& dst_bus_id, ComputeCapability cc) {
  NvlinkPair pair;
  const std::string target = normalise_bus_id(dst_bus_id);
  int direct = 0, src_switch = 0, dst_switch = 0;
  unsigned version = 0;
  for (const auto& l : src) {
    if (!l.active) continue;
    if (l.remote == NvlinkRemote::gpu && normalise_bus_id(l.remote_bus_id) == target) {
      ++direct;
      version = version == 0 ? l.version : std::min(version, l.version);
    } else if (l.remote == NvlinkRemote::nvswitch) {
      ++src_switch;
    }
  }
  for (const auto& l : dst) {
    if (l.active && l.remote == NvlinkRemote::nvswitch) ++dst_switch;
  }
  if (direct == 0 && src_switch > 0 && dst_switch > 0) {
    pair.links = std::min(src_switch, dst_switch);
    for (const auto& l : src) {
      if (l.active && l.remote == NvlinkRemote::nvswitch) {
        version = version == 0 ? l.version : std::min(version, l.version);
      }
    }
  } else {
    pair.links = direct;
  }
  if (pair.links == 0) {
    pair.rate.reason = "no active NVLink between the pair";
    return pair;
  }
  const std::string how = direct > 0 ? " direct" : " via NVSwitch";
  if (const auto gen = nvlink_generation(cc)) {
    pair.rate.description = "NVLink " + gen->name + " x" + std::to_string(pair.links) + how +
                            " (sm_" + std::to_string(cc.major) + std::to_string(cc.minor) + ")";
    if (version != 0 && nvlink_version_name(version) != gen->name) {
      pair.rate.description += "; NVML reports link version value " + std::to_string(version) +
                               " (enum " + nvlink_version_name(version) +
                               "), judged by the architecture";
    }
    pair.rate.gb_per_s = gen->link_gb_per_s * pair.links;
    return pair;
  }
  pair.rate.description = "NVLink " + nvlink_version_name(version) + " x" +
                          std::to_string(pair.links) + how + " (from NVML's link version)";
  const auto per_link = nvlink_link_gb_per_s(version);
  if (!per_link) {
    pair.rate.reason = "no published per-link rate for NVLink " + nvlink_version_name(version) +
                       " and the architecture sm_" + std::to_string(cc.major) +
                       std::to_string(cc.minor) + " is not in the NVLink table";
    return pair;
  }
  pair.rate.gb_per_s = *per_link * pair.links;
  return pair;
}

std::optional<double> pct_of_rate(double gb_per_s, const LinkRate& rate, double multiplier) {
  if (!rate.gb_per_s || *rate.gb_per_s <= 0) return std::nullopt;
  return 100.0 * gb_per_s / (*rate.gb_per_s * multiplier);
}

}  // namespace gpubench::transfer
