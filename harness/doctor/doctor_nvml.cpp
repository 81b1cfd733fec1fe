// The doctor's probes of GPUs and the driver: NVML calls only the doctor needs (declared here from
// the NVML API reference, called through Nvml::symbol), sysfs NUMA nodes, the CUDA driver API's
// device count and `nvcc --version` on PATH.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <type_traits>

#include "harness/doctor/doctor.hpp"
#include "harness/doctor/doctor_detail.hpp"
#include "harness/probe/environment.hpp"
#include "harness/probe/nvml.hpp"
#include "harness/process/process.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/nvml_abi.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

namespace fs = std::filesystem;

namespace {

using nvml_abi::k_success;
using nvml_abi::nvmlReturn_t;
using nvmlDevice_t = void*;          // as Nvml::device_handle() gives it
constexpr int k_aggregate_ecc = 1;   // nvmlEccCounterType_t NVML_AGGREGATE_ECC
constexpr int k_clock_graphics = 0;  // nvmlClockType_t NVML_CLOCK_GRAPHICS
constexpr int k_pstate_0 = 0;        // nvmlPstates_t NVML_PSTATE_0
// NVML_NVLINK_MAX_LINKS in CUDA 13's nvml.h (18 before; older drivers answer INVALID_ARGUMENT).
constexpr unsigned k_nvlink_max_links = 36;
constexpr int k_error_invalid_argument = 2;  // NVML_ERROR_INVALID_ARGUMENT

// nvml.h's NVML_STRUCT_VERSION(name, ver): sizeof(struct) | ver << 24.
// The layouts below mirror nvml.h member for member (same types, same order), so sizeof matches.
template <typename T>
constexpr unsigned struct_version(unsigned ver) {
  return static_cast<unsigned>(sizeof(T)) | ver << 24;
}

// nvmlClockOffset_v1_t for nvmlDeviceGetClockOffsets (type and pstate in, offsets out).
struct nvmlClockOffset_v1_t {
  unsigned version;
  int type;    // nvmlClockType_t
  int pstate;  // nvmlPstates_t
  int clockOffsetMHz;
  int minClockOffsetMHz;
  int maxClockOffsetMHz;
};

// GPU fabric info. v1 (nvmlGpuFabricInfo_t, nvmlDeviceGetGpuFabricInfo, deprecated in 13.0) has
// no version field; v2 adds version first and healthMask last; v3 (nvmlGpuFabricInfoV_t in CUDA
// 13) adds healthSummary. Each is passed to nvmlDeviceGetGpuFabricInfoV with its version set.
constexpr int k_fabric_uuid_len = 16;  // NVML_GPU_FABRIC_UUID_LEN
struct nvmlGpuFabricInfo_v1_t {
  unsigned char clusterUuid[k_fabric_uuid_len];
  nvmlReturn_t status;
  unsigned cliqueId;
  unsigned char state;  // nvmlGpuFabricState_t
};
struct nvmlGpuFabricInfo_v2_t {
  unsigned version;
  unsigned char clusterUuid[k_fabric_uuid_len];
  nvmlReturn_t status;
  unsigned cliqueId;
  unsigned char state;
  unsigned healthMask;
};
struct nvmlGpuFabricInfo_v3_t {
  unsigned version;
  unsigned char clusterUuid[k_fabric_uuid_len];
  nvmlReturn_t status;
  unsigned cliqueId;
  unsigned char state;
  unsigned healthMask;
  unsigned char healthSummary;
};
// The versions NVML checks are these sizes (nvml.h's layouts on LP64 Linux).
static_assert(sizeof(nvmlClockOffset_v1_t) == 24);
static_assert(sizeof(nvmlGpuFabricInfo_v2_t) == 36);
static_assert(sizeof(nvmlGpuFabricInfo_v3_t) == 40);

template <typename Fn>
Fn nvml_fn(const Nvml& nvml, const char* name) {
  return reinterpret_cast<Fn>(nvml.symbol(name));
}

std::optional<unsigned> uint_query(const Nvml& nvml, const char* name, int index) {
  auto f = nvml_fn<nvmlReturn_t (*)(nvmlDevice_t, unsigned*)>(nvml, name);
  nvmlDevice_t dev = nvml.device_handle(index);
  unsigned v = 0;
  if (!f || !dev || f(dev, &v) != k_success) return std::nullopt;
  return v;
}

std::optional<int> as_int(std::optional<unsigned> v) {
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

std::optional<int64_t> ecc_count(const Nvml& nvml, int index, int error_type, int counter_type) {
  auto f = nvml_fn<nvmlReturn_t (*)(nvmlDevice_t, int, int, unsigned long long*)>(
      nvml, "nvmlDeviceGetTotalEccErrors");
  nvmlDevice_t dev = nvml.device_handle(index);
  unsigned long long n = 0;
  if (!f || !dev || f(dev, error_type, counter_type, &n) != k_success) return std::nullopt;
  return static_cast<int64_t>(n);
}

std::optional<RemappedRows> remapped_rows(const Nvml& nvml, int index) {
  auto f = nvml_fn<nvmlReturn_t (*)(nvmlDevice_t, unsigned*, unsigned*, unsigned*, unsigned*)>(
      nvml, "nvmlDeviceGetRemappedRows");
  nvmlDevice_t dev = nvml.device_handle(index);
  unsigned corr = 0, unc = 0, pending = 0, failure = 0;
  if (!f || !dev || f(dev, &corr, &unc, &pending, &failure) != k_success) return std::nullopt;
  return RemappedRows{corr, unc, pending != 0, failure != 0};
}

std::optional<int> sysfs_numa_node(const Nvml& nvml, int index) {
  const auto pci = nvml.pci(index);
  if (!pci) return std::nullopt;
  const auto text = doctor_detail::read_text_file("/sys/bus/pci/devices/" +
                                                  sysfs_pci_address(pci->bus_id) + "/numa_node");
  const auto v = text ? parse_int(trim(*text)) : std::nullopt;
  if (!v || *v < 0) return std::nullopt;  // -1: the platform gives no affinity
  return static_cast<int>(*v);
}

std::optional<int> clock_offset_mhz(const Nvml& nvml, int index) {
  auto f = nvml_fn<nvmlReturn_t (*)(nvmlDevice_t, nvmlClockOffset_v1_t*)>(
      nvml, "nvmlDeviceGetClockOffsets");
  nvmlDevice_t dev = nvml.device_handle(index);
  nvmlClockOffset_v1_t info{
      struct_version<nvmlClockOffset_v1_t>(1), k_clock_graphics, k_pstate_0, 0, 0, 0};
  if (!f || !dev || f(dev, &info) != k_success) return std::nullopt;
  return info.clockOffsetMHz;
}

std::optional<MigFacts> probe_mig(const Nvml& nvml, int index) {
  auto f =
      nvml_fn<nvmlReturn_t (*)(nvmlDevice_t, unsigned*, unsigned*)>(nvml, "nvmlDeviceGetMigMode");
  nvmlDevice_t dev = nvml.device_handle(index);
  if (!f || !dev) return std::nullopt;
  unsigned current = 0, pending = 0;
  const nvmlReturn_t rc = f(dev, &current, &pending);
  return mig_from_nvml(rc, current, pending);
}

std::optional<FabricFacts> probe_fabric(const Nvml& nvml, int index) {
  nvmlDevice_t dev = nvml.device_handle(index);
  if (!dev) return std::nullopt;
  FabricFacts read;
  auto versioned = [&](auto info) -> nvmlReturn_t {
    using Info = decltype(info);
    auto f = nvml_fn<nvmlReturn_t (*)(nvmlDevice_t, Info*)>(nvml, "nvmlDeviceGetGpuFabricInfoV");
    if (!f) return k_nvml_error_function_not_found;
    const nvmlReturn_t rc = f(dev, &info);
    if (rc == k_success) {
      read.state = info.state;
      read.status = info.status;
      read.health_mask = info.healthMask;
      if constexpr (std::is_same_v<Info, nvmlGpuFabricInfo_v3_t>)
        read.health_summary = info.healthSummary;
    }
    return rc;
  };
  nvmlGpuFabricInfo_v3_t v3{};
  v3.version = struct_version<nvmlGpuFabricInfo_v3_t>(3);
  nvmlReturn_t rc = versioned(v3);
  if (rc == k_nvml_error_argument_version_mismatch) {  // a driver that knows v2 only
    nvmlGpuFabricInfo_v2_t v2{};
    v2.version = struct_version<nvmlGpuFabricInfo_v2_t>(2);
    rc = versioned(v2);
  }
  if (rc == k_nvml_error_function_not_found) {  // a driver before nvmlDeviceGetGpuFabricInfoV
    auto f = nvml_fn<nvmlReturn_t (*)(nvmlDevice_t, nvmlGpuFabricInfo_v1_t*)>(
        nvml, "nvmlDeviceGetGpuFabricInfo");
    nvmlGpuFabricInfo_v1_t v1{};
    rc = f ? f(dev, &v1) : k_nvml_error_function_not_found;
    if (rc == k_success) {
      read.state = v1.state;
      read.status = v1.status;
    }
  }
  return fabric_from_nvml(rc, read);
}

std::optional<NvlinkFacts> probe_nvlink(const Nvml& nvml, int index) {
  auto f =
      nvml_fn<nvmlReturn_t (*)(nvmlDevice_t, unsigned, int*)>(nvml, "nvmlDeviceGetNvLinkState");
  nvmlDevice_t dev = nvml.device_handle(index);
  if (!f || !dev) return std::nullopt;
  std::vector<NvlinkAnswer> links;
  for (unsigned link = 0; link < k_nvlink_max_links; ++link) {
    NvlinkAnswer a;
    a.rc = f(dev, link, &a.active);
    links.push_back(a);
  }
  return nvlink_from_nvml(links);
}

// The first executable `name` on PATH.
std::optional<fs::path> find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  for (const std::string& dir : split(path, ':')) {
    if (dir.empty()) continue;
    const fs::path candidate = fs::path(dir) / name;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<MigFacts> mig_from_nvml(int rc, unsigned current_mode, unsigned pending_mode) {
  if (rc == k_nvml_error_not_supported) return MigFacts{false, false, false};
  if (rc != k_nvml_success) return std::nullopt;
  // NVML_DEVICE_MIG_ENABLE = 1, NVML_DEVICE_MIG_DISABLE = 0.
  return MigFacts{true, current_mode == 1, pending_mode == 1};
}

std::optional<FabricFacts> fabric_from_nvml(int rc, const FabricFacts& read) {
  if (rc == k_nvml_error_not_supported) {
    FabricFacts none;
    none.supported = false;
    return none;
  }
  if (rc != k_nvml_success) return std::nullopt;
  FabricFacts f = read;
  f.supported = read.state != k_fabric_state_not_supported;
  return f;
}

std::optional<NvlinkFacts> nvlink_from_nvml(const std::vector<NvlinkAnswer>& links) {
  NvlinkFacts out;
  for (std::size_t i = 0; i < links.size(); ++i) {
    const NvlinkAnswer& a = links[i];
    if (a.rc == k_nvml_success) {
      (a.active == 1 ? out.up : out.down).push_back(static_cast<int>(i));
    } else if (a.rc != k_nvml_error_not_supported && a.rc != k_error_invalid_argument) {
      // No permission, GPU lost, an unexpected error: the link's state is unknown, and so is
      // the verdict (a missing link must not read as a healthy GPU without it).
      return std::nullopt;
    }
  }
  return out;
}

GpuCount probe_gpu_count(const Nvml& nvml) {
  GpuCount c;
  if (!nvml.available()) {
    c.unknown_reason = "GPU facts unreadable: " + nvml.reason();
    return c;
  }
  c.count = nvml.device_count();
  return c;
}

std::vector<GpuFacts> probe_gpu_facts(const Nvml& nvml) {
  std::vector<GpuFacts> out;
  const int n = nvml.available() ? nvml.device_count() : 0;
  for (int i = 0; i < n; ++i) {
    GpuFacts g;
    g.index = i;
    g.name = nvml.name(i).value_or(results::k_unknown);
    if (const auto pci = nvml.pci(i)) g.bus_id = pci->bus_id;
    g.lost = nvml.device_status(i) == k_nvml_error_gpu_is_lost;
    if (g.lost) {  // nothing else is readable; every per-GPU check shows it as unknown
      out.push_back(std::move(g));
      continue;
    }
    if (auto mode = uint_query(nvml, "nvmlDeviceGetPersistenceMode", i)) g.persistence = *mode != 0;
    g.ecc_enabled = nvml.ecc_enabled(i);
    g.ecc_volatile_corrected = nvml.ecc_volatile_errors(i, NvmlEccError::corrected);
    g.ecc_volatile_uncorrected = nvml.ecc_volatile_errors(i, NvmlEccError::uncorrected);
    g.ecc_aggregate_corrected = ecc_count(nvml, i, 0, k_aggregate_ecc);
    g.ecc_aggregate_uncorrected = ecc_count(nvml, i, 1, k_aggregate_ecc);
    g.retired_pages = nvml.retired_pages(i);
    if (auto p = uint_query(nvml, "nvmlDeviceGetRetiredPagesPendingStatus", i)) {
      g.retired_pages_pending = *p != 0;
    }
    g.remapped_rows = remapped_rows(nvml, i);
    g.pcie_gen = nvml.pcie_gen(i);
    g.pcie_width = nvml.pcie_width(i);
    g.pcie_max_gen = as_int(uint_query(nvml, "nvmlDeviceGetMaxPcieLinkGeneration", i));
    g.pcie_max_width = as_int(uint_query(nvml, "nvmlDeviceGetMaxPcieLinkWidth", i));
    g.pcie_gpu_max_gen = as_int(uint_query(nvml, "nvmlDeviceGetGpuMaxPcieLinkGeneration", i));
    if (auto reasons = nvml.throttle_reasons(i)) {
      g.idle = (*reasons & throttle::gpu_idle) != 0;
      g.clocks_user_limited = (*reasons & throttle::applications_clocks_setting) != 0;
    }
    g.app_sm_clock_mhz = nvml.app_clock_mhz(i, NvmlClock::sm);
    g.default_app_sm_clock_mhz = nvml.default_app_clock_mhz(i, NvmlClock::sm);
    g.graphics_clock_offset_mhz = clock_offset_mhz(nvml, i);
    g.max_sm_clock_mhz = nvml.max_clock_mhz(i, NvmlClock::sm);
    if (const auto p0 = nvml.pstate_clock_range_mhz(i, NvmlClock::sm, 0)) {
      g.p0_min_sm_clock_mhz = p0->first;
      g.p0_max_sm_clock_mhz = p0->second;
    }
    g.sm_clock_mhz = nvml.current_clock_mhz(i, NvmlClock::sm);
    g.power_limit_w = nvml.power_limit_w(i);
    g.configured_power_limit_w = nvml.configured_power_limit_w(i);
    if (auto mw = uint_query(nvml, "nvmlDeviceGetPowerManagementDefaultLimit", i)) {
      g.default_power_limit_w = *mw / 1000.0;
    }
    g.numa_node = sysfs_numa_node(nvml, i);
    g.mig = probe_mig(nvml, i);
    g.fabric = probe_fabric(nvml, i);
    g.nvlink = probe_nvlink(nvml, i);
    out.push_back(std::move(g));
  }
  return out;
}

DriverFacts probe_driver_facts(const Nvml& nvml) {
  DriverFacts d;
  if (nvml.available()) {
    d.driver_version = nvml.driver_version().value_or("");
    d.driver_cuda_version = nvml.cuda_driver_version();
  }
#ifdef GPUBENCH_CUDA_RUNTIME_VERSION
  d.runtime_version = GPUBENCH_CUDA_RUNTIME_VERSION;
#endif
  // The CUDA driver API: the newest CUDA the driver supports (when NVML could not say) and how
  // many devices this process can use (CUDA_VISIBLE_DEVICES, container device nodes).
  if (void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(lib, "cuInit"));
    auto count = reinterpret_cast<int (*)(int*)>(dlsym(lib, "cuDeviceGetCount"));
    auto version = reinterpret_cast<int (*)(int*)>(dlsym(lib, "cuDriverGetVersion"));
    int v = 0;
    if (!d.driver_cuda_version && version && version(&v) == 0 && v > 0) {
      d.driver_cuda_version = cuda_version_text(v);
    }
    int n = 0;
    int rc = init ? init(0) : -1;
    if (rc == 100) {  // CUDA_ERROR_NO_DEVICE
      d.cuda_device_count = 0;
    } else if (rc == 0 && count && count(&n) == 0) {
      d.cuda_device_count = n;
    } else {
      d.cuda_reason = "cuInit failed with CUDA error " + std::to_string(rc);
    }
    dlclose(lib);
  } else {
    d.cuda_reason = "libcuda.so.1 not found (no NVIDIA driver)";
  }
  {
    std::error_code ec;
    const fs::path gpus_dir = "/proc/driver/nvidia/gpus";
    if (fs::is_directory(gpus_dir, ec)) {
      int n = 0;
      for (auto it = fs::directory_iterator(gpus_dir, ec); !ec && it != fs::directory_iterator();
           it.increment(ec)) {
        ++n;
      }
      d.driver_gpu_count = n;
    }
  }
  // The toolkit on PATH (nvcc), asked for its release.
  if (const auto nvcc = find_on_path("nvcc")) {
    // No temporary directory (an unwritable TMPDIR) makes the toolkit unknown with the reason;
    // the other checks still run.
    try {
      TempDir tmp("gpubench-doctor");
      ProcessSpec spec;
      spec.argv = {nvcc->string(), "--version"};
      spec.stdout_path = tmp.path() / "nvcc.txt";
      spec.timeout_s = 20;
      spec.kill_grace_s = 1;
      const ProcessResult r = run_process(spec);
      std::string text;
      try {
        text = read_file(spec.stdout_path);
      } catch (const std::exception&) {
      }
      d.toolkit_version = parse_nvcc_release(text);
      if (!d.toolkit_version) {
        d.toolkit_reason = "'" + nvcc->string() + " --version' gave no release (" +
                           (r.succeeded() ? "unexpected output" : "it failed") + ")";
      }
    } catch (const Error& e) {
      d.toolkit_reason = "cannot ask '" + nvcc->string() + " --version': " + e.what();
    }
  } else {
    d.toolkit_reason = "no nvcc on PATH (a runtime-only install has none)";
  }
  return d;
}

}  // namespace gpubench::harness
