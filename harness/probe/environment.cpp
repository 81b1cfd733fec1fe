#include "harness/probe/environment.hpp"

#include <dlfcn.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "gpubench_version.hpp"
#include "harness/probe/clock_lock.hpp"
#include "harness/probe/nvml.hpp"
#include "util/dynlib.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace gpubench::harness {

namespace {

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "key\t: value" -> (key, value), trimmed. Returns false for lines without ':'.
bool split_key_value(std::string_view line, char sep, std::string& key, std::string& value) {
  const auto pos = line.find(sep);
  if (pos == std::string_view::npos) return false;
  key = std::string(trim(line.substr(0, pos)));
  value = std::string(trim(line.substr(pos + 1)));
  return true;
}

// A shared library opened for one query and closed again.
class DynLib {
 public:
  explicit DynLib(std::initializer_list<const char*> names) {
    for (const char* n : names) {
      m_handle = dlopen(n, RTLD_LAZY | RTLD_LOCAL);
      if (m_handle) break;
    }
  }
  explicit DynLib(void* handle) : m_handle(handle) {}  // adopts a dlopen handle (may be null)
  ~DynLib() {
    if (m_handle) dlclose(m_handle);
  }
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;
  template <typename Fn>
  Fn fn(const char* name) const {
    return m_handle ? reinterpret_cast<Fn>(dlsym(m_handle, name)) : nullptr;
  }

 private:
  void* m_handle = nullptr;
};

// The CUDA major version the suites were built with: the sonames and pip layout they load.
#ifndef GPUBENCH_CUDA_MAJOR
#define GPUBENCH_CUDA_MAJOR 13
#endif

// cuBLAS and NCCL as the suites find them (util/dynlib.hpp's order: GPUBENCH_CUDA_LIBS, the
// loader's path, the toolkit's directories, pip wheels), so the fingerprint names the library
// the suites really use. `soname` first, then older majors (a version is still worth recording).
std::string cublas_version() {
  constexpr int major = GPUBENCH_CUDA_MAJOR;
  std::vector<std::string> sonames;
  for (int m = major; m >= 11; --m) sonames.push_back("libcublas.so." + std::to_string(m));
  const LoadedLibrary found =
      load_library(cuda_library_spec(sonames, "cublas", major), SearchEnvironment::from_process());
  DynLib lib(found.handle);
  // cublasStatus_t cublasGetProperty(libraryPropertyType type, int* value);
  // MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2; CUBLAS_STATUS_SUCCESS = 0.
  auto get = lib.fn<int (*)(int, int*)>("cublasGetProperty");
  if (!get) return results::k_unknown;
  int parts[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    if (get(i, &parts[i]) != 0) return results::k_unknown;
  }
  return std::to_string(parts[0]) + "." + std::to_string(parts[1]) + "." + std::to_string(parts[2]);
}

std::string nccl_version() {
  const LoadedLibrary found =
      load_library(cuda_library_spec({"libnccl.so.2"}, "nccl", GPUBENCH_CUDA_MAJOR),
                   SearchEnvironment::from_process());
  DynLib lib(found.handle);
  auto get = lib.fn<int (*)(int*)>("ncclGetVersion");  // ncclResult_t, ncclSuccess = 0
  int code = 0;
  if (!get || get(&code) != 0) return results::k_unknown;
  return nccl_version_text(code);
}

// SM counts per PCI address ("0000:17:00.0", lower case) through the CUDA driver API.
std::map<std::string, int> cuda_sm_counts(std::string& cuda_driver_version) {
  std::map<std::string, int> out;
  DynLib lib({"libcuda.so.1"});
  auto init = lib.fn<int (*)(unsigned)>("cuInit");
  auto driver_version = lib.fn<int (*)(int*)>("cuDriverGetVersion");
  auto count = lib.fn<int (*)(int*)>("cuDeviceGetCount");
  auto get = lib.fn<int (*)(int*, int)>("cuDeviceGet");
  auto attribute = lib.fn<int (*)(int*, int, int)>("cuDeviceGetAttribute");
  auto bus_id = lib.fn<int (*)(char*, int, int)>("cuDeviceGetPCIBusId");
  int version = 0;
  if (driver_version && driver_version(&version) == 0 && version > 0 &&
      cuda_driver_version == results::k_unknown) {
    cuda_driver_version = cuda_version_text(version);
  }
  if (!init || !count || !get || !attribute || !bus_id || init(0) != 0) return out;
  int n = 0;
  if (count(&n) != 0) return out;
  constexpr int k_multiprocessor_count = 16;  // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
  for (int i = 0; i < n; ++i) {
    int dev = 0, sms = 0;
    char pci[64] = {};
    if (get(&dev, i) != 0 || attribute(&sms, k_multiprocessor_count, dev) != 0) continue;
    if (bus_id(pci, sizeof pci, dev) != 0) continue;
    out[to_lower(pci)] = sms;
  }
  return out;
}

}  // namespace

CpuInfo parse_cpuinfo(std::string_view text) {
  CpuInfo info;
  std::set<std::string> physical_ids;
  std::set<std::pair<std::string, std::string>> cores;
  std::optional<int> cores_per_socket;
  int processors = 0;
  std::string current_physical = "0";
  for (const std::string& line : split(text, '\n')) {
    std::string key, value;
    if (!split_key_value(line, ':', key, value)) continue;
    if (key == "processor") {
      ++processors;
      current_physical = "0";
    } else if (key == "model name" && info.model == results::k_unknown && !value.empty()) {
      info.model = value;
    } else if (key == "physical id") {
      current_physical = value;
      physical_ids.insert(value);
    } else if (key == "core id") {
      cores.insert({current_physical, value});
    } else if (key == "cpu cores") {
      if (auto v = parse_int(value)) cores_per_socket = static_cast<int>(*v);
    }
  }
  if (processors > 0) info.threads = processors;
  if (!physical_ids.empty()) info.sockets = static_cast<int>(physical_ids.size());
  if (!cores.empty()) {
    info.cores = static_cast<int>(cores.size());
  } else if (cores_per_socket && info.sockets) {
    info.cores = *cores_per_socket * *info.sockets;
  }
  return info;
}

std::optional<int64_t> parse_meminfo_total_bytes(std::string_view text) {
  for (const std::string& line : split(text, '\n')) {
    std::string key, value;
    if (!split_key_value(line, ':', key, value) || key != "MemTotal") continue;
    // "24576000 kB": the kernel's kB are KiB.
    const auto parts = split(value, ' ');
    if (parts.empty()) return std::nullopt;
    auto kib = parse_int(parts[0]);
    if (!kib) return std::nullopt;
    return static_cast<int64_t>(*kib) * 1024;
  }
  return std::nullopt;
}

std::string parse_os_release_pretty_name(std::string_view text) {
  for (const std::string& line : split(text, '\n')) {
    std::string key, value;
    if (!split_key_value(line, '=', key, value) || key != "PRETTY_NAME") continue;
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    return value.empty() ? std::string(results::k_unknown) : value;
  }
  return results::k_unknown;
}

std::string sysfs_pci_address(const std::string& nvml_bus_id) {
  // NVML pads the domain to 8 hex digits, sysfs ("%04x") to at least 4: drop the extra leading
  // zeros only. A domain above 0xffff (Intel VMD: 10000, Hyper-V) keeps every digit, so the
  // full domain:bus:device.function survives ("00010000:01:00.0" -> "10000:01:00.0").
  std::string id = to_lower(nvml_bus_id);
  const std::size_t colon = id.find(':');
  if (colon == std::string::npos) return id;
  std::size_t start = 0;
  while (colon - start > 4 && id[start] == '0') ++start;
  return id.substr(start);
}

std::map<std::string, std::string> relevant_env(const std::vector<std::string>& entries) {
  // CUBLAS_* / CUBLASLT_* (workspace, heuristics, logging) and NVIDIA_TF32_OVERRIDE change what
  // the GEMM suite measures; CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER decide which GPU a
  // suite's device:N is.
  static const char* const prefixes[] = {
      "CUDA_", "NCCL_", "OMP_", "GPUBENCH_", "CUBLAS_", "CUBLASLT_", "NVIDIA_TF32_OVERRIDE"};
  std::map<std::string, std::string> out;
  for (const auto& e : entries) {
    const auto eq = e.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = e.substr(0, eq);
    for (const char* p : prefixes) {
      if (key.rfind(p, 0) == 0) {
        out[key] = e.substr(eq + 1);
        break;
      }
    }
  }
  return out;
}

std::map<std::string, std::string> relevant_env_live() {
  std::vector<std::string> entries;
  for (char** e = environ; e && *e; ++e) entries.emplace_back(*e);
  return relevant_env(entries);
}

std::string nccl_version_text(int code) {
  if (code <= 0) return results::k_unknown;
  int major, minor, patch;
  if (code >= 10000) {  // NCCL >= 2.9: major*10000 + minor*100 + patch
    major = code / 10000;
    minor = (code % 10000) / 100;
    patch = code % 100;
  } else {  // older: major*1000 + minor*100 + patch
    major = code / 1000;
    minor = (code % 1000) / 100;
    patch = code % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

bool suite_loads_modules_eagerly(const std::string& suite) {
  return suite != "gemm" && suite != "allreduce";
}

std::string suite_module_loading(const char* user_value, const std::string& suite) {
  if (user_value != nullptr && *user_value != '\0') return user_value;
  return suite_loads_modules_eagerly(suite) ? k_cuda_module_loading : k_cuda_module_loading_lazy;
}

std::vector<std::pair<std::string, std::string>> suite_child_env(const std::string& profile,
                                                                 const std::string& suite) {
  return {{"GPUBENCH_PROFILE", profile},
          {"CUDA_DEVICE_ORDER", k_cuda_device_order},
          {"CUDA_MODULE_LOADING", suite_module_loading(std::getenv("CUDA_MODULE_LOADING"), suite)}};
}

std::string run_module_loading(const std::vector<std::string>& suites) {
  const char* user = std::getenv("CUDA_MODULE_LOADING");
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // value -> suites
  for (const std::string& suite : suites) {
    const std::string value = suite_module_loading(user, suite);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == value; });
    if (it == groups.end()) {
      groups.push_back({value, {suite}});
    } else {
      it->second.push_back(suite);
    }
  }
  if (groups.empty()) return suite_module_loading(user, "");
  if (groups.size() == 1) return groups.front().first;
  std::vector<std::string> parts;
  for (const auto& [value, names] : groups) parts.push_back(value + " (" + join(names, ", ") + ")");
  return join(parts, "; ");
}

std::string cuda_version_text(int code) {
  if (code <= 0) return results::k_unknown;
  return std::to_string(code / 1000) + "." + std::to_string((code % 1000) / 10);
}

results::HostInfo probe_host() {
  results::HostInfo host;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0 && name[0]) host.hostname = name;
  if (auto text = read_text("/proc/cpuinfo")) {
    const CpuInfo cpu = parse_cpuinfo(*text);
    host.cpu_model = cpu.model;
    host.sockets = cpu.sockets;
    host.cores = cpu.cores;
    host.threads = cpu.threads;
  }
  if (auto text = read_text("/proc/meminfo")) host.memory_bytes = parse_meminfo_total_bytes(*text);
  utsname uts{};
  if (uname(&uts) == 0) {
    host.kernel = uts.release;
    host.arch = uts.machine;
  }
  if (auto text = read_text("/etc/os-release")) host.os = parse_os_release_pretty_name(*text);
  if (auto text = read_text("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")) {
    const std::string gov(trim(*text));
    if (!gov.empty()) host.governor = gov;
  }
  return host;
}

std::vector<results::GpuInfo> probe_gpus(results::SoftwareEnv& software,
                                         std::string* clocks_locked) {
  std::vector<results::GpuInfo> gpus;
  std::vector<ClockLockState> locks;
  Nvml nvml;
  if (nvml.available()) {
    if (auto v = nvml.driver_version()) software.driver_version = *v;
    if (auto v = nvml.cuda_driver_version()) software.cuda_driver_version = *v;
  }
  const std::map<std::string, int> sms = cuda_sm_counts(software.cuda_driver_version);
  const int n = nvml.device_count();
  for (int i = 0; i < n; ++i) {
    results::GpuInfo g;
    g.nvml_index = i;
    if (auto v = nvml.uuid(i)) g.uuid = *v;
    if (auto v = nvml.name(i)) g.name = *v;
    if (auto pci = nvml.pci(i)) {
      const std::string addr = sysfs_pci_address(pci->bus_id);
      g.pci_bus_id = addr;
      if (auto it = sms.find(addr); it != sms.end()) g.sm_count = it->second;
      if (auto node = read_text("/sys/bus/pci/devices/" + addr + "/numa_node")) {
        auto v = parse_int(trim(*node));
        if (v && *v >= 0) g.numa_node = static_cast<int>(*v);  // -1: no NUMA affinity known
      }
    }
    g.memory_bytes = nvml.memory_total_bytes(i);
    if (auto v = nvml.compute_capability(i)) g.compute_capability = *v;
    g.max_sm_clock_mhz = nvml.max_clock_mhz(i, NvmlClock::sm);
    g.max_mem_clock_mhz = nvml.max_clock_mhz(i, NvmlClock::memory);
    g.default_sm_clock_mhz = nvml.default_app_clock_mhz(i, NvmlClock::sm);
    if (!g.default_sm_clock_mhz)
      g.default_sm_clock_mhz = nvml.default_app_clock_mhz(i, NvmlClock::graphics);
    g.app_sm_clock_mhz = nvml.app_clock_mhz(i, NvmlClock::sm);
    if (!g.app_sm_clock_mhz) g.app_sm_clock_mhz = nvml.app_clock_mhz(i, NvmlClock::graphics);
    g.power_limit_w = nvml.power_limit_w(i);
    if (auto ecc = nvml.ecc_enabled(i)) g.ecc = *ecc ? "on" : "off";
    g.pcie_gen = nvml.pcie_gen(i);
    g.pcie_width = nvml.pcie_width(i);
    if (clocks_locked) {
      ClockLockFacts f;
      f.max_sm_clock_mhz = g.max_sm_clock_mhz;
      f.app_sm_clock_mhz = g.app_sm_clock_mhz;  // SM, else graphics, as above
      f.default_app_sm_clock_mhz = g.default_sm_clock_mhz;
      f.reasons = nvml.throttle_reasons(i);
      f.sm_clock_mhz = nvml.current_clock_mhz(i, NvmlClock::sm);
      if (const auto p0 = nvml.pstate_clock_range_mhz(i, NvmlClock::sm, 0)) {
        f.p0_max_sm_clock_mhz = p0->second;
      }
      locks.push_back(sm_clock_lock(f));
    }
    gpus.push_back(std::move(g));
  }
  if (clocks_locked) *clocks_locked = clocks_locked_value(locks);
  return gpus;
}

results::SoftwareEnv probe_software() {
  results::SoftwareEnv sw;
#ifdef GPUBENCH_CUDA_RUNTIME_VERSION
  sw.cuda_runtime_version = GPUBENCH_CUDA_RUNTIME_VERSION;
#endif
  sw.cublas_version = cublas_version();
  sw.nccl_version = nccl_version();
  utsname uts{};
  if (uname(&uts) == 0) sw.kernel = uts.release;
#if defined(__clang__)
  sw.compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  sw.compiler = std::string("gcc ") + __VERSION__;
#endif
  sw.gpubench_version = build_info::k_version;
  sw.git_sha = build_info::k_git_sha;
  sw.git_dirty = build_info::k_git_dirty;
  return sw;
}

Environment probe_environment(const std::string& profile) {
  Environment env;
  env.host = probe_host();
  env.software = probe_software();
  env.gpus = probe_gpus(env.software, &env.config.clocks_locked);
  env.config.profile = profile;
  env.config.env = relevant_env_live();
  return env;
}

}  // namespace gpubench::harness
