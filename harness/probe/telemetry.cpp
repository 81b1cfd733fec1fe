#include "harness/probe/telemetry.hpp"

#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <map>

#include "util/error.hpp"
#include "util/sample_state.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

namespace {

template <typename T>
std::optional<double> as_double(const std::optional<T>& v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

}  // namespace

int NvmlTelemetrySource::device_count() {
  return m_nvml.device_count();
}

results::TelemetrySample NvmlTelemetrySource::read(int index, bool with_counters) {
  results::TelemetrySample t;
  t.nvml_index = index;
  t.sm_clock_mhz = as_double(m_nvml.current_clock_mhz(index, NvmlClock::sm));
  t.mem_clock_mhz = as_double(m_nvml.current_clock_mhz(index, NvmlClock::memory));
  t.temperature_c = as_double(m_nvml.temperature_c(index));
  t.power_w = m_nvml.power_usage_w(index);
  t.power_instant_w = m_nvml.power_instant_w(index);
  if (const auto u = m_nvml.utilization(index)) {
    t.util_gpu_pct = u->gpu_pct;
    t.util_mem_pct = u->memory_pct;
  }
  if (const auto r = m_nvml.throttle_reasons(index)) {
    t.throttle_reasons = static_cast<int64_t>(*r);
  }
  if (!with_counters) return t;
  t.ecc_sbe = m_nvml.ecc_volatile_errors(index, NvmlEccError::corrected);
  t.ecc_dbe = m_nvml.ecc_volatile_errors(index, NvmlEccError::uncorrected);
  // Pre-Ampere GPUs retire pages; Ampere and newer remap rows and answer NOT_SUPPORTED there.
  t.retired_pages = m_nvml.retired_pages(index);
  if (const auto rows = m_nvml.remapped_rows(index)) {
    t.remapped_rows = rows->rows;
    t.remap_pending = rows->pending;
    t.remap_failure = rows->failure;
  }
  t.pcie_replay_counter = m_nvml.pcie_replay_counter(index);
  return t;
}

int telemetry_interval_ms_from_env() {
  const char* raw = std::getenv("GPUBENCH_TELEMETRY_INTERVAL_MS");
  if (!raw || std::string(trim(raw)).empty()) return k_default_telemetry_interval_ms;
  const auto v = parse_int(trim(raw));
  if (!v || *v < 0 || *v > 3600000) {
    throw bad_input("GPUBENCH_TELEMETRY_INTERVAL_MS='" + std::string(raw) + "' is not usable",
                    "it must be a whole number of milliseconds from 0 to 3600000",
                    "set it to e.g. 100 (10 samples/s), 0 to switch telemetry off, or unset it");
  }
  return static_cast<int>(*v);
}

std::optional<std::string> telemetry_unavailable_reason(const Nvml& nvml) {
  if (!nvml.available()) return nvml.reason().empty() ? "NVML unavailable" : nvml.reason();
  if (nvml.device_count() <= 0) return std::string("NVML reports no GPUs");
  return std::nullopt;
}

TelemetrySampler::TelemetrySampler(TelemetrySource& source, std::chrono::milliseconds interval,
                                   std::chrono::steady_clock::time_point run_start)
    : m_source(source),
      m_interval(interval.count() > 0 ? interval : std::chrono::milliseconds(1)),
      m_run_start(run_start) {}

TelemetrySampler::~TelemetrySampler() {
  if (m_thread.joinable()) stop();
}

void TelemetrySampler::start() {
  if (m_thread.joinable()) return;
  m_rows.clear();
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = false;
  }
  m_devices = m_source.device_count();
  m_last_counters.reset();  // a new suite's first sample reads the counters
  m_thread = std::thread([this] { loop(); });
}

std::vector<results::TelemetrySample> TelemetrySampler::stop() {
  if (!m_thread.joinable()) return {};
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  m_thread.join();
  return std::move(m_rows);
}

void TelemetrySampler::sample_all(bool final_sample) {
  const auto now = std::chrono::steady_clock::now();
  const bool counters =
      final_sample || !m_last_counters || now - *m_last_counters >= k_counter_period;
  if (counters) m_last_counters = now;
  for (int i = 0; i < m_devices; ++i) {
    results::TelemetrySample t = m_source.read(i, counters);
    t.nvml_index = i;
    // Stamped after the read, so the time is when the values were current (reads take ~ms).
    t.t_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_run_start).count();
    m_rows.push_back(std::move(t));
  }
}

void TelemetrySampler::loop() {
  // SIGINT/SIGTERM belong to the main thread (the runner's interrupt handling).
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, nullptr);

  using clock = std::chrono::steady_clock;
  const clock::time_point first = clock::now();
  int64_t tick = 0;
  sample_all(false);
  std::unique_lock<std::mutex> lock(m_mutex);
  while (!m_stop) {
    // Next tick on the fixed grid; skip ticks a slow read already overran.
    ++tick;
    const clock::time_point now = clock::now();
    const int64_t due_now = (now - first) / m_interval;
    if (due_now >= tick) tick = due_now + 1;
    const clock::time_point next = first + tick * m_interval;
    if (m_wake.wait_until(lock, next, [this] { return m_stop; })) break;
    lock.unlock();
    sample_all(false);
    lock.lock();
  }
  lock.unlock();
  sample_all(true);  // the state at the end of the suite
}

TelemetryCounts count_telemetry(const std::vector<results::TelemetrySample>& rows) {
  TelemetryCounts c;
  // Per GPU in time order, so a transient HW slowdown (util/sample_state.hpp) is not counted.
  std::map<int, std::vector<const results::TelemetrySample*>> by_gpu;
  for (const auto& r : rows) {
    ++c.samples;
    by_gpu[r.nvml_index].push_back(&r);
  }
  for (auto& [index, list] : by_gpu) {
    std::stable_sort(list.begin(), list.end(),
                     [](const auto* a, const auto* b) { return a->t_s < b->t_s; });
    std::vector<sample_state::ReasonReading> readings;
    readings.reserve(list.size());
    for (const auto* r : list) readings.push_back({r->t_s, r->throttle_reasons});
    for (const std::optional<int64_t>& mask :
         sample_state::without_transient_hw_slowdown(readings)) {
      if (!mask) continue;
      if (results::is_slowdown(*mask)) ++c.throttled;
      if (results::is_power_limited(*mask)) ++c.power_limited;
    }
  }
  return c;
}

}  // namespace gpubench::harness
