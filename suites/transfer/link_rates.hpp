// Theoretical link rates, so every transfer result can say what fraction of its link it reached.
// CUDA-free and NVML-free: the probes (link_probe.hpp, sysfs) feed plain values in, tests feed
// published figures. Unknown is a value with a reason, never a guess.
//
// PCIe: per-lane rate after line encoding, per direction (PCI-SIG, as tabulated in Wikipedia's
//   "PCI Express" article): Gen1 2.5 GT/s 8b/10b, Gen2 5 GT/s 8b/10b, Gen3 8 GT/s 128b/130b,
//   Gen4 16 GT/s 128b/130b, Gen5 32 GT/s 128b/130b, Gen6 64 GT/s PAM4 FLIT (242/256 payload),
//   Gen7 128 GT/s FLIT (242/256). x16 Gen5 = 63.0 GB/s one way.
// NVLink: per link, per direction, by NVML's nvmlNvlinkVersion_t (1 = 1.0, 2 = 2.0, 3 = 2.2,
//   4 = 3.0, 5 = 3.1, 6 = 4.0, 7 = 5.0): 1.0 20 GB/s (P100), 2.0 25 GB/s (V100), 3.0 25 GB/s
//   (A100), 4.0 25 GB/s (H100/H200), 5.0 50 GB/s (B200). 2.2 and 3.1 have no published per-link
//   figure we can quote, so they are unknown.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench::transfer {

// A rate in decimal GB/s per direction, or the reason it is unknown.
struct LinkRate {
  std::optional<double> gb_per_s;
  std::string reason;       // set when gb_per_s is empty
  std::string description;  // e.g. "PCIe gen5 x16 (max gen5 x16)", "NVLink 4.0 x18"
};

// Per-lane, per-direction GB/s of a PCIe generation after encoding; nullopt for gens we do not
// know.
std::optional<double> pcie_lane_gb_per_s(int gen);

// "32.0 GT/s PCIe" (sysfs current_link_speed) or "8 GT/s" -> 5 / 3; nullopt if not a PCIe rate.
std::optional<int> pcie_gen_from_speed(std::string_view text);

struct PcieLink {
  std::optional<int> current_gen, current_width;
  std::optional<int> max_gen, max_width;
  std::string source;  // "NVML" or "sysfs"; empty when nothing was read
  std::string reason;  // why a value is missing
};

// The rate a transfer over this link is judged against: the maximum generation and width the link
// supports (an idle GPU drops its current link speed to save power, so the current value read
// between measurements says nothing). The description names both, so a down-trained link
// (current width below max while busy) is visible.
LinkRate pcie_rate(const PcieLink& link);

// Reads <sysfs_root>/bus/pci/devices/<bus id>/{current,max}_link_{speed,width}. bus id as CUDA
// prints it ("0000:3B:00.0"); it is lower-cased. Missing files leave fields empty with a reason.
PcieLink read_pcie_link_sysfs(const std::string& sysfs_root, const std::string& pci_bus_id);

std::optional<double> nvlink_link_gb_per_s(unsigned nvml_version);
std::string nvlink_version_name(unsigned nvml_version);  // 6 -> "4.0"

// One NVLink of a GPU as NVML reports it.
enum class NvlinkRemote { gpu, nvswitch, other };
struct NvlinkInfo {
  bool active = false;
  unsigned version = 0;  // nvmlNvlinkVersion_t
  NvlinkRemote remote = NvlinkRemote::other;
  std::string remote_bus_id;  // normalised (lower case, 4-digit domain); for remote == gpu
};

// How `src` reaches `dst` over NVLink: direct links whose remote is dst, or, when src's links go to
// NVSwitches, min(src's, dst's active switch links) (every pair shares the whole switch fabric).
// 0 links: no NVLink between them.
struct NvlinkPair {
  int links = 0;
  LinkRate rate;  // links x per-link rate; unknown with a reason when no links or version unknown
};
NvlinkPair nvlink_pair(const std::vector<NvlinkInfo>& src, const std::vector<NvlinkInfo>& dst,
                       const std::string& dst_bus_id);

// "0000:3B:00.0" / "00000000:3B:00.0" -> "0000:3b:00.0" (sysfs form).
std::string normalise_bus_id(std::string_view bus_id);

// Percentage of `rate` reached by `gb_per_s`, or nullopt when the rate is unknown.
std::optional<double> pct_of_rate(double gb_per_s, const LinkRate& rate, double multiplier = 1.0);

}  // namespace gpubench::transfer
