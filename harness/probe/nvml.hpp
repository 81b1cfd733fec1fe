// NVML loaded at run time (dlopen "libnvidia-ml.so.1"), so gpubench builds and runs on machines
// without the NVIDIA driver. Only the few functions gpubench uses are declared here (no nvml.h).
//
// Every query returns nullopt / empty when the library, the device or the query is unavailable:
// unknown is a value, not an error. Used by the environment probe and the telemetry sampler.
// Not thread-safe to construct; queries on one Nvml from several threads are safe per NVML.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "util/sample_state.hpp"

namespace gpubench::harness {

struct NvmlPci {
  std::string bus_id;  // "00000000:17:00.0" as NVML writes it
  unsigned domain = 0, bus = 0, device = 0;
};

// Bits of nvmlDeviceGetCurrentClocksEventReasons (formerly ClocksThrottleReasons), and the two
// groups that decide a sample's state: util/sample_state.hpp is the one definition.
namespace throttle = sample_state::reasons;

enum class NvmlClock { graphics = 0, sm = 1, memory = 2 };

// nvmlReturn_t codes callers tell apart (nvml.h).
inline constexpr int k_nvml_success = 0;
inline constexpr int k_nvml_error_not_supported = 3;
inline constexpr int k_nvml_error_function_not_found = 13;
inline constexpr int k_nvml_error_gpu_is_lost = 15;
inline constexpr int k_nvml_error_argument_version_mismatch = 25;
// nvmlMemoryErrorType_t: corrected = single-bit, uncorrected = double-bit for ECC.
enum class NvmlEccError { corrected = 0, uncorrected = 1 };

// nvmlUtilization_t: percent of the last sample period (1/6 s to 1 s, per product).
struct NvmlUtilization {
  int gpu_pct = 0;     // a kernel was executing
  int memory_pct = 0;  // device memory was being read or written
};

class Nvml {
 public:
  // Loads the library and calls nvmlInit_v2. Never throws; check available()/reason().
  Nvml();
  ~Nvml();  // nvmlShutdown + dlclose
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool available() const;
  const std::string& reason() const;  // why not available ("libnvidia-ml.so.1 not found")

  // System.
  int device_count() const;                                // 0 when unavailable
  std::optional<std::string> driver_version() const;       // "560.35.03"
  std::optional<std::string> cuda_driver_version() const;  // "12.6"

  // Per device index (NVML order = PCI bus order).
  std::optional<std::string> name(int index) const;
  std::optional<std::string> uuid(int index) const;
  std::optional<NvmlPci> pci(int index) const;
  std::optional<int64_t> memory_total_bytes(int index) const;
  std::optional<int> max_clock_mhz(int index, NvmlClock clock) const;
  // The default application clock (deprecated like app_clock_mhz, same fallback), MHz.
  std::optional<int> default_app_clock_mhz(int index, NvmlClock clock) const;
  std::optional<int> current_clock_mhz(int index, NvmlClock clock) const;
  // The power limit the driver enforces after every limiter (nvmlDeviceGetEnforcedPowerLimit:
  // the configured limit, an out-of-band or chassis cap), falling back to the configured one.
  std::optional<double> power_limit_w(int index) const;
  // The limit set on the GPU (nvmlDeviceGetPowerManagementLimit, nvidia-smi -pl).
  std::optional<double> configured_power_limit_w(int index) const;
  std::optional<double> power_usage_w(int index) const;
  // nvmlDeviceGetTemperatureV (GPU die sensor), falling back to the deprecated
  // nvmlDeviceGetTemperature on drivers without it.
  std::optional<int> temperature_c(int index) const;
  std::optional<int> utilization_gpu_pct(int index) const;
  std::optional<bool> ecc_enabled(int index) const;
  std::optional<int> pcie_gen(int index) const;
  std::optional<int> pcie_width(int index) const;
  std::optional<std::string> compute_capability(int index) const;  // "9.0"
  // nvmlDeviceGetCurrentClocksEventReasons, falling back to the deprecated
  // nvmlDeviceGetCurrentClocksThrottleReasons on drivers without it (same bits).
  std::optional<uint64_t> throttle_reasons(int index) const;  // throttle:: bits
  // The application clock target: nvmlDeviceGetClock(APP_CLOCK_TARGET), falling back to
  // nvmlDeviceGetApplicationsClock. MHz. Both are deprecated in CUDA 13 ("do not use"; removed in
  // 14) and current drivers may not answer: read only to show an application-clock lock where a
  // driver still reports one (clock_lock.hpp), never as the clock a GPU is expected to run at.
  std::optional<int> app_clock_mhz(int index, NvmlClock clock) const;
  // The clock range a P-state allows (nvmlDeviceGetMinMaxClockOfPState, not deprecated), MHz:
  // {min, max}. `pstate` is nvmlPstates_t (0 = P0, maximum performance).
  std::optional<std::pair<int, int>> pstate_clock_range_mhz(int index, NvmlClock clock,
                                                            int pstate = 0) const;
  // Board power right now (NVML_FI_DEV_POWER_INSTANT through nvmlDeviceGetFieldValues). nvml.h
  // (nvmlDeviceGetPowerUsage): power_usage_w is a 1-second average on Ampere except GA100 and
  // newer, and instantaneous on GA100 and older.
  std::optional<double> power_instant_w(int index) const;

  // Telemetry counters (harness/probe/telemetry.hpp). All nullopt where the GPU or driver lacks
  // them.
  std::optional<NvmlUtilization> utilization(int index) const;
  // Volatile ECC error count since the driver loaded (needs ECC on).
  std::optional<int64_t> ecc_volatile_errors(int index, NvmlEccError type) const;
  // Pages retired for either cause, pending ones included (pre-Ampere; NOT_SUPPORTED after).
  std::optional<int64_t> retired_pages(int index) const;
  // nvmlDeviceGetRemappedRows (Ampere and newer): rows remapped for correctable + uncorrectable
  // errors, a remap pending until the next GPU reset, and a failed remap.
  struct RemappedRows {
    int64_t rows = 0;
    bool pending = false;
    bool failure = false;
  };
  std::optional<RemappedRows> remapped_rows(int index) const;
  std::optional<int64_t> pcie_replay_counter(int index) const;

  // Whether GPU `index` answers at all: k_nvml_success, or the NVML error of getting its handle
  // or reading its SM clock (k_nvml_error_gpu_is_lost when it fell off the bus). -1 when NVML
  // is not available.
  int device_status(int index) const;

  // For modules that call NVML functions not wrapped here (harness/doctor/doctor_nvml.cpp): the
  // named symbol and a device handle (nvmlDevice_t), each nullptr when unavailable.
  void* symbol(const char* name) const;
  void* device_handle(int index) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace gpubench::harness
