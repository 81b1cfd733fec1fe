// `gpubench doctor`: readiness checks a person runs before trusting a server (issue 15).
//
// Each check reads facts from /proc, /sys, statvfs, getrlimit and NVML, then judges them against
// an expectation (results/doctor.hpp). Probing and judging are separate: the probe_* functions
// read the live system, the check_* functions are pure and take the facts, so tests feed them
// values. A fact that cannot be read makes its check `unknown` with the reason, never a guess.
//
// Files: doctor_host.cpp (CPU, memory, storage, limits, IOMMU, containers), doctor_gpu.cpp
// (driver, GPU state, PCIe, clocks and power, NUMA, GPU visibility), doctor_nvml.cpp (the NVML
// calls only the doctor needs), doctor.cpp (run_doctor, rendering).
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "results/doctor.hpp"

namespace gpubench::harness {

using results::CheckStatus;
using results::DoctorCheck;

// ---- areas (the `area` of every check) ----------------------------------------------------------
inline constexpr const char* k_area_cpu = "CPU and memory";
inline constexpr const char* k_area_storage = "Data storage";
inline constexpr const char* k_area_driver = "Driver and runtime";
inline constexpr const char* k_area_limits = "Limits";
inline constexpr const char* k_area_gpu = "GPU state";
inline constexpr const char* k_area_pcie = "PCIe";
inline constexpr const char* k_area_clocks = "Clocks and power";
inline constexpr const char* k_area_topology = "Topology";
inline constexpr const char* k_area_container = "Containers";

// What NVML said about the GPUs as a whole: how many, or why none can be read.
struct GpuCount {
  int count = 0;
  std::string unknown_reason;  // nonempty: GPU facts cannot be read ("no NVIDIA driver (...)")
};

// ---- host checks (doctor_host.cpp) --------------------------------------------------------------
// Physical cores per GPU: 2 or more passes (2-4x the GPU count is the usual sizing), fewer warns.
DoctorCheck check_cores_per_gpu(std::optional<int> physical_cores, const GpuCount& gpus);
// System memory vs total GPU memory: at least 1.5x passes, less warns.
DoctorCheck check_memory_vs_gpu(std::optional<int64_t> host_bytes,
                                std::optional<int64_t> gpu_total_bytes, const GpuCount& gpus);
// cpufreq scaling governor: "performance" passes, anything else warns; nullopt -> unknown (reason).
DoctorCheck check_governor(const std::optional<std::string>& governor, const std::string& reason);

struct StorageFacts {
  std::string path;                // the dataset directory as given
  std::string probed_path;         // the existing directory actually inspected (path or its parent)
  std::string fs_type;             // "ext4", "overlay", "tmpfs", ... ("" when unknown)
  std::string block_device;        // "nvme0n1", "sda" (whole disk); "" when not on a block device
  std::optional<bool> rotational;  // /sys/block/<dev>/queue/rotational
  std::optional<uint64_t> free_bytes;  // statvfs f_bavail * f_frsize
  std::string reason;                  // why block_device/rotational are unknown
};
// NVMe passes; another non-rotational device warns (SATA/SAS SSD); rotational warns (HDD).
DoctorCheck check_storage_device(const StorageFacts& facts);
// Free space of the dataset directory's file system: at least 10 GiB passes (the dataloader's
// full-profile datasets), less warns; under 1 GiB fails (not even the quick profile fits).
DoctorCheck check_free_space(const StorageFacts& facts);

// Soft limits from getrlimit; nullopt = unlimited (RLIM_INFINITY).
struct Limit {
  bool known = false;
  std::optional<uint64_t> soft;  // nullopt: unlimited
};
// ulimit -n: at least 65536 passes; less warns (data loaders with many workers run out).
DoctorCheck check_nofile(const Limit& nofile);
// ulimit -l: unlimited passes (NVIDIA's container advice, --ulimit memlock=-1); else warns.
DoctorCheck check_memlock(const Limit& memlock);
// /dev/shm size: at least 1 GiB passes; less (Docker's default is 64 MiB) warns; missing fails.
DoctorCheck check_dev_shm(std::optional<uint64_t> shm_bytes, const std::string& reason);
// Transparent huge pages mode ("always [madvise] never" as in sysfs) and reserved huge pages:
// madvise or always passes, never warns.
DoctorCheck check_huge_pages(const std::optional<std::string>& thp_enabled,
                             std::optional<int64_t> reserved_pages,
                             std::optional<int64_t> reserved_page_bytes);

struct IommuFacts {
  bool sysfs_readable = false;           // /sys/kernel/iommu_groups exists
  int groups = 0;                        // entries in /sys/kernel/iommu_groups
  std::vector<std::string> group_types;  // distinct "type" values ("identity", "DMA", "DMA-FQ")
  std::string cmdline_iommu;             // iommu=, intel_iommu=, amd_iommu= words from the cmdline
};
// No IOMMU groups or identity (passthrough) mappings pass; translated DMA warns (peer-to-peer
// and GPUDirect RDMA go through the IOMMU).
DoctorCheck check_iommu(const IommuFacts& facts);

struct ContainerFacts {
  std::string runtime;   // "docker", "podman", "kubernetes", "lxc", ... ; "" = none seen
  std::string evidence;  // what said so ("/.dockerenv exists")
};
// Informational: pass with what runs the process; the GPU side is check_gpu_visibility.
DoctorCheck check_container(const ContainerFacts& facts);

// Parsers over text (tests feed fixtures).
std::string parse_thp_mode(const std::string& sysfs_text);  // "always [madvise] never" -> madvise
std::optional<int64_t> parse_meminfo_value(const std::string& text, const std::string& key);
// "0-3,8-11" -> {0,1,2,3,8,9,10,11}; nullopt when malformed.
std::optional<std::vector<int>> parse_cpu_list(const std::string& text);
ContainerFacts detect_container(bool dockerenv, bool containerenv, const std::string& cgroup_text,
                                const std::string& container_env);

// Live probes.
StorageFacts probe_storage(const std::filesystem::path& dir);
IommuFacts probe_iommu();
ContainerFacts probe_container();

// ---- GPU and driver checks (doctor_gpu.cpp) -----------------------------------------------------
struct RemappedRows {
  int64_t corrected = 0, uncorrected = 0;
  bool pending = false, failure = false;
};

// What the doctor reads per GPU through NVML and sysfs. nullopt = not readable on this GPU.
struct GpuFacts {
  int index = 0;
  std::string name;
  std::optional<bool> persistence;
  std::optional<bool> ecc_enabled;
  std::optional<int64_t> ecc_volatile_corrected, ecc_volatile_uncorrected;
  std::optional<int64_t> ecc_aggregate_corrected, ecc_aggregate_uncorrected;
  std::optional<int64_t> retired_pages;             // both causes (pre-Ampere)
  std::optional<bool> retired_pages_pending;        // retirement waits for a reset
  std::optional<RemappedRows> remapped_rows;        // Ampere and newer
  std::optional<int> pcie_gen, pcie_width;          // current link
  std::optional<int> pcie_max_gen, pcie_max_width;  // the link's maximum (GPU and slot)
  std::optional<int> pcie_gpu_max_gen;              // the GPU's own maximum
  std::optional<bool> idle;                         // clocks-event reason "GPU idle" set
  std::optional<int> app_sm_clock_mhz, default_app_sm_clock_mhz;
  std::optional<bool> clocks_user_limited;  // clocks-event reason "applications clocks setting"
  std::optional<double> power_limit_w, default_power_limit_w;
  std::optional<int> numa_node;  // -1 in sysfs (no affinity) -> nullopt
};

struct DriverFacts {
  std::string driver_version;                      // "" when unknown
  std::optional<std::string> driver_cuda_version;  // "12.6": the newest CUDA the driver runs
  std::string runtime_version;  // CUDA runtime the suites were built with ("" = built without)
  std::optional<std::string> toolkit_version;  // nvcc on PATH: "13.0"
  std::string toolkit_reason;                  // why toolkit_version is unknown
  std::optional<int> cuda_device_count;        // devices the CUDA driver API shows this process
  std::string cuda_reason;                     // why cuda_device_count is unknown
  // Entries in /proc/driver/nvidia/gpus: every GPU the host's driver manages (inside a container
  // too), so GPUs not passed into the container show up here but not in NVML.
  std::optional<int> driver_gpu_count;
};

// "13.0.88" / "13.0" -> (13, 0); nullopt when not a version.
std::optional<std::pair<int, int>> major_minor(const std::string& version);
// "Cuda compilation tools, release 13.0, V13.0.88" -> "13.0".
std::optional<std::string> parse_nvcc_release(const std::string& nvcc_version_output);

DoctorCheck check_driver_cuda(const DriverFacts& driver, const GpuCount& gpus);
DoctorCheck check_toolkit(const DriverFacts& driver);
DoctorCheck check_persistence(const std::vector<GpuFacts>& gpus, const GpuCount& count);
DoctorCheck check_ecc_mode(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// Uncorrected errors (volatile or aggregate) fail; corrected ones warn.
DoctorCheck check_ecc_errors(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// Retired pages / remapped rows: a remapping failure fails; pending retirement or remapping
// warns (reset the GPU); otherwise passes with the counts.
DoctorCheck check_retired_memory(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// A link narrower than its maximum, a slot slower than the GPU, or a busy GPU below its maximum
// generation warns, naming the GPU. An idle GPU's link trains down to save power: not judged.
DoctorCheck check_pcie(const std::vector<GpuFacts>& gpus, const GpuCount& count);
DoctorCheck check_app_clocks(const std::vector<GpuFacts>& gpus, const GpuCount& count);
DoctorCheck check_power_limit(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// GPU NUMA nodes vs the CPUs this process may run on (`node_cpus[n]` = CPUs of node n).
DoctorCheck check_numa_affinity(const std::vector<GpuFacts>& gpus, const GpuCount& count,
                                const std::optional<std::vector<int>>& allowed_cpus,
                                const std::vector<std::optional<std::vector<int>>>& node_cpus);
// Whether this process sees every GPU: the driver's GPUs vs NVML's (a container shows only the
// GPUs passed in) vs CUDA's (CUDA_VISIBLE_DEVICES). Fewer warns.
DoctorCheck check_gpu_visibility(const DriverFacts& driver, const GpuCount& count,
                                 const ContainerFacts& container);

// Live probes (doctor_nvml.cpp): every GPU NVML lists, and the driver/runtime/toolkit facts.
class Nvml;
GpuCount probe_gpu_count(const Nvml& nvml);
std::vector<GpuFacts> probe_gpu_facts(const Nvml& nvml);
DriverFacts probe_driver_facts(const Nvml& nvml);

// ---- the whole doctor (doctor.cpp) --------------------------------------------------------------
struct DoctorOptions {
  std::filesystem::path data_dir;  // empty: default_data_dir()
};
// $GPUBENCH_DATA_DIR, else "gpubench-data" in the system temp dir (the dataloader suite's default).
std::filesystem::path default_data_dir();

// Every check, in a fixed order (areas as listed in the issue). Never throws for a missing fact.
std::vector<DoctorCheck> run_doctor(const DoctorOptions& options);

// Text for people: one line per check under its area, then the counts.
void print_doctor_text(std::ostream& out, const std::vector<DoctorCheck>& checks);
// For `gpubench show`: the counts, then one line per check that did not pass; "doctor: not run"
// for runs recorded without checks.
void print_doctor_summary(std::ostream& out, const std::vector<DoctorCheck>& checks);
// {"checks": [{name, area, status, value, expected, fix}, ...], "summary": {pass, warn, fail,
// unknown}} as `gpubench doctor --format json` prints it.
nlohmann::json doctor_json(const std::vector<DoctorCheck>& checks);
// One line for `gpubench run`: "readiness: 14 pass, 3 warn, 0 fail, 5 unknown (warn: a, b; ...)".
std::string readiness_line(const std::vector<DoctorCheck>& checks);

}  // namespace gpubench::harness
