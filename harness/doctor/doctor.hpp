// `gpubench doctor`: readiness checks a person runs before trusting a server (issue 15).
//
// Each check reads facts from /proc, /sys, statvfs, getrlimit and NVML, then judges them against
// an expectation (results/doctor_store.hpp). Probing and judging are separate: the probe_*
// functions read the live system, the check_* functions are pure and take the facts, so tests feed
// them values. A fact that cannot be read makes its check `unknown` with the reason, never a guess.
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
#include <utility>
#include <vector>

#include "results/doctor_store.hpp"

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
inline constexpr const char* k_area_network = "Multi-node network";

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
  bool missing = false;            // path does not exist yet: probed_path is its nearest parent
  std::string fs_type;             // "ext4", "overlay", "tmpfs", ... ("" when unknown)
  std::string block_device;        // "nvme0n1", "sda" (whole disk); "" when not on a block device
  std::optional<bool> rotational;  // /sys/block/<dev>/queue/rotational
  std::optional<uint64_t> free_bytes;  // statvfs f_bavail * f_frsize
  std::string reason;                  // why block_device/rotational are unknown
  // Why the dataloader would refuse the directory, in its own words ("data directory 'x' does not
  // exist", "... is not writable (Read-only file system)", with "(set by GPUBENCH_DATA_DIR)" when
  // named); empty when it would use it. Set by run_doctor when the dataloader is to run
  // (data_dir_problem).
  std::string unusable;
};
// NVMe passes; another non-rotational device warns (SATA/SAS SSD); rotational warns (HDD).
DoctorCheck check_storage_device(const StorageFacts& facts);
// What the selected profile's dataloader writes into the data directory before its cases (its
// datasets not cached yet), from `gpubench-dataloader --gpubench_plan`; bytes unknown when no
// dataloader suite answered (`why` says so).
struct DiskNeed {
  std::string profile;
  std::optional<uint64_t> bytes;
  std::string why;
  // The dataloader answered, but its plan could not be read (garbage, a hang, a failure, no or a
  // negative or non-integer disk_bytes): the need is unknown, so the free space is too.
  bool plan_unreadable = false;
};
// Free space of the dataset directory's file system. A directory the dataloader would refuse
// (facts.unusable) fails with its reason. Against a known need: less than the need fails, less
// than the need plus 1 GiB of headroom warns, else passes. A plan that could not be read
// (need.plan_unreadable) makes it unknown with the reason. Without a dataloader to ask: at least
// 10 GiB passes (the full profile's datasets), less warns, under 1 GiB fails.
DoctorCheck check_free_space(const StorageFacts& facts, const DiskNeed& need = {});

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

// nvmlDeviceGetMigMode. supported = false: NVML_ERROR_NOT_SUPPORTED (not a MIG-capable GPU).
struct MigFacts {
  bool supported = true;
  bool enabled = false, pending_enabled = false;
};

// nvmlDeviceGetGpuFabricInfoV: the GPU's registration with the NVSwitch fabric manager.
// supported = false: NVML_ERROR_NOT_SUPPORTED or state NVML_GPU_FABRIC_STATE_NOT_SUPPORTED (no
// NVSwitch fabric: PCIe GPUs, pre-Hopper).
struct FabricFacts {
  bool supported = true;
  int state = 0;   // NVML_GPU_FABRIC_STATE_*: 1 not started, 2 in progress, 3 done
  int status = 0;  // nvmlReturn_t of the registration (read when state is 3)
  std::optional<unsigned> health_mask;  // NVML_GPU_FABRIC_HEALTH_MASK_* (v2 and later)
  std::optional<int> health_summary;    // NVML_GPU_FABRIC_HEALTH_SUMMARY_* (v3 and later)
};
inline constexpr int k_fabric_state_not_supported = 0;
inline constexpr int k_fabric_state_not_started = 1;
inline constexpr int k_fabric_state_in_progress = 2;
inline constexpr int k_fabric_state_completed = 3;
inline constexpr int k_fabric_health_healthy = 1;
inline constexpr int k_fabric_health_unhealthy = 2;
inline constexpr int k_fabric_health_limited_capacity = 3;

// nvmlDeviceGetNvLinkState over links 0..NVML_NVLINK_MAX_LINKS-1: a link is supported when the
// query succeeds (NOT_SUPPORTED / INVALID_ARGUMENT: the GPU has no such link).
struct NvlinkFacts {
  std::vector<int> up, down;  // link numbers
};

// What the doctor reads per GPU through NVML and sysfs. nullopt = not readable on this GPU.
struct GpuFacts {
  int index = 0;
  std::string name;
  std::string bus_id;  // full PCI id as NVML gives it ("00000000:17:00.0"); "" when unreadable
  bool lost = false;   // NVML_ERROR_GPU_IS_LOST: the GPU fell off the bus
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
  // Application SM clock target and its default (nvmlDeviceGetClock APP_CLOCK_TARGET /
  // APP_CLOCK_DEFAULT, falling back to the nvmlDeviceGetApplicationsClock pair): all deprecated in
  // CUDA 13, read only to show a lock a driver still reports.
  std::optional<int> app_sm_clock_mhz, default_app_sm_clock_mhz;
  // The SM clock range of P0 (nvmlDeviceGetMinMaxClockOfPState, not deprecated), MHz.
  std::optional<int> p0_min_sm_clock_mhz, p0_max_sm_clock_mhz;
  // Clocks-event reason 0x2 "applications clocks setting": older drivers set it for application
  // or locked clocks; CUDA 13's nvml.h marks it "no longer used". Only `true` says anything.
  std::optional<bool> clocks_user_limited;
  std::optional<int> graphics_clock_offset_mhz;  // nvmlDeviceGetClockOffsets, P0
  std::optional<int> max_sm_clock_mhz;           // nvmlDeviceGetMaxClockInfo(SM): the boost limit
  std::optional<int> sm_clock_mhz;               // nvmlDeviceGetClockInfo(SM): now
  // Enforced limit (nvmlDeviceGetEnforcedPowerLimit), the one set with nvidia-smi -pl, default.
  std::optional<double> power_limit_w, configured_power_limit_w, default_power_limit_w;
  std::optional<int> numa_node;  // -1 in sysfs (no affinity) -> nullopt
  std::optional<MigFacts> mig;
  std::optional<FabricFacts> fabric;
  std::optional<NvlinkFacts> nvlink;
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
// Every GPU NVML lists answers: a GPU that fell off the bus (NVML_ERROR_GPU_IS_LOST) fails,
// named by index, PCI id and name. Other per-GPU checks show it as unknown.
DoctorCheck check_gpu_reachable(const std::vector<GpuFacts>& gpus, const GpuCount& count);
DoctorCheck check_persistence(const std::vector<GpuFacts>& gpus, const GpuCount& count);
DoctorCheck check_ecc_mode(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// Uncorrected errors since the driver loaded (volatile) fail. Aggregate (lifetime) ones warn:
// row remapping (Ampere+) or page retirement handled them; gpu.retired_memory fails a GPU where
// that failed. Corrected errors warn.
DoctorCheck check_ecc_errors(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// Retired pages / remapped rows: a remapping failure fails; pending retirement or remapping
// warns (reset the GPU; per NVIDIA, work runs unaffected meanwhile); rows remapped for
// uncorrectable errors warn (handled, shown); otherwise passes with the counts.
DoctorCheck check_retired_memory(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// A link narrower than its maximum, a slot slower than the GPU, or a busy GPU below its maximum
// generation warns, naming the GPU. An idle GPU's link trains down to save power: not judged.
DoctorCheck check_pcie(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// MIG on fails (a whole-GPU benchmark would measure one slice, or CUDA sees no whole GPU); a
// pending change warns; a GPU without MIG passes.
DoctorCheck check_mig(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// The clock settings NVML reports: P0's SM clock range against the boost limit (a P0 maximum more
// than 2% below it warns: the GPU is capped), the clock offset (nonzero warns), an application
// clock target away from its default where the driver still reports one (deprecated; warns),
// clocks-event reason 0x2 (warns). Unknown only when neither P0's range nor the application clocks
// can be read. Locked clocks (nvidia-smi -lgc) have no NVML getter: the check says so.
DoctorCheck check_app_clocks(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// Whether each GPU's SM clock is locked (harness/probe/clock_lock.hpp): "SM clock: not locked
// (boost up to N MHz)" passes, "locked at N MHz" (application clocks) or a clocks-event reason 0x2
// warns (numbers below what the server gives in production; compare only with runs locked the
// same way), "unknown: <reason>" when NVML does not report the application clocks. The value ends
// with a hint on locking for CI. A lock set with nvidia-smi -lgc has no NVML getter: it reads as
// not locked, and the check's expectation says so.
DoctorCheck check_sm_clock_lock(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// The enforced power limit vs the configured one and the default: lower warns.
DoctorCheck check_power_limit(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// NVLink links: on an NVSwitch fabric every supported link is up; elsewhere a GPU has as many
// links up as its siblings of the same model (a bridge may use fewer links than the GPU has). A
// link down against that fails; no link up anywhere (PCIe card, no bridge) warns.
DoctorCheck check_nvlink(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// NVSwitch fabric registration (fabric manager): not completed or failed fails; an unhealthy
// fabric fails, limited capacity or degraded bandwidth warns; GPUs off any fabric pass.
DoctorCheck check_nvlink_fabric(const std::vector<GpuFacts>& gpus, const GpuCount& count);
// GPU NUMA nodes vs the CPUs this process may run on (`node_cpus[n]` = CPUs of node n).
DoctorCheck check_numa_affinity(const std::vector<GpuFacts>& gpus, const GpuCount& count,
                                const std::optional<std::vector<int>>& allowed_cpus,
                                const std::vector<std::optional<std::vector<int>>>& node_cpus);
// Whether this process sees every GPU: the driver's GPUs vs NVML's (a container shows only the
// GPUs passed in) vs CUDA's (CUDA_VISIBLE_DEVICES). Fewer warns.
DoctorCheck check_gpu_visibility(const DriverFacts& driver, const GpuCount& count,
                                 const ContainerFacts& container);

// What NVML's answers mean (doctor_nvml.cpp), pure so tests feed return codes: `rc` is the
// nvmlReturn_t of the query. nullopt = unknown (an error other than "not supported").
std::optional<MigFacts> mig_from_nvml(int rc, unsigned current_mode, unsigned pending_mode);
std::optional<FabricFacts> fabric_from_nvml(int rc, const FabricFacts& read);
// One (rc, isActive) per link 0..NVML_NVLINK_MAX_LINKS-1 of nvmlDeviceGetNvLinkState.
struct NvlinkAnswer {
  int rc = 0;
  int active = 0;  // nvmlEnableState_t: 1 = NVML_FEATURE_ENABLED
};
std::optional<NvlinkFacts> nvlink_from_nvml(const std::vector<NvlinkAnswer>& links);

// Live probes (doctor_nvml.cpp): every GPU NVML lists, and the driver/runtime/toolkit facts.
class Nvml;
GpuCount probe_gpu_count(const Nvml& nvml);
std::vector<GpuFacts> probe_gpu_facts(const Nvml& nvml);
DriverFacts probe_driver_facts(const Nvml& nvml);

// ---- multi-node network (doctor_network.cpp) ---------------------------------------------------
// Read from sysfs and procfs under a root directory (`/` on the live system; tests pass a temp
// directory holding a FIXTURE tree), so every rule runs on the host without RDMA hardware.

// One port of an RDMA device: /sys/class/infiniband/<device>/ports/<port>/{state, phys_state,
// rate, link_layer}, as the kernel writes them ("4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)",
// "InfiniBand" or "Ethernet" for RoCE). Empty strings where a file is missing.
struct RdmaPort {
  std::string device;  // "mlx5_0"
  std::string port;    // "1"
  std::string state, phys_state, rate, link_layer;
};
struct RdmaFacts {
  bool sysfs_readable = false;  // <root>/sys/class/infiniband exists (the RDMA core is loaded)
  std::vector<RdmaPort> ports;  // every port of every device, sorted by device then port
};
// "4: ACTIVE" -> "ACTIVE"; "400 Gb/sec (4X NDR)" -> 400 (Gb/s); nullopt when not a rate.
std::string sysfs_state_word(const std::string& text);
std::optional<double> parse_ib_rate_gbps(const std::string& rate);
RdmaFacts probe_rdma(const std::filesystem::path& root = "/");

// How GPU memory can be registered with an RDMA NIC (GPUDirect RDMA), as NCCL's IB transport
// decides it: a peer-memory module (NCCL checks /sys/kernel/mm/memory_peers/nv_mem/version,
// .../nv_mem_nc/version and /sys/module/nvidia_peermem/version), or DMA-BUF (NCCL_DMABUF_ENABLE,
// on by default, "automatically disabled if the Linux kernel or the CUDA/NIC driver do not
// support it"): Linux 5.12 or newer (RDMA dma-buf memory registration) and NVIDIA's open GPU
// kernel modules (published from driver 515).
struct GdrFacts {
  std::string peer_memory_module;  // the sysfs path that showed a module, "" when none
  std::string peer_memory_version;
  std::string kernel_release;  // <root>/proc/sys/kernel/osrelease ("6.8.0-45-generic"), "" unknown
  std::optional<bool> open_kernel_module;  // from <root>/proc/driver/nvidia/version
  std::string driver_version;              // "560.35.03" from the same file, "" unknown
  std::string nccl_dmabuf_enable;          // NCCL_DMABUF_ENABLE as set, "" when unset
};
// /proc/driver/nvidia/version text -> (open flavour?, version); nullopt / "" when not found.
std::pair<std::optional<bool>, std::string> parse_nvidia_proc_version(const std::string& text);
GdrFacts probe_gdr(const std::filesystem::path& root = "/");

// network.ib_ports: no RDMA device passes as not applicable; a port not ACTIVE (or whose physical
// state is not LinkUp) while another port is active fails, naming it; no port active warns (a
// multi-node job would run over TCP sockets); active ports of one link layer at different rates
// warn (the slowest sets NCCL's ring speed); otherwise passes with the ports per rate and layer.
DoctorCheck check_ib_ports(const RdmaFacts& facts);
// network.gpudirect_rdma: no RDMA device passes as not applicable; a peer-memory module passes;
// else DMA-BUF's kernel and driver conditions pass (and NCCL_DMABUF_ENABLE=0 warns); otherwise
// warns (NCCL copies through host memory: inter-node bandwidth far below line rate). Unknown when
// neither the kernel release nor the driver can be read.
DoctorCheck check_gpudirect_rdma(const RdmaFacts& rdma, const GdrFacts& gdr);

// PCIe Access Control Services on the bridges above the GPUs and RDMA NICs: P2P Request or
// Completion Redirect enabled sends peer traffic up to the root complex (P2P and GPUDirect RDMA
// slow down or fail). Read from each bridge's config space in sysfs (<root>/sys/bus/pci/devices/
// <bdf>/config, the ACS extended capability, ID 0x000D, control register at +6: bit 2 request
// redirect, bit 3 completion redirect). The extended config space (offset 256 on) reads only as
// root: then the bridges are unknown with that reason.
struct AcsBridge {
  std::string bdf;               // "0000:16:02.0"
  std::string below;             // what sits under it ("GPU 0000:17:00.0", "NIC mlx5_0")
  std::optional<bool> redirect;  // nullopt: unreadable (reason) or no ACS capability (false)
  std::string reason;
};
struct AcsFacts {
  std::vector<AcsBridge> bridges;
  std::string reason;  // why nothing could be read, "" otherwise
};
// The ACS control word from a config-space image, nullopt when the image holds no ACS
// capability; `readable` false when the image is shorter than the extended space (not root).
std::optional<uint16_t> acs_control(const std::string& config, bool* readable);
// GPUs by NVML bus id ("00000000:17:00.0"), NICs from <root>/sys/class/infiniband/*/device.
AcsFacts probe_acs(const std::vector<std::string>& gpu_bus_ids,
                   const std::filesystem::path& root = "/");
// topology.pcie_acs: a bridge with redirect on warns, naming it and what is below; none passes;
// nothing readable is unknown with the reason.
DoctorCheck check_pcie_acs(const AcsFacts& facts);

// ---- the whole doctor (doctor.cpp) --------------------------------------------------------------
struct DoctorOptions {
  std::filesystem::path data_dir;  // empty: default_data_dir()
  // The profile whose datasets the free space must hold (quick, standard, full); empty: do not
  // ask the dataloader suite, judge the free space by fixed thresholds.
  std::string profile = "standard";
};
// Asks the dataloader suite found next to gpubench (or on GPUBENCH_SUITE_PATH) what `profile`
// writes into `data_dir`; never throws.
DiskNeed dataloader_disk_need(const std::string& profile, const std::filesystem::path& data_dir);
// The dataloader suite's data directory (gpubench::default_data_dir, util/fs.hpp): one rule.
std::filesystem::path default_data_dir();
// Why the dataloader would refuse `dir`, in the words of its check (suites/dataloader's
// check_data_dir): a directory it was given (`given`: --data-dir, GPUBENCH_DATA_DIR) must exist,
// be a directory and take a file; its default one must be creatable. Empty when it is usable.
// Writes and removes a probe file, as the dataloader does.
std::string data_dir_problem(const std::filesystem::path& dir, bool given);

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
