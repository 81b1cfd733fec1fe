// The doctor's probes of GPUs and the driver: NVML calls only the doctor needs (declared here from
// the NVML API reference, called through Nvml::symbol), sysfs NUMA nodes, the CUDA driver API's
// device count and `nvcc --version` on PATH.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "harness/doctor.hpp"
#include "harness/doctor_detail.hpp"
#include "harness/environment.hpp"
#include "harness/nvml.hpp"
#include "harness/process.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

namespace fs = std::filesystem;

namespace {

using nvmlReturn_t = int;  // NVML_SUCCESS = 0
using nvmlDevice_t = void*;
constexpr nvmlReturn_t k_success = 0;
constexpr int k_aggregate_ecc = 1;  // nvmlEccCounterType_t NVML_AGGREGATE_ECC
constexpr int k_clock_sm = 1;       // nvmlClockType_t NVML_CLOCK_SM

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
    {
      auto f = nvml_fn<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*)>(
          nvml, "nvmlDeviceGetApplicationsClock");
      nvmlDevice_t dev = nvml.device_handle(i);
      unsigned mhz = 0;
      if (f && dev && f(dev, k_clock_sm, &mhz) == k_success)
        g.app_sm_clock_mhz = static_cast<int>(mhz);
    }
    g.default_app_sm_clock_mhz = nvml.default_app_clock_mhz(i, NvmlClock::sm);
    g.power_limit_w = nvml.power_limit_w(i);
    if (auto mw = uint_query(nvml, "nvmlDeviceGetPowerManagementDefaultLimit", i)) {
      g.default_power_limit_w = *mw / 1000.0;
    }
    g.numa_node = sysfs_numa_node(nvml, i);
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
  } else {
    d.toolkit_reason = "no nvcc on PATH (a runtime-only install has none)";
  }
  return d;
}

}  // namespace gpubench::harness
