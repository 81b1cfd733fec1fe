// GPU telemetry while suites run (DESIGN.md "telemetry sampler"; METHODOLOGY rule 5).
//
// A TelemetrySampler samples every GPU of a TelemetrySource on a background thread at a steady
// rate (steady-clock schedule: tick k is due at start + k * interval, so slow reads never make
// the schedule drift; ticks missed while a read was slow are skipped, not bunched up). One sample
// of every GPU is taken at start() and one at stop(), so even a suite shorter than the interval
// has samples. Error counters (ECC, retired pages, PCIe replays) are read in the first and the
// final sample and at most once per k_counter_period in between; other samples leave them
// unknown. The runner starts one around each suite's child process and stores the rows linked to
// that suite run.
//
// The real source wraps Nvml; tests use a fake source (tests/harness/test_telemetry.cpp).
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "harness/probe/nvml.hpp"
#include "results/model.hpp"

namespace gpubench::harness {

// Where samples come from. read() is called from the sampler's thread only, never concurrently.
class TelemetrySource {
 public:
  virtual ~TelemetrySource() = default;
  virtual int device_count() = 0;
  // One reading of GPU `index`; the sampler fills nvml_index and t_s. `with_counters`: also
  // read the error counters (ECC, retired pages / remapped rows, PCIe replays), which change
  // rarely and are slower to read; otherwise leave them nullopt.
  virtual results::TelemetrySample read(int index, bool with_counters) = 0;
};

// NVML readings: SM/memory clocks, temperature, power, utilisation, throttle reasons, volatile
// ECC counts, retired pages (or remapped rows on Ampere+), PCIe replays. Borrows `nvml`, which
// must outlive it.
class NvmlTelemetrySource final : public TelemetrySource {
 public:
  explicit NvmlTelemetrySource(const Nvml& nvml) : m_nvml(nvml) {}
  int device_count() override;
  results::TelemetrySample read(int index, bool with_counters) override;

 private:
  const Nvml& m_nvml;
};

inline constexpr int k_default_telemetry_interval_ms = 100;  // 10 Hz
inline constexpr std::chrono::milliseconds k_counter_period{1000};

// GPUBENCH_TELEMETRY_INTERVAL_MS: unset or empty = 100; 0 disables telemetry. Anything else that
// is not a whole number of milliseconds in 0..3600000 throws Error(bad_input).
int telemetry_interval_ms_from_env();

// Why telemetry cannot run with this NVML, or nullopt when it can ("libnvidia-ml.so.1 not found
// (no NVIDIA driver)", "NVML reports no GPUs").
std::optional<std::string> telemetry_unavailable_reason(const Nvml& nvml);

class TelemetrySampler {
 public:
  // `run_start` is the steady-clock time t_s counts from. `source` must outlive the sampler.
  TelemetrySampler(TelemetrySource& source, std::chrono::milliseconds interval,
                   std::chrono::steady_clock::time_point run_start);
  ~TelemetrySampler();  // stops the thread if still running; its rows are dropped
  TelemetrySampler(const TelemetrySampler&) = delete;
  TelemetrySampler& operator=(const TelemetrySampler&) = delete;

  // Starts the background thread (which takes the first sample at once). Not re-entrant: call
  // stop() before starting again.
  void start();
  // Wakes the thread (no waiting out the interval), lets it take one last sample of every GPU,
  // joins it and returns every sample since start(), in the order taken. Empty if not started.
  std::vector<results::TelemetrySample> stop();

 private:
  void loop();
  void sample_all(bool final_sample);

  TelemetrySource& m_source;
  std::chrono::milliseconds m_interval;
  std::chrono::steady_clock::time_point m_run_start;
  int m_devices = 0;
  std::optional<std::chrono::steady_clock::time_point> m_last_counters;  // sampler thread only
  std::thread m_thread;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;                           // guarded by m_mutex
  std::vector<results::TelemetrySample> m_rows;  // written by the thread; read after join
};

// What a list of samples says, for progress lines.
struct TelemetryCounts {
  int64_t samples = 0;
  // Samples with a thermal reason, a power brake or a sustained HW slowdown set (invalid); a
  // transient HW slowdown (util/sample_state.hpp) is not counted.
  int64_t throttled = 0;
  int64_t power_limited = 0;  // samples with a power cap / board limit / reliability reason
};
TelemetryCounts count_telemetry(const std::vector<results::TelemetrySample>& rows);

}  // namespace gpubench::harness
