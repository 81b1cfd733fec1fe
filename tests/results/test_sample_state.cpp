// The per-sample state-key contract (util/sample_state.hpp) and the three-state rule
// (results/sample_states.hpp) on synthetic telemetry windows.
#include <gtest/gtest.h>

#include <cctype>
#include <set>

#include "helpers.hpp"
#include "results/sample_states.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/fs.hpp"
#include "util/sample_state.hpp"

namespace gpubench::results {
namespace {

namespace ss = sample_state;
using nlohmann::json;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

TEST(StateKeys, EveryFieldHasOneNameSuitesWriteAndMatchingIsCaseExact) {
  std::set<std::string> written;
  for (const ss::Key& k : ss::k_keys) {
    EXPECT_EQ(ss::field_of(k.name), k.field) << k.name;
    if (!k.legacy) {
      EXPECT_TRUE(written.insert(std::string(k.name)).second) << k.name;
    }
  }
  for (ss::Field f :
       {ss::Field::sm_clock_mhz, ss::Field::temperature_c, ss::Field::power_w,
        ss::Field::throttle_reasons, ss::Field::power_limited, ss::Field::thermal_or_hw_slowdown,
        ss::Field::clock_below_expected, ss::Field::window_start_s, ss::Field::window_end_s}) {
    EXPECT_FALSE(ss::name_of(f).empty());
  }
  EXPECT_EQ(ss::field_of("sm_clock_MHz"), ss::Field::sm_clock_mhz);
  EXPECT_FALSE(ss::field_of("SM_CLOCK_MHZ").has_value());
  EXPECT_FALSE(ss::field_of("sm_clock_mhz_min").has_value());
  // v1's "throttled" (clock below 75% of peak) is read as clock_below_expected, never invalid.
  EXPECT_EQ(ss::field_of("throttled"), ss::Field::clock_below_expected);
}

// What suites write, ingested as a gpubench file: every written key is a state column, none
// becomes a metric. A key a suite writes that ingest did not know would show up as a metric.
TEST(StateKeys, EveryKeySuitesWriteIsStoredAsStateNeverAsAMetric) {
  TempDir dir("gpubench-test-state-keys");
  Store store = Store::open(dir.path() / "gpubench.db", OpenMode::read_write_create);
  const int64_t run = store.begin_run(testing::sample_run_info());
  const int64_t suite_run = store.add_suite_run(run, testing::sample_suite_run("gemm"));
  json entry = {{"name", "gemm/x/device:0"}, {"run_name", "gemm/x/device:0"},
                {"run_type", "iteration"},   {"repetition_index", 0},
                {"iterations", 1},           {"real_time", 1.0},
                {"cpu_time", 1.0},           {"time_unit", "ns"},
                {"TFLOP_per_s", 1.0}};
  for (const ss::Key& k : ss::k_keys) entry[std::string(k.name)] = 1.0;
  json doc = {
      {"context",
       {{"gpubench.metrics",
         json::array({{{"name", "TFLOP_per_s"}, {"unit", "TFLOP/s"}, {"direction", "higher"}}})}}},
      {"benchmarks", json::array({entry})}};
  store.ingest_benchmark_json(suite_run, doc, "gemm");
  Statement st = store.database().prepare("SELECT name FROM metrics ORDER BY name");
  std::set<std::string> metrics;
  while (st.step()) metrics.insert(st.column_text(0));
  EXPECT_EQ(metrics, (std::set<std::string>{"TFLOP_per_s", "cpu_time", "real_time"}));
  Statement row = store.database().prepare(
      "SELECT power_limited, thermal_or_hw_slowdown, clock_below_expected, throttled, "
      "sm_clock_mhz FROM samples LIMIT 1");
  ASSERT_TRUE(row.step());
  for (int c = 0; c < 4; ++c) EXPECT_FALSE(row.is_null(c)) << c;
  EXPECT_EQ(row.column_int64(3), row.column_int64(1));  // throttled = the invalid mark
}

// Names that look like state but differ in case or spelling are the bug issue 11 found
// (sm_clock_MHz vs sm_clock_mhz): no two keys may differ only in case.
TEST(StateKeys, NoTwoKeysDifferOnlyInCase) {
  std::map<std::string, std::string> seen;
  for (const ss::Key& k : ss::k_keys) {
    auto [it, fresh] = seen.emplace(lower(k.name), std::string(k.name));
    if (!fresh) {
      EXPECT_EQ(ss::field_of(it->second), k.field)
          << it->second << " and " << k.name << " differ only in case but fill other fields";
    }
  }
}

const SampleWindow k_window{10.0, 10.5};

TEST(SampleStateRule, PowerCapOnlyIsPowerLimitedNotInvalid) {
  const std::vector<StateTick> ticks = {{9.95, ss::reasons::sw_power_cap, 1650},
                                        {10.2, ss::reasons::sw_power_cap, 1620},
                                        {10.55, ss::reasons::gpu_idle, 1980}};
  const SampleStates s = classify_sample(k_window, ticks, 0.1, 1640.0, 1980.0);
  EXPECT_EQ(s.power_limited, true);
  EXPECT_EQ(s.thermal_or_hw_slowdown, false);
  EXPECT_EQ(s.clock_below_expected, true);  // recorded, not invalid
}

TEST(SampleStateRule, ThermalAndPowerBrakeSlowdownInTheWindowIsInvalidFromOneReading) {
  for (int64_t bit : {ss::reasons::sw_thermal_slowdown, ss::reasons::hw_thermal_slowdown,
                      ss::reasons::hw_power_brake_slowdown}) {
    const std::vector<StateTick> ticks = {{10.1, bit | ss::reasons::sw_power_cap, 900}};
    const SampleStates s = classify_sample(k_window, ticks, 0.1, std::nullopt, 1980.0);
    EXPECT_EQ(s.thermal_or_hw_slowdown, true) << bit;
    EXPECT_EQ(s.power_limited, true) << bit;
    EXPECT_EQ(s.clock_below_expected, true) << "NVML clock when the probe has none";
  }
}

// Recorded-trace shapes at the default 10 Hz telemetry (fixtures, not measurements): nvml.h says
// HW slowdown "may be also reported during PState or clock change", so a reading or two of it is
// not a slowdown; a run lasting k_hw_slowdown_sustained_s (0.3 s) or longer is.
TEST(SampleStateRule, TransientHwSlowdownDoesNotInvalidateASustainedOneDoes) {
  const int64_t hw = ss::reasons::hw_slowdown;
  // One reading of 0x8 inside the window (a P-state change as the work starts).
  const std::vector<StateTick> single = {
      {9.9, ss::reasons::gpu_idle, 1980}, {10.0, hw, 1500}, {10.1, 0, 1980}, {10.2, 0, 1980}};
  EXPECT_EQ(classify_sample(k_window, single, 0.1, 1975.0, 1980.0).thermal_or_hw_slowdown, false);
  // Two consecutive readings: 0.1 s from first to last, below 0.3 s.
  const std::vector<StateTick> two = {{10.0, hw, 1500}, {10.1, hw, 1700}, {10.2, 0, 1980}};
  EXPECT_EQ(classify_sample(k_window, two, 0.1, 1975.0, 1980.0).thermal_or_hw_slowdown, false);
  // Four consecutive readings (0.3 s): sustained, the sample is invalid.
  const std::vector<StateTick> four = {
      {10.0, hw, 900}, {10.1, hw, 900}, {10.2, hw, 900}, {10.3, hw, 900}};
  EXPECT_EQ(classify_sample(k_window, four, 0.1, 900.0, 1980.0).thermal_or_hw_slowdown, true);
  // Ticks in any order: the rule sorts them by time.
  const std::vector<StateTick> shuffled = {
      {10.3, hw, 900}, {10.0, hw, 900}, {10.2, hw, 900}, {10.1, hw, 900}};
  EXPECT_EQ(classify_sample(k_window, shuffled, 0.1, 900.0, 1980.0).thermal_or_hw_slowdown, true);
  // A sustained slowdown that began before the window: the window's single reading of it counts,
  // since the run is judged over all of the GPU's ticks.
  const std::vector<StateTick> long_before = {
      {9.5, hw, 900}, {9.6, hw, 900}, {9.7, hw, 900}, {9.8, hw, 900}, {9.9, hw, 900}};
  EXPECT_EQ(classify_sample({SampleWindow{9.85, 9.9}}, long_before, 0.0, 900.0, 1980.0)
                .thermal_or_hw_slowdown,
            true);
  // An unreadable reading ends a run: two runs of 0.1 s, neither sustained.
  const std::vector<StateTick> broken = {{10.0, hw, 900},
                                         {10.1, hw, 900},
                                         {10.2, std::nullopt, 900},
                                         {10.3, hw, 900},
                                         {10.4, hw, 900}};
  EXPECT_EQ(classify_sample(k_window, broken, 0.1, 900.0, 1980.0).thermal_or_hw_slowdown, false);
}

TEST(SampleStateRule, TransientHwSlowdownFilterKeepsEveryOtherBit) {
  const int64_t hw = ss::reasons::hw_slowdown;
  const int64_t cap = ss::reasons::sw_power_cap;
  const auto out = ss::without_transient_hw_slowdown(
      {{0.0, hw | cap}, {0.1, std::nullopt}, {0.2, hw | ss::reasons::hw_thermal_slowdown}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], cap);
  EXPECT_FALSE(out[1].has_value());
  EXPECT_EQ(out[2], ss::reasons::hw_thermal_slowdown);  // thermal stays: it invalidates alone
  const auto held = ss::without_transient_hw_slowdown({{0.0, hw}, {0.3, hw}});
  EXPECT_EQ(held[0], hw);  // at a 0.3 s (or slower) interval two readings are sustained
  EXPECT_EQ(held[1], hw);
}

// The expectation is the lock NVML shows, else the boost limit; never the (deprecated)
// application clock of an unlocked GPU, whose default is the base clock.
TEST(SampleStateRule, ExpectedClockIsTheLockElseTheMaximumSmClock) {
  EXPECT_EQ(expected_sm_clock_mhz(1410, 1755, 1980), 1410.0);  // locked with -ac
  EXPECT_EQ(expected_sm_clock_mhz(1755, 1755, 1980), 1980.0);  // target = default: no lock
  EXPECT_EQ(expected_sm_clock_mhz(std::nullopt, std::nullopt, 1980), 1980.0);  // CUDA 13 driver
  EXPECT_EQ(expected_sm_clock_mhz(1410, std::nullopt, 1980), 1980.0);  // no default: no lock seen
  EXPECT_FALSE(expected_sm_clock_mhz(std::nullopt, 1755, std::nullopt).has_value());
}

TEST(SampleStateRule, ReasonsOutsideTheWindowDoNotCount) {
  const std::vector<StateTick> ticks = {{9.0, ss::reasons::hw_slowdown, 900},
                                        {10.3, 0, 1980},
                                        {11.5, ss::reasons::hw_thermal_slowdown, 900}};
  const SampleStates s = classify_sample(k_window, ticks, 0.1, 1975.0, 1980.0);
  EXPECT_EQ(s.thermal_or_hw_slowdown, false);
  EXPECT_EQ(s.power_limited, false);
  EXPECT_EQ(s.clock_below_expected, false);  // within 2% of the expected clock
}

TEST(SampleStateRule, WithoutTelemetryTheClockProbeDecidesAndTheRestIsUnknown) {
  const SampleStates s = classify_sample(k_window, {}, 0.1, 1400.0, 1980.0);
  EXPECT_FALSE(s.power_limited.has_value());
  EXPECT_FALSE(s.thermal_or_hw_slowdown.has_value());
  EXPECT_EQ(s.clock_below_expected, true);
  const SampleStates none = classify_sample(std::nullopt, {}, 0.1, 1400.0, std::nullopt);
  EXPECT_FALSE(none.clock_below_expected.has_value()) << "no expected clock: unknown, no guess";
  // Unreadable reasons decide nothing.
  const SampleStates unreadable =
      classify_sample(k_window, {{10.2, std::nullopt, 1900}}, 0.1, std::nullopt, 1980.0);
  EXPECT_FALSE(unreadable.thermal_or_hw_slowdown.has_value());
  EXPECT_EQ(unreadable.clock_below_expected, true);
}

// The store applies the rule to a suite run's samples from telemetry in the run's time base.
TEST(SampleStateRule, StoreClassifiesEachSampleFromTheTelemetryOverlappingIt) {
  TempDir dir("gpubench-test-classify");
  Store store = Store::open(dir.path() / "gpubench.db", OpenMode::read_write_create);
  RunInfo info = testing::sample_run_info();
  // Application clock target = its default (no lock): the expectation is the 1980 MHz maximum,
  // not the 1755 MHz application clock.
  info.gpus[1].app_sm_clock_mhz = 1755;
  info.gpus[1].default_sm_clock_mhz = 1755;
  info.gpus[1].max_sm_clock_mhz = 1980;
  const int64_t run = store.begin_run(info);
  const int64_t suite_run = store.add_suite_run(run, testing::sample_suite_run("gemm"));
  // CUDA ordinal 0 is NVML GPU 1 (the record says so); two repetitions at 1000-1001 s and
  // 1002-1003 s CLOCK_MONOTONIC.
  json benchmarks = json::array();
  for (int rep = 0; rep < 2; ++rep) {
    benchmarks.push_back({{"name", "gemm/x/device:0"},
                          {"run_name", "gemm/x/device:0"},
                          {"run_type", "iteration"},
                          {"repetition_index", rep},
                          {"iterations", 1},
                          {"real_time", 1.0},
                          {"cpu_time", 1.0},
                          {"time_unit", "ns"},
                          {"TFLOP_per_s", 700.0},
                          {"sm_clock_MHz", 1750.0},
                          {"window_start_s", 1000.0 + 2 * rep},
                          {"window_end_s", 1001.0 + 2 * rep}});
  }
  json doc = {
      {"context",
       {{"gpubench.metrics",
         json::array({{{"name", "TFLOP_per_s"}, {"unit", "TFLOP/s"}, {"direction", "higher"}}})},
        {"gpubench.devices", json::array({{{"index", 0}, {"uuid", info.gpus[1].uuid}}}).dump()}}},
      {"benchmarks", benchmarks}};
  store.ingest_benchmark_json(suite_run, doc, "gemm");
  // Telemetry origin 990 s: t_s 10.5 = 1000.5 (rep 0), t_s 12.5 = 1002.5 (rep 1). NVML GPU 0
  // (not this result's GPU) has a thermal slowdown in rep 0: it must not count.
  std::vector<TelemetrySample> tel;
  auto tick = [&](int nvml, double t, int64_t reasons) {
    TelemetrySample s;
    s.nvml_index = nvml;
    s.t_s = t;
    s.throttle_reasons = reasons;
    tel.push_back(s);
  };
  tick(1, 10.5, ss::reasons::sw_power_cap);
  tick(0, 10.5, ss::reasons::hw_thermal_slowdown);
  for (double t : {12.3, 12.4, 12.5, 12.6}) tick(1, t, ss::reasons::hw_slowdown);  // 0.3 s
  store.add_telemetry(run, suite_run, tel);
  // The series medians count the valid repetitions: both before, only rep 0 once rep 1 is
  // marked a slowdown.
  auto median_n = [&] {
    Statement st = store.database().prepare(
        "SELECT m.n FROM series_medians m JOIN metrics x ON x.id = m.metric_id "
        "WHERE m.suite_run_id = ?1 AND x.name = 'TFLOP_per_s'");
    st.bind(1, suite_run);
    return st.step() ? st.column_int64(0) : int64_t{-1};
  };
  EXPECT_EQ(median_n(), 2);
  store.classify_samples(suite_run, tel, 990.0, 0.1);
  EXPECT_EQ(median_n(), 1);
  const auto rows = store.get_results(run);
  bool seen = false;
  for (const ResultRow& r : rows) {
    if (r.metric != "TFLOP_per_s") continue;
    seen = true;
    EXPECT_EQ(r.gpu_uuid, info.gpus[1].uuid);
    EXPECT_EQ(r.power_limited, (std::vector<int>{1, 0}));
    EXPECT_EQ(r.throttled, (std::vector<int>{0, 1}));             // only rep 1 is invalid
    EXPECT_EQ(r.clock_below_expected, (std::vector<int>{1, 1}));  // 1750 < 1980 - 2%
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace gpubench::results
