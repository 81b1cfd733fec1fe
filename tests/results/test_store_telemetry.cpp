// Telemetry in the store: round trip, GPU linking, the per-GPU summary, and the throttled flag
// that get_results derives per (suite run, device). All readings are FIXTURE values.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "helpers.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

using testing::load_fixture;
using testing::sample_run_info;
using testing::sample_suite_run;

constexpr int64_t k_idle = 0x1;       // NVML "GPU idle": not throttling
constexpr int64_t k_power_cap = 0x4;  // NVML "SW power cap": power-limited, not a slowdown
constexpr int64_t k_hw_slowdown = 0x8;  // NVML "HW slowdown": the samples are invalid

// FIXTURE sample: made-up readings of GPU `device` at `t_s`.
TelemetrySample sample(int device, double t_s, int64_t reasons, double sm_clock = 1980) {
  TelemetrySample t;
  t.nvml_index = device;
  t.t_s = t_s;
  t.sm_clock_mhz = sm_clock;
  t.mem_clock_mhz = 2619;
  t.temperature_c = 60 + t_s;
  t.power_w = 500 + 10 * t_s;
  t.util_gpu_pct = 100;
  t.util_mem_pct = 40;
  t.throttle_reasons = reasons;
  t.ecc_sbe = static_cast<int64_t>(t_s);  // grows by 1 per second in the fixture
  t.ecc_dbe = 0;
  t.retired_pages = 2;
  t.pcie_replay_counter = 7;
  return t;
}

class StoreTelemetryTest : public ::testing::Test {
 protected:
  TempDir m_dir{"gpubench-test-store-telemetry"};
  Store open() { return Store::open(m_dir.path() / "gpubench.db", OpenMode::read_write_create); }
  // A finished run of the two-GPU fixture with one ingested suite (results on gpu 0, gpu 1 and
  // the host). Returns (run id, suite run id).
  std::pair<int64_t, int64_t> make_run(Store& store) {
    const int64_t run = store.begin_run(sample_run_info());
    const int64_t sr = store.add_suite_run(run, sample_suite_run());
    store.ingest_benchmark_json(sr, load_fixture("gb171_gpubench_context.json"), "memory");
    store.finish_run(run, RunStatus::complete);
    return {run, sr};
  }
};

TEST_F(StoreTelemetryTest, RoundTripsEveryFieldAndLinksTheGpu) {
  Store store = open();
  const auto [run, sr] = make_run(store);
  TelemetrySample sparse;  // a GPU that answers nothing but its index
  sparse.nvml_index = 1;
  sparse.t_s = 0.5;
  store.add_telemetry(run, sr, {sample(0, 0.0, k_idle), sample(0, 0.1, k_power_cap), sparse});

  const auto rows = store.get_telemetry(run);
  ASSERT_EQ(rows.size(), 3u);
  const TelemetrySample& b = rows[1];
  EXPECT_EQ(b.nvml_index, 0);
  EXPECT_DOUBLE_EQ(b.t_s, 0.1);
  EXPECT_EQ(b.sm_clock_mhz, 1980.0);
  EXPECT_EQ(b.mem_clock_mhz, 2619.0);
  EXPECT_DOUBLE_EQ(*b.temperature_c, 60.1);
  EXPECT_DOUBLE_EQ(*b.power_w, 501.0);
  EXPECT_EQ(b.util_gpu_pct, 100.0);
  EXPECT_EQ(b.util_mem_pct, 40.0);
  EXPECT_EQ(b.throttle_reasons, k_power_cap);
  EXPECT_EQ(b.ecc_sbe, 0);
  EXPECT_EQ(b.ecc_dbe, 0);
  EXPECT_EQ(b.retired_pages, 2);
  EXPECT_EQ(b.pcie_replay_counter, 7);
  const TelemetrySample& c = rows[2];
  EXPECT_EQ(c.nvml_index, 1);
  EXPECT_FALSE(c.sm_clock_mhz || c.temperature_c || c.power_w || c.throttle_reasons || c.ecc_sbe);

  EXPECT_EQ(store.get_telemetry(run, sr).size(), 3u);
  EXPECT_TRUE(store.get_telemetry(run, sr + 1000).empty());

  // Linked to the run's physical GPU of that index.
  Statement st = store.database().prepare(
      "SELECT g.uuid FROM telemetry t JOIN gpu_devices g ON g.id = t.gpu_device_id "
      "WHERE t.device_index = 1");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.column_text(0), sample_run_info().gpus[1].uuid);
}

TEST_F(StoreTelemetryTest, ThrottledFlagFollowsTheDeviceOfEachResult) {
  Store store = open();
  const auto [run, sr] = make_run(store);
  // GPU 0 had a HW slowdown during the suite; GPU 1 ran at its power cap (normal under load,
  // not a slowdown). Results are matched to telemetry by UUID (the fixture labels name them).
  store.add_telemetry(run, sr,
                      {sample(0, 0.0, 0), sample(0, 0.1, k_hw_slowdown | k_idle),
                       sample(1, 0.0, k_power_cap), sample(1, 0.1, k_idle)});
  bool saw[3] = {false, false, false};  // gpu 0, gpu 1, host
  for (const ResultRow& r : store.get_results(run)) {
    ASSERT_TRUE(r.telemetry_throttled.has_value()) << r.benchmark;
    if (!r.device_index) {
      saw[2] = true;
      EXPECT_TRUE(*r.telemetry_throttled) << r.benchmark << ": any GPU throttled";
    } else if (*r.device_index == 0) {
      saw[0] = true;
      EXPECT_TRUE(*r.telemetry_throttled) << r.benchmark;
    } else {
      saw[1] = true;
      EXPECT_FALSE(*r.telemetry_throttled) << r.benchmark;
    }
  }
  EXPECT_TRUE(saw[0] && saw[1] && saw[2]) << "the fixture has results on gpu 0, gpu 1 and host";
}

TEST_F(StoreTelemetryTest, NoThrottlingMeansFlagOffAndNoTelemetryMeansUnknown) {
  Store store = open();
  const auto [quiet_run, quiet_sr] = make_run(store);
  store.add_telemetry(quiet_run, quiet_sr,
                      {sample(0, 0.0, k_idle), sample(1, 0.0, 0), sample(1, 0.1, 0x2)});
  for (const ResultRow& r : store.get_results(quiet_run)) {
    ASSERT_TRUE(r.telemetry_throttled.has_value()) << r.benchmark;
    EXPECT_FALSE(*r.telemetry_throttled) << r.benchmark;
  }
  const auto [bare_run, bare_sr] = make_run(store);
  (void)bare_sr;
  for (const ResultRow& r : store.get_results(bare_run)) {
    EXPECT_FALSE(r.telemetry_throttled.has_value()) << r.benchmark;
  }
  // Samples whose reasons were unreadable say nothing either way.
  const auto [blind_run, blind_sr] = make_run(store);
  TelemetrySample blind = sample(0, 0.0, 0);
  blind.throttle_reasons.reset();
  store.add_telemetry(blind_run, blind_sr, {blind});
  for (const ResultRow& r : store.get_results(blind_run)) {
    EXPECT_FALSE(r.telemetry_throttled.has_value()) << r.benchmark;
  }
}

TEST_F(StoreTelemetryTest, SummarisesEachGpu) {
  Store store = open();
  const auto [run, sr] = make_run(store);
  store.add_telemetry(run, sr,
                      {sample(0, 0.0, k_idle, 1980), sample(0, 1.0, k_hw_slowdown, 1410),
                       sample(0, 2.0, k_power_cap, 1980), sample(1, 0.0, 0, 1980)});
  EXPECT_TRUE(store.get_telemetry_summary(make_run(store).first).empty());
  const auto s = store.get_telemetry_summary(run);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].nvml_index, 0);
  EXPECT_EQ(s[0].gpu_uuid, sample_run_info().gpus[0].uuid);
  EXPECT_EQ(s[0].samples, 3);
  EXPECT_DOUBLE_EQ(*s[0].max_temperature_c, 62.0);
  EXPECT_DOUBLE_EQ(*s[0].max_power_w, 520.0);
  EXPECT_EQ(s[0].min_sm_clock_mhz, 1410.0);
  EXPECT_EQ(s[0].max_sm_clock_mhz, 1980.0);
  EXPECT_EQ(s[0].throttled_samples, 1);
  EXPECT_EQ(s[0].power_limited_samples, 1);
  EXPECT_EQ(s[0].throttle_known, 3);
  EXPECT_EQ(s[0].ecc_sbe_increase, 2);
  EXPECT_EQ(s[0].ecc_dbe_increase, 0);
  EXPECT_EQ(s[0].throttled_suites, std::vector<std::string>{"memory"});
  EXPECT_EQ(s[1].samples, 1);
  EXPECT_EQ(s[1].throttled_samples, 0);
  EXPECT_TRUE(s[1].throttled_suites.empty());
}

// Issue 35: a run measures each suite in several executions, each its own suite run. A suite whose
// executions throttled is named once, in the order of its first execution that did.
TEST_F(StoreTelemetryTest, ThrottledSuitesAreNamedOnceHoweverManyExecutionsThrottled) {
  Store store = open();
  const int64_t run = store.begin_run(sample_run_info());
  std::vector<int64_t> suite_runs;
  for (const char* suite : {"memory", "gemm", "memory", "memory"}) {
    suite_runs.push_back(store.add_suite_run(run, sample_suite_run(suite)));
  }
  store.add_telemetry(run, suite_runs[0], {sample(0, 0.0, 0)});
  store.add_telemetry(run, suite_runs[1], {sample(0, 1.0, k_hw_slowdown)});
  store.add_telemetry(run, suite_runs[2], {sample(0, 2.0, k_hw_slowdown)});
  store.add_telemetry(run, suite_runs[3], {sample(0, 3.0, k_hw_slowdown)});
  store.finish_run(run, RunStatus::complete);
  const auto s = store.get_telemetry_summary(run);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].throttled_samples, 3);
  EXPECT_EQ(s[0].throttled_suites, (std::vector<std::string>{"gemm", "memory"}));
}

// Half an hour of 8 GPUs at 10 Hz (144,000 FIXTURE rows) in one call; prints how long it took.
TEST_F(StoreTelemetryTest, StoresAHalfHourOfEightGpus) {
  Store store = open();
  const auto [run, sr] = make_run(store);
  std::vector<TelemetrySample> rows;
  constexpr int k_ticks = 18000;
  rows.reserve(k_ticks * 8);
  for (int k = 0; k < k_ticks; ++k) {
    for (int d = 0; d < 8; ++d) rows.push_back(sample(d, 0.1 * k, k == 100 && d == 5 ? 0x40 : 0));
  }
  const auto t0 = std::chrono::steady_clock::now();
  store.add_telemetry(run, sr, rows);
  const double write_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto t1 = std::chrono::steady_clock::now();
  const auto summary = store.get_telemetry_summary(run);
  const auto results = store.get_results(run);
  const double read_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  std::printf(
      "[ figure ] add_telemetry: %zu rows in %.3f s (%.0f rows/s); summary + "
      "get_results: %.3f s\n",
      rows.size(), write_s, static_cast<double>(rows.size()) / write_s, read_s);
  ASSERT_EQ(summary.size(), 8u);
  for (const auto& g : summary) {
    EXPECT_EQ(g.samples, k_ticks);
    EXPECT_EQ(g.throttled_samples, g.nvml_index == 5 ? 1 : 0);
  }
  // Only gpu 5 throttled (once): results on gpu 0/1 are clean, host results are flagged.
  for (const ResultRow& r : results) {
    ASSERT_TRUE(r.telemetry_throttled.has_value());
    EXPECT_EQ(*r.telemetry_throttled, !r.device_index.has_value()) << r.benchmark;
  }
}

TEST_F(StoreTelemetryTest, RefusesASuiteRunOfAnotherRun) {
  Store store = open();
  const auto [run_a, sr_a] = make_run(store);
  const auto [run_b, sr_b] = make_run(store);
  (void)sr_b;
  try {
    store.add_telemetry(run_b, sr_a, {sample(0, 0, 0)});
    ADD_FAILURE() << "accepted a suite run of another run";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
  }
  EXPECT_TRUE(store.get_telemetry(run_b).empty());  // nothing half-written
  EXPECT_TRUE(store.get_telemetry(run_a).empty());
  // Samples outside any suite are allowed.
  store.add_telemetry(run_a, std::nullopt, {sample(0, 0, 0)});
  EXPECT_EQ(store.get_telemetry(run_a).size(), 1u);
}

}  // namespace
}  // namespace gpubench::results
