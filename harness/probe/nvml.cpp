#include "harness/probe/nvml.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <map>
#include <vector>

#include "util/nvml_abi.hpp"

namespace gpubench::harness {

namespace {

// The NVML ABI pieces gpubench uses, declared from the NVML API reference (no nvml.h needed):
// the ones link_probe.cpp shares from util/nvml_abi.hpp, then this reader's own.
using nvml_abi::k_success;
using nvml_abi::nvmlDevice_t;
using nvml_abi::nvmlPciInfo_t;
using nvml_abi::nvmlReturn_t;
constexpr nvmlReturn_t k_error_invalid_argument = 2;
constexpr nvmlReturn_t k_error_insufficient_size = 7;
constexpr int k_volatile_ecc = 0;  // nvmlEccCounterType_t NVML_VOLATILE_ECC
// nvmlPageRetirementCause_t: multiple single-bit ECC errors = 0, a double-bit ECC error = 1.
constexpr int k_retirement_causes[] = {0, 1};

struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct nvmlUtilization_t {
  unsigned int gpu;
  unsigned int memory;
};
// nvmlTemperature_v1_t for nvmlDeviceGetTemperatureV; version = NVML_STRUCT_VERSION(Temperature,
// 1) = sizeof | 1 << 24.
struct nvmlTemperature_v1_t {
  unsigned int version;
  int sensorType;  // nvmlTemperatureSensors_t: NVML_TEMPERATURE_GPU = 0
  int temperature;
};
constexpr unsigned k_temperature_v1 =
    static_cast<unsigned>(sizeof(nvmlTemperature_v1_t)) | 1u << 24;
// nvmlFieldValue_t / nvmlValue_t for nvmlDeviceGetFieldValues.
union nvmlValue_t {
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  int siVal;
  unsigned short usVal;
};
struct nvmlFieldValue_t {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;  // nvmlValueType_t
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
};
constexpr unsigned k_fi_dev_power_instant = 186;  // NVML_FI_DEV_POWER_INSTANT, milliwatts
constexpr int k_clock_id_app_clock_target = 1;    // nvmlClockId_t NVML_CLOCK_ID_APP_CLOCK_TARGET
constexpr int k_clock_id_app_clock_default = 2;   // nvmlClockId_t NVML_CLOCK_ID_APP_CLOCK_DEFAULT

// nvmlValue_t as a double, by its nvmlValueType_t.
std::optional<double> field_number(const nvmlFieldValue_t& f) {
  switch (f.valueType) {
    case 0:
      return f.value.dVal;
    case 1:
      return static_cast<double>(f.value.uiVal);
    case 2:
      return static_cast<double>(f.value.ulVal);
    case 3:
      return static_cast<double>(f.value.ullVal);
    case 4:
      return static_cast<double>(f.value.sllVal);
    case 5:
      return static_cast<double>(f.value.siVal);
    case 6:
      return static_cast<double>(f.value.usVal);
    default:
      return std::nullopt;
  }
}

const char* const k_symbols[] = {
    "nvmlInit_v2",
    "nvmlShutdown",
    "nvmlDeviceGetCount_v2",
    "nvmlDeviceGetHandleByIndex_v2",
    "nvmlDeviceGetName",
    "nvmlDeviceGetUUID",
    "nvmlDeviceGetPciInfo_v3",
    "nvmlDeviceGetMemoryInfo",
    "nvmlDeviceGetMaxClockInfo",
    "nvmlDeviceGetDefaultApplicationsClock",
    "nvmlDeviceGetClockInfo",
    "nvmlDeviceGetPowerManagementLimit",
    "nvmlDeviceGetEnforcedPowerLimit",
    "nvmlDeviceGetPowerUsage",
    "nvmlDeviceGetTemperatureV",
    "nvmlDeviceGetTemperature",
    "nvmlDeviceGetClock",
    "nvmlDeviceGetApplicationsClock",
    "nvmlDeviceGetFieldValues",
    "nvmlDeviceGetUtilizationRates",
    "nvmlDeviceGetEccMode",
    "nvmlDeviceGetCurrPcieLinkGeneration",
    "nvmlDeviceGetCurrPcieLinkWidth",
    "nvmlDeviceGetCudaComputeCapability",
    "nvmlSystemGetDriverVersion",
    "nvmlSystemGetCudaDriverVersion_v2",
    "nvmlDeviceGetCurrentClocksEventReasons",
    "nvmlDeviceGetCurrentClocksThrottleReasons",
    "nvmlDeviceGetTotalEccErrors",
    "nvmlDeviceGetRetiredPages",
    "nvmlDeviceGetRemappedRows",
    "nvmlDeviceGetPcieReplayCounter",
    "nvmlDeviceGetMinMaxClockOfPState",
};

}  // namespace

struct Nvml::Impl {
  void* lib = nullptr;
  bool initialised = false;
  std::string reason;
  std::map<std::string, void*> symbols;

  template <typename Fn>
  Fn fn(const char* name) const {
    const auto it = symbols.find(name);
    return it == symbols.end() ? nullptr : reinterpret_cast<Fn>(it->second);
  }

  nvmlDevice_t handle(int index) const {
    if (!initialised || index < 0) return nullptr;
    auto get = fn<nvmlReturn_t (*)(unsigned, nvmlDevice_t*)>("nvmlDeviceGetHandleByIndex_v2");
    nvmlDevice_t dev = nullptr;
    if (!get || get(static_cast<unsigned>(index), &dev) != k_success) return nullptr;
    return dev;
  }

  // A query of the shape f(device, unsigned int*) -> optional<unsigned>.
  std::optional<unsigned> uint_query(const char* name, int index) const {
    auto f = fn<nvmlReturn_t (*)(nvmlDevice_t, unsigned*)>(name);
    nvmlDevice_t dev = handle(index);
    unsigned value = 0;
    if (!f || !dev || f(dev, &value) != k_success) return std::nullopt;
    return value;
  }
  std::optional<unsigned> clock_query(const char* name, int index, NvmlClock clock) const {
    auto f = fn<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*)>(name);
    nvmlDevice_t dev = handle(index);
    unsigned value = 0;
    if (!f || !dev || f(dev, static_cast<int>(clock), &value) != k_success) return std::nullopt;
    return value;
  }
  std::optional<std::string> string_query(const char* name, int index) const {
    auto f = fn<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>(name);
    nvmlDevice_t dev = handle(index);
    char buf[256] = {};
    if (!f || !dev || f(dev, buf, sizeof buf) != k_success) return std::nullopt;
    return std::string(buf);
  }
};

Nvml::Nvml() : m_impl(std::make_unique<Impl>()) {
  m_impl->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!m_impl->lib) {
    m_impl->reason = "libnvidia-ml.so.1 not found (no NVIDIA driver)";
    return;
  }
  for (const char* name : k_symbols) {
    if (void* p = dlsym(m_impl->lib, name)) m_impl->symbols[name] = p;
  }
  auto init = m_impl->fn<nvmlReturn_t (*)()>("nvmlInit_v2");
  if (!init) {
    m_impl->reason = "libnvidia-ml.so.1 has no nvmlInit_v2 (driver too old)";
    return;
  }
  const nvmlReturn_t rc = init();
  if (rc != k_success) {
    m_impl->reason = "nvmlInit_v2 failed with NVML error " + std::to_string(rc);
    return;
  }
  m_impl->initialised = true;
}

Nvml::~Nvml() {
  if (m_impl->initialised) {
    if (auto shutdown = m_impl->fn<nvmlReturn_t (*)()>("nvmlShutdown")) shutdown();
  }
  if (m_impl->lib) dlclose(m_impl->lib);
}

bool Nvml::available() const {
  return m_impl->initialised;
}
const std::string& Nvml::reason() const {
  return m_impl->reason;
}

int Nvml::device_count() const {
  if (!m_impl->initialised) return 0;
  auto f = m_impl->fn<nvmlReturn_t (*)(unsigned*)>("nvmlDeviceGetCount_v2");
  unsigned count = 0;
  if (!f || f(&count) != k_success) return 0;
  return static_cast<int>(count);
}

std::optional<std::string> Nvml::driver_version() const {
  if (!m_impl->initialised) return std::nullopt;
  auto f = m_impl->fn<nvmlReturn_t (*)(char*, unsigned)>("nvmlSystemGetDriverVersion");
  char buf[96] = {};
  if (!f || f(buf, sizeof buf) != k_success) return std::nullopt;
  return std::string(buf);
}

std::optional<std::string> Nvml::cuda_driver_version() const {
  if (!m_impl->initialised) return std::nullopt;
  auto f = m_impl->fn<nvmlReturn_t (*)(int*)>("nvmlSystemGetCudaDriverVersion_v2");
  int v = 0;
  if (!f || f(&v) != k_success || v <= 0) return std::nullopt;
  // 12060 -> "12.6" (CUDA encodes 1000 * major + 10 * minor).
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::optional<std::string> Nvml::name(int index) const {
  return m_impl->string_query("nvmlDeviceGetName", index);
}
std::optional<std::string> Nvml::uuid(int index) const {
  return m_impl->string_query("nvmlDeviceGetUUID", index);
}

std::optional<NvmlPci> Nvml::pci(int index) const {
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t*)>("nvmlDeviceGetPciInfo_v3");
  nvmlDevice_t dev = m_impl->handle(index);
  nvmlPciInfo_t info{};
  if (!f || !dev || f(dev, &info) != k_success) return std::nullopt;
  info.busId[sizeof info.busId - 1] = '\0';
  return NvmlPci{info.busId, info.domain, info.bus, info.device};
}

std::optional<int64_t> Nvml::memory_total_bytes(int index) const {
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*)>("nvmlDeviceGetMemoryInfo");
  nvmlDevice_t dev = m_impl->handle(index);
  nvmlMemory_t mem{};
  if (!f || !dev || f(dev, &mem) != k_success) return std::nullopt;
  return static_cast<int64_t>(mem.total);
}

std::optional<int> Nvml::max_clock_mhz(int index, NvmlClock clock) const {
  auto v = m_impl->clock_query("nvmlDeviceGetMaxClockInfo", index, clock);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}
std::optional<int> Nvml::default_app_clock_mhz(int index, NvmlClock clock) const {
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, int, int, unsigned*)>("nvmlDeviceGetClock");
  nvmlDevice_t dev = m_impl->handle(index);
  unsigned mhz = 0;
  if (f && dev &&
      f(dev, static_cast<int>(clock), k_clock_id_app_clock_default, &mhz) == k_success && mhz > 0) {
    return static_cast<int>(mhz);
  }
  auto v = m_impl->clock_query("nvmlDeviceGetDefaultApplicationsClock", index, clock);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}
std::optional<int> Nvml::current_clock_mhz(int index, NvmlClock clock) const {
  auto v = m_impl->clock_query("nvmlDeviceGetClockInfo", index, clock);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

std::optional<double> Nvml::power_limit_w(int index) const {
  auto v = m_impl->uint_query("nvmlDeviceGetEnforcedPowerLimit", index);  // milliwatts
  return v ? std::optional<double>(*v / 1000.0) : configured_power_limit_w(index);
}
std::optional<double> Nvml::configured_power_limit_w(int index) const {
  auto v = m_impl->uint_query("nvmlDeviceGetPowerManagementLimit", index);  // milliwatts
  return v ? std::optional<double>(*v / 1000.0) : std::nullopt;
}
std::optional<int> Nvml::app_clock_mhz(int index, NvmlClock clock) const {
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, int, int, unsigned*)>("nvmlDeviceGetClock");
  nvmlDevice_t dev = m_impl->handle(index);
  unsigned mhz = 0;
  if (f && dev && f(dev, static_cast<int>(clock), k_clock_id_app_clock_target, &mhz) == k_success &&
      mhz > 0) {
    return static_cast<int>(mhz);
  }
  auto v = m_impl->clock_query("nvmlDeviceGetApplicationsClock", index, clock);
  return v && *v > 0 ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

std::optional<std::pair<int, int>> Nvml::pstate_clock_range_mhz(int index, NvmlClock clock,
                                                                int pstate) const {
  // nvmlDeviceGetMinMaxClockOfPState(device, nvmlClockType_t, nvmlPstates_t,
  //                                  unsigned int* minClockMHz, unsigned int* maxClockMHz)
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, int, int, unsigned*, unsigned*)>(
      "nvmlDeviceGetMinMaxClockOfPState");
  nvmlDevice_t dev = m_impl->handle(index);
  unsigned lo = 0, hi = 0;
  if (!f || !dev || f(dev, static_cast<int>(clock), pstate, &lo, &hi) != k_success || hi == 0) {
    return std::nullopt;
  }
  return std::make_pair(static_cast<int>(lo), static_cast<int>(hi));
}

std::optional<double> Nvml::power_instant_w(int index) const {
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, int, nvmlFieldValue_t*)>(
      "nvmlDeviceGetFieldValues");
  nvmlDevice_t dev = m_impl->handle(index);
  if (!f || !dev) return std::nullopt;
  nvmlFieldValue_t field{};
  field.fieldId = k_fi_dev_power_instant;
  if (f(dev, 1, &field) != k_success || field.nvmlReturn != k_success) return std::nullopt;
  const auto mw = field_number(field);
  return mw ? std::optional<double>(*mw / 1000.0) : std::nullopt;
}

std::optional<double> Nvml::power_usage_w(int index) const {
  auto v = m_impl->uint_query("nvmlDeviceGetPowerUsage", index);  // milliwatts
  return v ? std::optional<double>(*v / 1000.0) : std::nullopt;
}

std::optional<int> Nvml::temperature_c(int index) const {
  nvmlDevice_t dev = m_impl->handle(index);
  if (!dev) return std::nullopt;
  if (auto v = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, nvmlTemperature_v1_t*)>(
          "nvmlDeviceGetTemperatureV")) {
    nvmlTemperature_v1_t t{k_temperature_v1, 0 /* NVML_TEMPERATURE_GPU */, 0};
    if (v(dev, &t) == k_success) return t.temperature;
  }
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*)>("nvmlDeviceGetTemperature");
  unsigned t = 0;
  if (!f || !dev || f(dev, 0 /* NVML_TEMPERATURE_GPU */, &t) != k_success) return std::nullopt;
  return static_cast<int>(t);
}

std::optional<int> Nvml::utilization_gpu_pct(int index) const {
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*)>(
      "nvmlDeviceGetUtilizationRates");
  nvmlDevice_t dev = m_impl->handle(index);
  nvmlUtilization_t u{};
  if (!f || !dev || f(dev, &u) != k_success) return std::nullopt;
  return static_cast<int>(u.gpu);
}

std::optional<bool> Nvml::ecc_enabled(int index) const {
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, int*, int*)>("nvmlDeviceGetEccMode");
  nvmlDevice_t dev = m_impl->handle(index);
  int current = 0, pending = 0;
  if (!f || !dev || f(dev, &current, &pending) != k_success) return std::nullopt;
  return current != 0;
}

std::optional<int> Nvml::pcie_gen(int index) const {
  auto v = m_impl->uint_query("nvmlDeviceGetCurrPcieLinkGeneration", index);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}
std::optional<int> Nvml::pcie_width(int index) const {
  auto v = m_impl->uint_query("nvmlDeviceGetCurrPcieLinkWidth", index);
  return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
}

std::optional<std::string> Nvml::compute_capability(int index) const {
  auto f =
      m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, int*, int*)>("nvmlDeviceGetCudaComputeCapability");
  nvmlDevice_t dev = m_impl->handle(index);
  int major = 0, minor = 0;
  if (!f || !dev || f(dev, &major, &minor) != k_success) return std::nullopt;
  return std::to_string(major) + "." + std::to_string(minor);
}

std::optional<uint64_t> Nvml::throttle_reasons(int index) const {
  // The "ClocksEvent" name replaced "ClocksThrottle" in newer drivers; same bits.
  using Fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);
  auto f = m_impl->fn<Fn>("nvmlDeviceGetCurrentClocksEventReasons");
  if (!f) f = m_impl->fn<Fn>("nvmlDeviceGetCurrentClocksThrottleReasons");
  nvmlDevice_t dev = m_impl->handle(index);
  unsigned long long bits = 0;
  if (!f || !dev || f(dev, &bits) != k_success) return std::nullopt;
  return static_cast<uint64_t>(bits);
}

std::optional<NvmlUtilization> Nvml::utilization(int index) const {
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*)>(
      "nvmlDeviceGetUtilizationRates");
  nvmlDevice_t dev = m_impl->handle(index);
  nvmlUtilization_t u{};
  if (!f || !dev || f(dev, &u) != k_success) return std::nullopt;
  return NvmlUtilization{static_cast<int>(u.gpu), static_cast<int>(u.memory)};
}

std::optional<int64_t> Nvml::ecc_volatile_errors(int index, NvmlEccError type) const {
  // nvmlDeviceGetTotalEccErrors(device, nvmlMemoryErrorType_t, nvmlEccCounterType_t, ull*)
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, int, int, unsigned long long*)>(
      "nvmlDeviceGetTotalEccErrors");
  nvmlDevice_t dev = m_impl->handle(index);
  unsigned long long count = 0;
  if (!f || !dev || f(dev, static_cast<int>(type), k_volatile_ecc, &count) != k_success) {
    return std::nullopt;
  }
  return static_cast<int64_t>(count);
}

std::optional<int64_t> Nvml::retired_pages(int index) const {
  // nvmlDeviceGetRetiredPages(device, cause, unsigned* pageCount, ull* addresses): pageCount 0
  // asks for the count only (SUCCESS when none, INSUFFICIENT_SIZE with the count otherwise).
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*, unsigned long long*)>(
      "nvmlDeviceGetRetiredPages");
  nvmlDevice_t dev = m_impl->handle(index);
  if (!f || !dev) return std::nullopt;
  int64_t total = 0;
  for (const int cause : k_retirement_causes) {
    unsigned count = 0;
    nvmlReturn_t rc = f(dev, cause, &count, nullptr);
    if (rc == k_error_invalid_argument) {
      // Drivers that insist on a buffer: give one large enough for any real GPU's page list.
      std::vector<unsigned long long> addresses(4096);
      count = static_cast<unsigned>(addresses.size());
      rc = f(dev, cause, &count, addresses.data());
    }
    if (rc != k_success && rc != k_error_insufficient_size) return std::nullopt;
    total += count;
  }
  return total;
}

std::optional<Nvml::RemappedRows> Nvml::remapped_rows(int index) const {
  // nvmlDeviceGetRemappedRows(device, unsigned* corrRows, unsigned* uncRows,
  //                           unsigned* isPending, unsigned* failureOccurred)
  auto f = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, unsigned*, unsigned*, unsigned*, unsigned*)>(
      "nvmlDeviceGetRemappedRows");
  nvmlDevice_t dev = m_impl->handle(index);
  unsigned corrected = 0, uncorrected = 0, pending = 0, failed = 0;
  if (!f || !dev || f(dev, &corrected, &uncorrected, &pending, &failed) != k_success) {
    return std::nullopt;
  }
  return RemappedRows{static_cast<int64_t>(corrected) + uncorrected, pending != 0, failed != 0};
}

std::optional<int64_t> Nvml::pcie_replay_counter(int index) const {
  auto v = m_impl->uint_query("nvmlDeviceGetPcieReplayCounter", index);
  return v ? std::optional<int64_t>(*v) : std::nullopt;
}

int Nvml::device_status(int index) const {
  if (!m_impl->initialised) return -1;
  auto get = m_impl->fn<nvmlReturn_t (*)(unsigned, nvmlDevice_t*)>("nvmlDeviceGetHandleByIndex_v2");
  if (!get) return k_nvml_error_function_not_found;
  nvmlDevice_t dev = nullptr;
  if (const nvmlReturn_t rc = get(static_cast<unsigned>(index), &dev); rc != k_success) return rc;
  // The handle can outlive the GPU: a query that reaches the device says whether it still answers.
  auto clock = m_impl->fn<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*)>("nvmlDeviceGetClockInfo");
  unsigned mhz = 0;
  const nvmlReturn_t rc = clock ? clock(dev, static_cast<int>(NvmlClock::sm), &mhz) : k_success;
  return rc == k_nvml_error_gpu_is_lost ? rc : k_success;
}

void* Nvml::symbol(const char* name) const {
  if (!m_impl->initialised) return nullptr;
  if (auto it = m_impl->symbols.find(name); it != m_impl->symbols.end()) return it->second;
  return dlsym(m_impl->lib, name);
}
void* Nvml::device_handle(int index) const {
  return m_impl->handle(index);
}

}  // namespace gpubench::harness
