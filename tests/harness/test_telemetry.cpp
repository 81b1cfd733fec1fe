// The telemetry sampler with a TEST FAKE source (made-up readings, no NVML), throttle
// classification, the interval setting, NVML without a driver, and a run with the fake source
// storing telemetry under its suite run.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "harness/probe/nvml.hpp"
#include "harness/probe/telemetry.hpp"
#include "harness/run/runner.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::harness {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// TEST FAKE: answers like NVML with fixed, made-up readings. GPU i reports SM clock 1000 + i MHz;
// `reasons` is the throttle mask every GPU reports; `read_delay` simulates a slow driver.
class FakeSource final : public TelemetrySource {
 public:
  explicit FakeSource(int devices, int64_t reasons = throttle::gpu_idle,
                      std::chrono::milliseconds read_delay = 0ms)
      : m_devices(devices), m_reasons(reasons), m_delay(read_delay) {}
  int device_count() override { return m_devices; }
  results::TelemetrySample read(int index, bool with_counters) override {
    if (m_delay.count() > 0) std::this_thread::sleep_for(m_delay);
    ++reads;
    results::TelemetrySample t;
    t.nvml_index = -7;    // the sampler must overwrite it
    t.t_s = -1;           // and this
    t.sm_clock_mhz = 1000.0 + index;
    t.mem_clock_mhz = 2619.0;
    t.temperature_c = 40.0 + index;
    t.power_w = 100.0 + index;
    t.util_gpu_pct = 99;
    t.util_mem_pct = 50;
    t.throttle_reasons = m_reasons.load();
    if (!with_counters) return t;
    t.ecc_sbe = 0;
    t.ecc_dbe = 0;
    t.retired_pages = 0;
    t.pcie_replay_counter = 3;
    return t;
  }
  void set_reasons(int64_t r) { m_reasons = r; }
  std::atomic<int> reads{0};

 private:
  int m_devices;
  std::atomic<int64_t> m_reasons;
  std::chrono::milliseconds m_delay;
};

std::vector<results::TelemetrySample> of_device(const std::vector<results::TelemetrySample>& rows,
                                                int device) {
  std::vector<results::TelemetrySample> out;
  for (const auto& r : rows) {
    if (r.nvml_index == device) out.push_back(r);
  }
  return out;
}

TEST(TelemetrySampler, SamplesEveryGpuAtRoughlyTheRequestedRate) {
  FakeSource source(2);
  TelemetrySampler sampler(source, 20ms, Clock::now());
  sampler.start();
  std::this_thread::sleep_for(600ms);
  const auto rows = sampler.stop();
  for (int d = 0; d < 2; ++d) {
    const auto dev = of_device(rows, d);
    // 600 ms / 20 ms = 30 ticks + the first and the final sample; a loaded 2-core machine may
    // lose a few ticks (skipped, never bunched), so accept a band around 32.
    EXPECT_GE(dev.size(), 20u) << "device " << d;
    EXPECT_LE(dev.size(), 34u) << "device " << d;
    // Median spacing near the interval: the schedule neither drifts nor bursts.
    std::vector<double> gaps;
    for (std::size_t i = 1; i + 1 < dev.size(); ++i) gaps.push_back(dev[i].t_s - dev[i - 1].t_s);
    ASSERT_FALSE(gaps.empty());
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    const double median_gap = gaps[gaps.size() / 2];
    EXPECT_GT(median_gap, 0.015);
    EXPECT_LT(median_gap, 0.030);
  }
  EXPECT_EQ(rows.size(), static_cast<std::size_t>(source.reads.load()));
}

TEST(TelemetrySampler, RowsAreCompleteAndStamped) {
  FakeSource source(3);
  const auto run_start = Clock::now() - 2s;  // the run began before this suite
  TelemetrySampler sampler(source, 10ms, run_start);
  sampler.start();
  std::this_thread::sleep_for(50ms);
  const auto rows = sampler.stop();
  ASSERT_GE(rows.size(), 6u);  // at least the first and the final sample of 3 GPUs
  double last_t[3] = {0, 0, 0};
  for (const auto& r : rows) {
    ASSERT_GE(r.nvml_index, 0);
    ASSERT_LT(r.nvml_index, 3);
    EXPECT_GE(r.t_s, 2.0);  // seconds since the run started, not since start()
    EXPECT_LT(r.t_s, 10.0);
    EXPECT_GE(r.t_s, last_t[r.nvml_index]);  // in time order per GPU
    last_t[r.nvml_index] = r.t_s;
    EXPECT_EQ(r.sm_clock_mhz, 1000.0 + r.nvml_index);
    EXPECT_EQ(r.temperature_c, 40.0 + r.nvml_index);
    EXPECT_EQ(r.power_w, 100.0 + r.nvml_index);
    EXPECT_EQ(r.mem_clock_mhz, 2619.0);
    EXPECT_EQ(r.util_gpu_pct, 99.0);
    EXPECT_EQ(r.util_mem_pct, 50.0);
    EXPECT_EQ(r.throttle_reasons, static_cast<int64_t>(throttle::gpu_idle));
    if (r.pcie_replay_counter) {
      EXPECT_EQ(r.ecc_sbe, 0);
      EXPECT_EQ(r.ecc_dbe, 0);
      EXPECT_EQ(r.retired_pages, 0);
      EXPECT_EQ(r.pcie_replay_counter, 3);
    }
  }
  // Error counters: in the first and the final sample of every GPU, not in between (< 1 s here).
  for (int d = 0; d < 3; ++d) {
    const auto dev = of_device(rows, d);
    ASSERT_GE(dev.size(), 2u);
    EXPECT_TRUE(dev.front().ecc_sbe && dev.front().pcie_replay_counter) << d;
    EXPECT_TRUE(dev.back().ecc_sbe && dev.back().pcie_replay_counter) << d;
    for (std::size_t i = 1; i + 1 < dev.size(); ++i) EXPECT_FALSE(dev[i].ecc_sbe) << d << " " << i;
  }
}

TEST(TelemetrySampler, ReadsErrorCountersAboutOncePerSecond) {
  FakeSource source(1);
  TelemetrySampler sampler(source, 50ms, Clock::now());
  sampler.start();
  std::this_thread::sleep_for(2300ms);
  const auto rows = sampler.stop();
  int with_counters = 0;
  for (const auto& r : rows) with_counters += r.ecc_sbe.has_value();
  // t = 0, ~1 s, ~2 s and the final sample.
  EXPECT_GE(with_counters, 3);
  EXPECT_LE(with_counters, 4);
  EXPECT_GE(rows.size(), 30u);
}

TEST(TelemetrySampler, StopIsPromptWithALongInterval) {
  FakeSource source(1);
  TelemetrySampler sampler(source, 10s, Clock::now());
  sampler.start();
  std::this_thread::sleep_for(30ms);
  const auto t0 = Clock::now();
  const auto rows = sampler.stop();
  const double stop_s = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_LT(stop_s, 0.5);      // not the 10 s interval
  EXPECT_EQ(rows.size(), 2u);  // the first sample and the final one
}

TEST(TelemetrySampler, SlowReadsSkipTicksInsteadOfBunching) {
  FakeSource source(1, throttle::gpu_idle, 35ms);  // each read takes longer than the interval
  TelemetrySampler sampler(source, 20ms, Clock::now());
  sampler.start();
  std::this_thread::sleep_for(400ms);
  const auto rows = sampler.stop();
  // At most one read per 35 ms, plus the final one: a catch-up burst would exceed this.
  EXPECT_LE(rows.size(), 400u / 35u + 2u);
  EXPECT_GE(rows.size(), 5u);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_GE(rows[i].t_s - rows[i - 1].t_s, 0.030) << i;
  }
}

TEST(TelemetrySampler, RestartsAndStopWithoutStartIsEmpty) {
  FakeSource source(1);
  TelemetrySampler sampler(source, 5ms, Clock::now());
  EXPECT_TRUE(sampler.stop().empty());
  sampler.start();
  const auto first = sampler.stop();
  sampler.start();
  const auto second = sampler.stop();
  EXPECT_GE(first.size(), 2u);
  EXPECT_GE(second.size(), 2u);
  EXPECT_GT(second.front().t_s, first.back().t_s - 1e-9);
}

TEST(TelemetryClassification, SlowdownsAreInvalidAndThePowerCapIsOnlyPowerLimited) {
  using results::is_power_limited;
  using results::is_slowdown;
  for (int64_t benign : {int64_t{0}, throttle::gpu_idle, throttle::applications_clocks_setting,
                         throttle::sync_boost, throttle::display_clock_setting,
                         throttle::gpu_idle | throttle::applications_clocks_setting}) {
    EXPECT_FALSE(is_slowdown(benign)) << benign;
    EXPECT_FALSE(is_power_limited(benign)) << benign;
  }
  // H100/H200/B200 run sustained GEMMs at their power limit: informational, never invalid.
  EXPECT_FALSE(is_slowdown(throttle::sw_power_cap));
  // The board limit (0x200) and reliability (0x400) policies are the same operating envelope
  // (CUDA 13 nvml.h): power-limited, not invalid, and not ignored.
  for (int64_t envelope :
       {throttle::board_limit, throttle::reliability, throttle::gpu_idle | throttle::reliability}) {
    EXPECT_TRUE(is_power_limited(envelope)) << envelope;
    EXPECT_FALSE(is_slowdown(envelope)) << envelope;
  }
  EXPECT_EQ(throttle::board_limit, 0x200);
  EXPECT_EQ(throttle::reliability, 0x400);
  EXPECT_FALSE(is_slowdown(throttle::gpu_idle | throttle::sw_power_cap));
  EXPECT_TRUE(is_power_limited(throttle::sw_power_cap));
  EXPECT_TRUE(is_slowdown(throttle::hw_slowdown));
  EXPECT_TRUE(is_slowdown(throttle::sw_thermal_slowdown));
  EXPECT_TRUE(is_slowdown(throttle::hw_thermal_slowdown));
  EXPECT_TRUE(is_slowdown(throttle::hw_power_brake_slowdown));
  EXPECT_TRUE(is_slowdown(throttle::sw_power_cap | throttle::hw_slowdown));

  FakeSource source(2, throttle::sw_thermal_slowdown);
  TelemetrySampler sampler(source, 5ms, Clock::now());
  sampler.start();
  const auto rows = sampler.stop();
  const TelemetryCounts c = count_telemetry(rows);
  EXPECT_EQ(c.samples, static_cast<int64_t>(rows.size()));
  EXPECT_EQ(c.throttled, c.samples);

  std::vector<results::TelemetrySample> mixed(3);
  mixed[0].throttle_reasons = throttle::gpu_idle;
  mixed[1].throttle_reasons = throttle::hw_power_brake_slowdown;
  // mixed[2]: reasons unreadable -> not counted as throttled
  const TelemetryCounts m = count_telemetry(mixed);
  EXPECT_EQ(m.samples, 3);
  EXPECT_EQ(m.throttled, 1);
  EXPECT_EQ(m.power_limited, 0);
  mixed[2].throttle_reasons = throttle::sw_power_cap;
  EXPECT_EQ(count_telemetry(mixed).power_limited, 1);
  EXPECT_EQ(count_telemetry(mixed).throttled, 1);

  // HW slowdown: one reading on GPU 0 during a clock change is not counted; GPU 1 holds it for
  // 0.3 s (four readings at 10 Hz) and all four count. Rows of the two GPUs interleave.
  std::vector<results::TelemetrySample> hw;
  for (int k = 0; k < 4; ++k) {
    for (int gpu : {0, 1}) {
      results::TelemetrySample s;
      s.nvml_index = gpu;
      s.t_s = 0.1 * k;
      s.throttle_reasons = gpu == 1 || k == 2 ? throttle::hw_slowdown : 0;
      hw.push_back(s);
    }
  }
  EXPECT_EQ(count_telemetry(hw).throttled, 4);
}

class EnvVar {
 public:
  EnvVar(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~EnvVar() {
    if (m_old) {
      setenv(m_name, m_old->c_str(), 1);
    } else {
      unsetenv(m_name);
    }
  }

 private:
  const char* m_name;
  std::optional<std::string> m_old;
};

TEST(TelemetryInterval, ReadsTheEnvironment) {
  const char* key = "GPUBENCH_TELEMETRY_INTERVAL_MS";
  {
    EnvVar v(key, nullptr);
    EXPECT_EQ(telemetry_interval_ms_from_env(), k_default_telemetry_interval_ms);
  }
  {
    EnvVar v(key, "250");
    EXPECT_EQ(telemetry_interval_ms_from_env(), 250);
  }
  {
    EnvVar v(key, "0");
    EXPECT_EQ(telemetry_interval_ms_from_env(), 0);
  }
  for (const char* bad : {"fast", "-5", "1.5", "99999999"}) {
    EnvVar v(key, bad);
    try {
      telemetry_interval_ms_from_env();
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::bad_input);
      EXPECT_NE(std::string(e.what()).find("GPUBENCH_TELEMETRY_INTERVAL_MS"), std::string::npos);
    }
  }
}

TEST(TelemetryNvml, UnavailableNvmlSaysWhyAndQueriesAreEmpty) {
  Nvml nvml;
  const auto reason = telemetry_unavailable_reason(nvml);
  if (nvml.available() && nvml.device_count() > 0) {
    EXPECT_FALSE(reason.has_value());
    NvmlTelemetrySource source(nvml);
    const results::TelemetrySample t = source.read(0, true);
    EXPECT_TRUE(t.sm_clock_mhz.has_value());  // every NVML GPU reports its SM clock
    return;
  }
  ASSERT_TRUE(reason.has_value());
  EXPECT_FALSE(reason->empty());
  EXPECT_FALSE(nvml.utilization(0));
  EXPECT_FALSE(nvml.ecc_volatile_errors(0, NvmlEccError::corrected));
  EXPECT_FALSE(nvml.retired_pages(0));
  EXPECT_FALSE(nvml.remapped_rows(0));
  EXPECT_FALSE(nvml.pcie_replay_counter(0));
  EXPECT_FALSE(nvml.utilization(-1));
}

// A run of the e2e FIXTURE suite (a shell script with made-up numbers) sampled by the fake source.
class TelemetryRun : public ::testing::Test {
 protected:
  TempDir m_dir{"gpubench-test-telemetry"};
  SuiteExecutable fixture_suite() {
    const fs::path src = fs::path(GPUBENCH_SOURCE_DIR) / "tests/e2e/fixtures/gpubench-fixture_ok";
    const fs::path dst = m_dir.path() / "gpubench-fixture_ok";
    fs::copy_file(src, dst, fs::copy_options::overwrite_existing);
    chmod(dst.c_str(), 0755);
    return {"fixture_ok", dst};
  }
  RunOptions options(std::shared_ptr<TelemetrySource> source) {
    RunOptions o;
    o.suites = {fixture_suite()};
    o.suite_options.repetitions = 3;
    o.suite_options.min_time_s = 0.01;
    o.suite_options.timeout_s = 60;
    o.telemetry_interval_ms = 10;
    o.telemetry_source = std::move(source);
    return o;
  }
};

TEST_F(TelemetryRun, StoresSamplesUnderTheSuiteRunAndFlagsThrottling) {
  results::Store store =
      results::Store::open(m_dir.path() / "t.db", results::OpenMode::read_write_create);
  auto source = std::make_shared<FakeSource>(
      2, throttle::gpu_idle | throttle::sw_power_cap | throttle::hw_thermal_slowdown);
  const RunOutcome out = execute_run(store, options(source), nullptr);
  ASSERT_EQ(out.suites.size(), 1u);
  EXPECT_TRUE(out.telemetry_active);
  EXPECT_EQ(out.telemetry, "sampled every 10 ms on 2 GPUs");
  const SuiteOutcome& s = out.suites[0];
  EXPECT_GE(s.telemetry_samples, 4);  // first and final sample of both GPUs at least
  EXPECT_EQ(s.telemetry_throttled, s.telemetry_samples);
  EXPECT_EQ(s.telemetry_power_limited, s.telemetry_samples);
  // The suites ran with PCI bus ordering, and the run records it.
  EXPECT_EQ(store.get_run(out.run_id).info.config.env.at("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");

  const auto stored = store.get_telemetry(out.run_id, s.suite_run_id);
  EXPECT_EQ(static_cast<int64_t>(stored.size()), s.telemetry_samples);
  const auto summary = store.get_telemetry_summary(out.run_id);
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_EQ(summary[1].min_sm_clock_mhz, 1001.0);
  EXPECT_EQ(summary[0].throttled_suites, std::vector<std::string>{"fixture_ok"});

  const auto results = store.get_results(out.run_id);
  ASSERT_FALSE(results.empty());
  for (const auto& r : results) {
    ASSERT_TRUE(r.telemetry_throttled.has_value()) << r.benchmark << " " << r.metric;
    EXPECT_TRUE(*r.telemetry_throttled);
  }
  const auto env = store.get_run(out.run_id).info.config.env;
  EXPECT_EQ(env.count(k_telemetry_env_key), 0u);
}

TEST_F(TelemetryRun, IdleGpusAreNotThrottledAndDisabledTelemetryIsRecorded) {
  results::Store store =
      results::Store::open(m_dir.path() / "t.db", results::OpenMode::read_write_create);
  auto idle = std::make_shared<FakeSource>(1, throttle::gpu_idle);
  const RunOutcome a = execute_run(store, options(idle), nullptr);
  for (const auto& r : store.get_results(a.run_id)) {
    ASSERT_TRUE(r.telemetry_throttled.has_value());
    EXPECT_FALSE(*r.telemetry_throttled);
  }

  RunOptions off = options(idle);
  off.telemetry_interval_ms = 0;
  const RunOutcome b = execute_run(store, off, nullptr);
  EXPECT_FALSE(b.telemetry_active);
  EXPECT_EQ(b.telemetry.rfind("disabled:", 0), 0u) << b.telemetry;
  EXPECT_EQ(b.suites[0].telemetry_samples, 0);
  EXPECT_TRUE(store.get_telemetry(b.run_id).empty());
  const auto env = store.get_run(b.run_id).info.config.env;
  ASSERT_EQ(env.count(k_telemetry_env_key), 1u);
  EXPECT_EQ(env.at(k_telemetry_env_key), b.telemetry);
  for (const auto& r : store.get_results(b.run_id)) EXPECT_FALSE(r.telemetry_throttled);
}

}  // namespace
}  // namespace gpubench::harness
