// The settle step (harness/run/settle.hpp): the decision rule and its loop on recorded-shape
// traces (TEST FAKE readings: the shape NVML gives after a GEMM, made-up numbers), the plan's
// charge, and a run of FIXTURE suites named like gemm, memory and calibration: the order stored
// and the settle recorded with the suite execution it came before.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/probe/nvml.hpp"
#include "harness/run/runner.hpp"
#include "harness/run/settle.hpp"
#include "results/store.hpp"
#include "util/fs.hpp"

namespace gpubench::harness {
namespace {

namespace fs = std::filesystem;

constexpr int64_t k_idle = throttle::gpu_idle;
constexpr int64_t k_power_cap = throttle::sw_power_cap;

SettleReading reading(std::optional<double> clock_mhz, std::optional<double> temperature_c,
                      std::optional<int64_t> reasons) {
  return {clock_mhz, temperature_c, reasons};
}

// An idle H100-class GPU at a run's start: idle clock, cool, only the idle reason.
const SettleReading k_start = reading(345, 34, k_idle);

TEST(SettleRule, TemperatureWithinItsToleranceSettlesJustOutsideItWaits) {
  const SettlePolicy policy;
  // 5 °C above the start is near; 5.5 °C is not (the tolerance itself, then just outside it).
  EXPECT_EQ(judge_settle({k_start}, {reading(1980, 39, k_idle)}, 1.0, policy).state,
            SettleState::settled);
  const SettleVerdict hot = judge_settle({k_start}, {reading(1980, 39.5, k_idle)}, 1.0, policy);
  EXPECT_EQ(hot.state, SettleState::waiting);
  ASSERT_EQ(hot.unsettled.size(), 1u);
  EXPECT_EQ(hot.unsettled[0], "gpu0 39.5 °C, 5.5 °C above the start (34 °C)");
  // The same reading at the bound: the next suite starts anyway.
  EXPECT_EQ(judge_settle({k_start}, {reading(1980, 39.5, k_idle)}, 10.0, policy).state,
            SettleState::bound_reached);
  EXPECT_EQ(judge_settle({k_start}, {reading(1980, 39.5, k_idle)}, 9.99, policy).state,
            SettleState::waiting);
}

TEST(SettleRule, APowerLimitReasonThatWasClearAtTheStartHoldsTheSettle) {
  const SettlePolicy policy;
  const SettleVerdict capped =
      judge_settle({k_start}, {reading(1755, 36, k_power_cap)}, 0.5, policy);
  EXPECT_EQ(capped.state, SettleState::waiting);
  ASSERT_EQ(capped.unsettled.size(), 1u);
  EXPECT_EQ(capped.unsettled[0], "gpu0 clocks-event reasons 0x4 set, clear at the start");
  // Thermal slowdown too.
  EXPECT_EQ(judge_settle({k_start}, {reading(1755, 36, throttle::sw_thermal_slowdown)}, 0.5, policy)
                .state,
            SettleState::waiting);
  // A reason the GPU already had at the start is its normal state, not the GEMM's leftover.
  EXPECT_EQ(
      judge_settle({reading(1755, 36, k_power_cap)}, {reading(1755, 36, k_power_cap)}, 0.5, policy)
          .state,
      SettleState::settled);
}

TEST(SettleRule, AClockBelowTheStartCountsOnlyWhenTheGpuIsNotIdle) {
  const SettlePolicy policy;
  // A GPU kept at its clock (persistence, prefer-max-performance) starts at 1980 MHz.
  const SettleReading busy_start = reading(1980, 40, 0);
  // 2% below is near; just below that is not, unless NVML says the GPU is idle (its clock drops
  // by design then).
  EXPECT_EQ(judge_settle({busy_start}, {reading(1940.4, 40, 0)}, 1, policy).state,
            SettleState::settled);
  const SettleVerdict low = judge_settle({busy_start}, {reading(1940, 40, 0)}, 1, policy);
  EXPECT_EQ(low.state, SettleState::waiting);
  ASSERT_EQ(low.unsettled.size(), 1u);
  EXPECT_EQ(low.unsettled[0], "gpu0 SM clock 1940 MHz, below the start's 1980 MHz");
  EXPECT_EQ(judge_settle({busy_start}, {reading(345, 40, k_idle)}, 1, policy).state,
            SettleState::settled);
}

TEST(SettleRule, UnreadableCriteriaDecideNothing) {
  const SettlePolicy policy;
  const SettleReading none = reading(std::nullopt, std::nullopt, std::nullopt);
  EXPECT_EQ(judge_settle({none}, {none}, 0, policy).state, SettleState::not_judged);
  EXPECT_EQ(judge_settle({}, {}, 0, policy).state, SettleState::not_judged);
  // A temperature unknown at the start cannot be compared; the reasons still can.
  EXPECT_EQ(
      judge_settle({reading(345, std::nullopt, k_idle)}, {reading(1980, 80, k_idle)}, 0, policy)
          .state,
      SettleState::settled);
  // GPU 1 unreadable: GPU 0 decides alone.
  EXPECT_EQ(judge_settle({k_start, none}, {reading(1980, 60, k_idle), none}, 0, policy).state,
            SettleState::waiting);
  EXPECT_EQ(judge_settle({k_start, none}, {reading(1980, 35, k_idle), none}, 0, policy).state,
            SettleState::settled);
}

TEST(SettleRule, EveryGpuMustBeNearItsOwnStart) {
  const SettlePolicy policy;
  const SettleVerdict v =
      judge_settle({k_start, reading(345, 30, k_idle)},
                   {reading(1980, 36, k_idle), reading(1980, 41, k_idle)}, 10, policy);
  EXPECT_EQ(v.state, SettleState::bound_reached);
  ASSERT_EQ(v.unsettled.size(), 1u);
  EXPECT_EQ(v.unsettled[0], "gpu1 41 °C, 11 °C above the start (30 °C)");
}

// TEST FAKE: replays one recorded-shape trace per GPU, a reading per read() call (the last one
// repeats).
class TraceSource final : public TelemetrySource {
 public:
  explicit TraceSource(std::vector<std::vector<SettleReading>> traces)
      : m_traces(std::move(traces)), m_next(m_traces.size(), 0) {}
  int device_count() override { return static_cast<int>(m_traces.size()); }
  results::TelemetrySample read(int index, bool /*with_counters*/) override {
    ++reads;
    const auto& trace = m_traces.at(static_cast<std::size_t>(index));
    std::size_t& next = m_next.at(static_cast<std::size_t>(index));
    const SettleReading& r = trace.at(std::min(next, trace.size() - 1));
    ++next;
    results::TelemetrySample t;
    t.nvml_index = index;
    t.sm_clock_mhz = r.sm_clock_mhz;
    t.temperature_c = r.temperature_c;
    t.throttle_reasons = r.reasons;
    return t;
  }
  int reads = 0;

 private:
  std::vector<std::vector<SettleReading>> m_traces;
  std::vector<std::size_t> m_next;
};

// A clock that moves only when the loop sleeps: every wait is exact and instantaneous.
struct FakeClock {
  double t = 100.0;
  bool stop = false;
  SettleClock clock() {
    return {[this] { return t; }, [this](double s) { t += s; }, [this] { return stop; }};
  }
};

// After a GEMM: 71 °C, power cap still set in the first reading, cooling by the poll.
std::vector<SettleReading> cooling_trace() {
  return {reading(1755, 71, k_power_cap), reading(1980, 63, k_idle), reading(1980, 55, k_idle),
          reading(345, 47, k_idle),       reading(345, 42, k_idle),  reading(345, 38, k_idle)};
}

TEST(SettleLoop, WaitsUntilACoolingTraceIsBackNearTheStart) {
  TraceSource source({cooling_trace()});
  FakeClock clock;
  const SettlePolicy policy;  // 10 s bound, 0.5 s poll
  const SettleRecord r = settle_gpus(source, {k_start}, "gemm", clock.t, policy, clock.clock());
  EXPECT_EQ(r.state, SettleState::settled);
  EXPECT_EQ(source.reads, 6);  // 38 °C is the first within 5 °C of 34 °C
  EXPECT_DOUBLE_EQ(r.waited_s, 5 * policy.poll_s);
  EXPECT_EQ(r.text(), "settle after gemm: settled after waiting 2.5 s (2.5 s after gemm ended)");
}

TEST(SettleLoop, AGpuThatStaysHotStopsAtTheBound) {
  TraceSource source({{reading(1755, 71, k_power_cap), reading(345, 52, k_idle)}});
  FakeClock clock;
  const SettlePolicy policy;
  const SettleRecord r = settle_gpus(source, {k_start}, "gemm", clock.t, policy, clock.clock());
  EXPECT_EQ(r.state, SettleState::bound_reached);
  EXPECT_DOUBLE_EQ(r.waited_s, policy.bound_s);
  EXPECT_EQ(source.reads, 1 + static_cast<int>(policy.bound_s / policy.poll_s));
  EXPECT_EQ(r.text(),
            "settle after gemm: not settled when its 10.0 s bound was reached (waited 10.0 s): "
            "gpu0 52 °C, 18 °C above the start (34 °C)");
}

TEST(SettleLoop, HostSuitesRunSinceTheGemmCountTowardTheBound) {
  FakeClock clock;
  const SettlePolicy policy;
  // The gemm ended 7 s ago (calibration and dataloader ran since): 3 s of the bound are left.
  TraceSource hot({{reading(345, 52, k_idle)}});
  const SettleRecord r = settle_gpus(hot, {k_start}, "gemm", clock.t - 7, policy, clock.clock());
  EXPECT_EQ(r.state, SettleState::bound_reached);
  EXPECT_NEAR(r.waited_s, 3.0, 1e-9);
  EXPECT_NEAR(r.since_heavy_s, 10.0, 1e-9);
  // 12 s ago: no wait at all.
  TraceSource hot2({{reading(345, 52, k_idle)}});
  const SettleRecord late =
      settle_gpus(hot2, {k_start}, "gemm", clock.t - 12, policy, clock.clock());
  EXPECT_EQ(late.state, SettleState::bound_reached);
  EXPECT_DOUBLE_EQ(late.waited_s, 0);
  EXPECT_EQ(hot2.reads, 1);
}

TEST(SettleLoop, ASignalEndsTheWaitAndNothingReadableMeansNoWait) {
  FakeClock clock;
  clock.stop = true;
  TraceSource hot({{reading(345, 52, k_idle)}});
  const SettleRecord r =
      settle_gpus(hot, {k_start}, "gemm", clock.t, SettlePolicy{}, clock.clock());
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.text(), "settle after gemm: interrupted after waiting 0.0 s");

  FakeClock clock2;
  const SettleReading none = reading(std::nullopt, std::nullopt, std::nullopt);
  TraceSource blind({{none}});
  const SettleRecord b =
      settle_gpus(blind, {none}, "gemm", clock2.t, SettlePolicy{}, clock2.clock());
  EXPECT_EQ(b.state, SettleState::not_judged);
  EXPECT_EQ(blind.reads, 1);
  EXPECT_EQ(b.text().rfind("settle after gemm: not judged (NVML gave no", 0), 0u) << b.text();
}

TEST(SettlePlan, ChargesTheBoundLessTheHostTimeBetween) {
  const std::vector<PlannedExecution> seq = {
      {"memory", SuiteKind::device, 7},    {"gemm", SuiteKind::power_heavy, 33},
      {"calibration", SuiteKind::host, 1}, {"dataloader", SuiteKind::host, 6},
      {"memory", SuiteKind::device, 7},    {"gemm", SuiteKind::power_heavy, 21},
      {"calibration", SuiteKind::host, 1}, {"calibration", SuiteKind::host, 1}};
  const PlannedSettle p = planned_settle(seq, 10);
  EXPECT_EQ(p.settles, 1);  // the last gemm is followed by host suites only
  EXPECT_DOUBLE_EQ(p.seconds, 3);
  EXPECT_EQ(planned_settle(
                {{"gemm", SuiteKind::power_heavy, 20}, {"gemm", SuiteKind::power_heavy, 20}}, 10)
                .seconds,
            10);
}

TEST(SettlePlan, ARunSettlesOnlyWithAPowerHeavySuiteAndSomethingAfterIt) {
  auto suites = [](std::vector<std::string> names) {
    std::vector<SuiteExecutable> out;
    for (auto& n : names) out.push_back({n, {}});
    return out;
  };
  EXPECT_TRUE(run_may_settle(suites({"memory", "gemm"}), 2));
  EXPECT_TRUE(run_may_settle(suites({"gemm"}), 2));  // gemm's second execution follows its first
  EXPECT_FALSE(run_may_settle(suites({"gemm"}), 1));
  EXPECT_FALSE(run_may_settle(suites({"gemm", "calibration"}), 1));
  EXPECT_FALSE(run_may_settle(suites({"memory", "calibration"}), 3));
}

// A run of FIXTURE suites (tests/e2e/fixtures/gpubench-fixture_ok, fixed made-up numbers) copied
// under the names of real suites, so the order and the settle follow the names.
class SettleRun : public ::testing::Test {
 protected:
  TempDir m_dir{"gpubench-test-settle"};
  SuiteExecutable suite(const std::string& name) {
    const fs::path src = fs::path(GPUBENCH_SOURCE_DIR) / "tests/e2e/fixtures/gpubench-fixture_ok";
    const fs::path dst = m_dir.path() / ("gpubench-" + name);
    fs::copy_file(src, dst, fs::copy_options::overwrite_existing);
    chmod(dst.c_str(), 0755);
    return {name, dst};
  }
  RunOptions options(std::vector<std::string> names, std::shared_ptr<TelemetrySource> source) {
    RunOptions o;
    for (const auto& n : names) o.suites.push_back(suite(n));
    o.suite_options.repetitions = 1;
    o.suite_options.executions = 2;
    o.suite_options.min_time_s = 0.01;
    o.suite_options.timeout_s = 60;
    o.telemetry_interval_ms = 0;  // the settle alone reads the source
    o.telemetry_source = std::move(source);
    o.settle_clock = m_clock.clock();
    return o;
  }
  results::Store store() {
    return results::Store::open(m_dir.path() / "t.db", results::OpenMode::read_write_create);
  }
  FakeClock m_clock;
};

std::vector<std::string> stored_order(results::Store& store, int64_t run_id) {
  std::vector<std::string> out;
  for (const auto& s : store.get_run(run_id).suites) out.push_back(s.suite);
  return out;
}

TEST_F(SettleRun, DeviceSuitesRunFirstAndASettleComesBeforeTheDeviceSuiteAfterGemm) {
  results::Store db = store();
  // Read 1: the run's start; then the settle before memory's second execution cools down.
  auto source = std::make_shared<TraceSource>(std::vector<std::vector<SettleReading>>{
      {k_start, reading(1755, 70, k_power_cap), reading(345, 58, k_idle), reading(345, 47, k_idle),
       reading(345, 38, k_idle)}});
  // Given in discovery's name order: calibration, gemm, memory.
  const RunOutcome out =
      execute_run(db, options({"calibration", "gemm", "memory"}, source), nullptr);
  ASSERT_EQ(out.status, results::RunStatus::complete);
  EXPECT_EQ(
      stored_order(db, out.run_id),
      (std::vector<std::string>{"memory", "gemm", "calibration", "memory", "gemm", "calibration"}));
  ASSERT_EQ(out.settles.size(), 1u);
  const SettleRecord& r = out.settles[0];
  EXPECT_EQ(r.before, "memory");
  EXPECT_EQ(r.before_execution, 1);
  EXPECT_EQ(r.state, SettleState::settled);
  EXPECT_DOUBLE_EQ(r.waited_s, 1.5);
  EXPECT_EQ(source->reads, 5);
  // Recorded with the execution it came before, and nowhere else.
  const auto suites = db.get_run(out.run_id).suites;
  EXPECT_EQ(suites[3].reason,
            "settle after gemm: settled after waiting 1.5 s (1.5 s after gemm ended)");
  for (std::size_t i : {0u, 1u, 2u, 4u, 5u}) EXPECT_EQ(suites[i].reason, "") << i;
  EXPECT_EQ(db.get_run(out.run_id).info.config.env.count(k_settle_env_key), 0u);
}

TEST_F(SettleRun, AGpuStillHotAtTheBoundIsRecordedAndTheRunGoesOn) {
  results::Store db = store();
  auto source = std::make_shared<TraceSource>(
      std::vector<std::vector<SettleReading>>{{k_start, reading(345, 61, k_idle)}});
  RunOptions o = options({"gemm", "memory"}, source);
  o.settle.bound_s = 2;
  const RunOutcome out = execute_run(db, o, nullptr);
  ASSERT_EQ(out.status, results::RunStatus::complete);
  ASSERT_EQ(out.settles.size(), 1u);
  EXPECT_EQ(out.settles[0].state, SettleState::bound_reached);
  EXPECT_EQ(db.get_run(out.run_id).suites[2].reason,
            "settle after gemm: not settled when its 2.0 s bound was reached (waited 2.0 s): gpu0 "
            "61 °C, 27 °C above the start (34 °C)");
}

TEST_F(SettleRun, NoGpuToReadMeansNoSettleAndTheRunSaysWhy) {
  results::Store db = store();
  auto none = std::make_shared<TraceSource>(std::vector<std::vector<SettleReading>>{});
  const RunOutcome out = execute_run(db, options({"gemm", "memory"}, none), nullptr);
  EXPECT_TRUE(out.settles.empty());
  EXPECT_EQ(out.settle_unavailable, "unavailable: no GPUs to read; no settle after gemm");
  const auto env = db.get_run(out.run_id).info.config.env;
  ASSERT_EQ(env.count(k_settle_env_key), 1u);
  EXPECT_EQ(env.at(k_settle_env_key), out.settle_unavailable);
  for (const auto& s : db.get_run(out.run_id).suites) EXPECT_EQ(s.reason, "");
}

TEST_F(SettleRun, WithoutAPowerHeavySuiteNothingIsReadOrRecorded) {
  results::Store db = store();
  auto source = std::make_shared<TraceSource>(
      std::vector<std::vector<SettleReading>>{{k_start, reading(345, 61, k_idle)}});
  const RunOutcome out = execute_run(db, options({"memory", "calibration"}, source), nullptr);
  EXPECT_TRUE(out.settles.empty());
  EXPECT_EQ(source->reads, 0);
  EXPECT_EQ(db.get_run(out.run_id).info.config.env.count(k_settle_env_key), 0u);
}

}  // namespace
}  // namespace gpubench::harness
