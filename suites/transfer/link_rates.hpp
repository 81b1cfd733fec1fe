// Theoretical link rates, so every transfer result can say what fraction of its link it reached.
// CUDA-free and NVML-free: the probes (link_probe.hpp, sysfs) feed plain values in, tests feed
// published figures. Unknown is a value with a reason, never a guess.
//
// PCIe: per-lane rate after line encoding, per direction (PCI-SIG, as tabulated in Wikipedia's
//   "PCI Express" article): Gen1 2.5 GT/s 8b/10b, Gen2 5 GT/s 8b/10b, Gen3 8 GT/s 128b/130b,
//   Gen4 16 GT/s 128b/130b, Gen5 32 GT/s 128b/130b, Gen6 64 GT/s PAM4 FLIT (242/256 payload),
//   Gen7 128 GT/s FLIT (242/256). x16 Gen5 = 63.0 GB/s one way.
// NVLink: per link, per direction, by GPU architecture (compute capability), which decides the
//   NVLink generation: sm_60 1.0 20 GB/s (P100), sm_70 2.0 25 GB/s (V100), sm_80 3.0 25 GB/s
//   (A100), sm_90 4.0 25 GB/s (H100/H200), sm_100/sm_103 5.0 50 GB/s (B200/B300).
//   NVML's nvmlDeviceGetNvLinkVersion returns an nvmlNvlinkVersion_t enum, not a version number
//   (1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1, 6 = 4.0, 7 = 5.0), and drivers have reported
//   values that do not match the GPU (A100 reporting 5 = "3.1"; older drivers the raw generation),
//   so the enum is only used when the architecture is not in the table, and a disagreement is
//   shown in the description.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "suites/common/numa.hpp"

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
// supports (an idle GPU drops its current link speed to save power, so the current generation
// read between measurements says nothing and is not shown). The description names a current width
// below the maximum (lanes do not retrain to save power), so a down-trained link is visible.
LinkRate pcie_rate(const PcieLink& link);

// How host<->device copies reach a GPU. pcie: over its PCIe link. host_page_tables: the GPU
// reads host memory through the host's page tables
// (cudaDevAttrPageableMemoryAccessUsesHostPageTables = 1: NVLink-C2C on GH200/GB200), so its host
// copies cross NVLink-C2C, not the PCIe link.
enum class HostPath { pcie, host_page_tables };

// The rate a host<->device copy is judged against: pcie_rate(link) over PCIe; over NVLink-C2C
// unknown with the reason (its rate is not in the table), never the PCIe rate of a link the copy
// does not cross (judged against PCIe a GH200's copies read hundreds of %).
LinkRate host_link_rate(const PcieLink& link, HostPath path);

// Reads <sysfs_root>/bus/pci/devices/<bus id>/{current,max}_link_{speed,width}. bus id as CUDA
// prints it ("0000:3B:00.0"); it is lower-cased. Missing files leave fields empty with a reason.
// The maximum is limited by the upstream port's max_link_{speed,width} (the parent directory of
// the device's real path): a gen5 GPU in a gen4 slot is judged against gen4.
PcieLink read_pcie_link_sysfs(const std::string& sysfs_root, const std::string& pci_bus_id);

// By NVML enum value (nvmlNvlinkVersion_t): the fallback for an architecture not in the table.
std::optional<double> nvlink_link_gb_per_s(unsigned nvml_version);
std::string nvlink_version_name(unsigned nvml_version);  // 6 -> "4.0"

// The GPU's compute capability; 0.0 when unknown.
struct ComputeCapability {
  int major = 0;
  int minor = 0;
};
// The NVLink generation of an architecture and its per-link, per-direction rate; nullopt for an
// architecture without NVLink or not in the table (then the NVML enum decides).
struct NvlinkGeneration {
  std::string name;  // "4.0"
  double link_gb_per_s = 0;
};
std::optional<NvlinkGeneration> nvlink_generation(ComputeCapability cc);

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
// 0 links: no NVLink between them. The per-link rate comes from src's architecture `cc` (see the
// header comment), else from the links' NVML enum value.
struct NvlinkPair {
  int links = 0;
  LinkRate rate;  // links x per-link rate; unknown with a reason when no links or rate unknown
};
NvlinkPair nvlink_pair(const std::vector<NvlinkInfo>& src, const std::vector<NvlinkInfo>& dst,
                       const std::string& dst_bus_id, ComputeCapability cc = {});

// "0000:3B:00.0" / "00000000:3B:00.0" -> "0000:3b:00.0" (sysfs form; suites/common/numa.hpp).
using suite::normalise_bus_id;

// Percentage of `rate` reached by `gb_per_s`, or nullopt when the rate is unknown.
std::optional<double> pct_of_rate(double gb_per_s, const LinkRate& rate, double multiplier = 1.0);

}  // namespace gpubench::transfer
