// Samples that ran on several GPUs at once (issue 37, allreduce review m7): an allreduce
// repetition has no GPU of its own, so its suite names the GPUs of each series
// ("gpubench.sample_devices" over "gpubench.devices", every node's GPUs) and classify_samples
// decides its states over each of them. FIXTURE data throughout: made-up UUIDs, clocks, windows
// and telemetry in the shape gpubench-allreduce writes, not measurements.
#include <gtest/gtest.h>

#include "helpers.hpp"
#include "results/sample_gpus.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/sample_state.hpp"

namespace gpubench::results {
namespace {

namespace ss = sample_state;
using nlohmann::json;

// FIXTURE: node 0 has four GPUs (the run's, NVML 0-3, max SM clock 1980 MHz); node 1 two
// more that only the suite saw (no telemetry, no expected clock in the store).
RunInfo node0_run() {
  RunInfo info = testing::sample_run_info();
  info.gpus.clear();
  for (int i = 0; i < 4; ++i) {
    GpuInfo g;
    g.nvml_index = i;
    g.uuid = "GPU-node0-" + std::to_string(i) + "-fixture";
    g.pci_bus_id = "0000:1" + std::to_string(i) + ":00.0";
    g.name = "NVIDIA H100 80GB HBM3";
    g.max_sm_clock_mhz = 1980;  // the expected clock of an unlocked GPU
    info.gpus.push_back(g);
  }
  return info;
}

json devices_record() {
  json d = json::array();
  for (int i = 0; i < 4; ++i) {
    d.push_back({{"index", i},
                 {"uuid", "GPU-node0-" + std::to_string(i) + "-fixture"},
                 {"host", "node0"},
                 {"rank", i},
                 {"local_rank", i}});
  }
  for (int i = 0; i < 2; ++i) {
    d.push_back({{"index", 4 + i},
                 {"uuid", "GPU-node1-" + std::to_string(i) + "-fixture"},
                 {"host", "node1"},
                 {"rank", 4 + i},
                 {"local_rank", i}});
  }
  return d;
}

// ranks:2 on GPUs 0-1, ranks:4 on 0-3 (first n world ranks), ranks:2/scope:inter_node on each
// node's local rank 0 (GPUs 0 and 4).
json sample_devices() {
  return json::array(
      {{{"params", {{"ranks", "2"}, {"scope", ""}}}, {"devices", {0, 1}}},
       {{"params", {{"ranks", "4"}, {"scope", ""}}}, {"devices", {0, 1, 2, 3}}},
       {{"params", {{"ranks", "2"}, {"scope", "inter_node"}}}, {"devices", {0, 4}}}});
}

json rep(const std::string& name, int repetition, double start_s, double clock_mhz) {
  return {{"name", name + "/manual_time"},
          {"run_name", name + "/manual_time"},
          {"run_type", "iteration"},
          {"repetition_index", repetition},
          {"iterations", 1},
          {"real_time", 100.0},
          {"cpu_time", 100.0},
          {"time_unit", "us"},
          {"busbw_GB_per_s", 300.0},
          {"sm_clock_MHz", clock_mhz},
          {"window_start_s", start_s},
          {"window_end_s", start_s + 1.0}};
}

const std::string k_two = "allreduce/allreduce/dtype:fp32/mode:out_of_place/bytes:1048576/ranks:2";
const std::string k_four = "allreduce/allreduce/dtype:fp32/mode:out_of_place/bytes:1048576/ranks:4";
const std::string k_nodes = k_two + "/scope:inter_node";

json allreduce_doc(const json& sets) {
  json benchmarks = json::array();
  // Repetition 0 at 1000-1001 s, repetition 1 at 1002-1003 s (CLOCK_MONOTONIC of rank 0's node);
  // the lowest clock probe over the series' GPUs: 1700 MHz at ranks:4 repetition 0 and across
  // the nodes.
  for (int r = 0; r < 2; ++r) {
    benchmarks.push_back(rep(k_two, r, 1000.0 + 2 * r, 1975.0));
    benchmarks.push_back(rep(k_four, r, 1000.0 + 2 * r, r == 0 ? 1700.0 : 1975.0));
  }
  benchmarks.push_back(rep(k_nodes, 0, 1004.0, 1700.0));
  return {{"context",
           {{"gpubench.suite", "allreduce"},
            {"gpubench.metrics",
             json::array({{{"name", "busbw_GB_per_s"}, {"unit", "GB/s"}, {"direction", "higher"}}})
                 .dump()},
            {"gpubench.devices", devices_record().dump()},
            {"gpubench.sample_devices", sets.dump()}}},
          {"benchmarks", benchmarks}};
}

class SampleGpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_run = m_store.begin_run(node0_run());
    m_suite_run = m_store.add_suite_run(m_run, testing::sample_suite_run("allreduce"));
  }
  // Per repetition of `benchmark`'s busbw: (throttled, power_limited, clock_below_expected).
  struct States {
    std::vector<int> throttled, power_limited, clock_below_expected;
  };
  States states_of(const std::string& benchmark) {
    for (const ResultRow& r : m_store.get_results(m_run)) {
      if (r.metric == "busbw_GB_per_s" && r.benchmark == benchmark + "/manual_time") {
        return {r.throttled, r.power_limited, r.clock_below_expected};
      }
    }
    ADD_FAILURE() << benchmark << " not stored";
    return {};
  }
  TempDir m_dir{"gpubench-test-sample-gpus"};
  Store m_store = Store::open(m_dir.path() / "gpubench.db", OpenMode::read_write_create);
  int64_t m_run = 0;
  int64_t m_suite_run = 0;
};

TEST_F(SampleGpusTest, AllreduceSamplesAreClassifiedOverEveryGpuOfTheirSeries) {
  m_store.ingest_benchmark_json(m_suite_run, allreduce_doc(sample_devices()), "allreduce");
  // FIXTURE telemetry, origin 990 s: t 10.5 = repetition 0, 12.5 = repetition 1, 14.5 = the
  // inter-node case. Every node-0 GPU reports each time; GPU 3 has a thermal slowdown (invalid
  // from one reading, unlike a transient HW slowdown) in repetition 0, GPU 1 the power cap in
  // repetition 1.
  std::vector<TelemetrySample> tel;
  for (double t : {10.5, 12.5, 14.5}) {
    for (int g = 0; g < 4; ++g) {
      TelemetrySample s;
      s.nvml_index = g;
      s.t_s = t;
      s.throttle_reasons = 0;
      if (g == 3 && t == 10.5) s.throttle_reasons = ss::reasons::sw_thermal_slowdown;
      if (g == 1 && t == 12.5) s.throttle_reasons = ss::reasons::sw_power_cap;
      tel.push_back(s);
    }
  }
  m_store.add_telemetry(m_run, m_suite_run, tel);
  m_store.classify_samples(m_suite_run, tel, 990.0, 0.1);

  // ranks:2 ran on GPUs 0-1: GPU 3's slowdown is not its; GPU 1's power cap is.
  const States two = states_of(k_two);
  EXPECT_EQ(two.throttled, (std::vector<int>{0, 0}));
  EXPECT_EQ(two.power_limited, (std::vector<int>{0, 1}));
  EXPECT_EQ(two.clock_below_expected, (std::vector<int>{0, 0}));  // 1975 >= 1980 - 2%
  // ranks:4 includes GPU 3: repetition 0 is invalid, and its 1700 MHz is below 1980.
  const States four = states_of(k_four);
  EXPECT_EQ(four.throttled, (std::vector<int>{1, 0}));
  EXPECT_EQ(four.power_limited, (std::vector<int>{0, 1}));
  EXPECT_EQ(four.clock_below_expected, (std::vector<int>{1, 0}));
  // Across nodes: node 1's GPU has no telemetry and no expected clock in the store, so "no
  // slowdown" is not proven (unknown); the lowest probe, 1700 MHz, is below GPU 0's 1980.
  const States nodes = states_of(k_nodes);
  EXPECT_EQ(nodes.throttled, (std::vector<int>{-1}));
  EXPECT_EQ(nodes.power_limited, (std::vector<int>{-1}));
  EXPECT_EQ(nodes.clock_below_expected, (std::vector<int>{1}));
}

TEST_F(SampleGpusTest, WithoutTheRecordAnAllreduceSampleStaysUnknown) {
  // The suite before issue 37: no gpubench.sample_devices, so no GPU to judge the samples by.
  json doc = allreduce_doc(json::array());
  doc["context"].erase("gpubench.sample_devices");
  m_store.ingest_benchmark_json(m_suite_run, doc, "allreduce");
  std::vector<TelemetrySample> tel(1);
  tel[0].nvml_index = 0;
  tel[0].t_s = 10.5;
  tel[0].throttle_reasons = ss::reasons::hw_slowdown;
  m_store.classify_samples(m_suite_run, tel, 990.0, 0.1);
  EXPECT_EQ(states_of(k_two).throttled, (std::vector<int>{-1, -1}));
}

TEST_F(SampleGpusTest, ASetNamingAnUnlistedDeviceIsBadInput) {
  json sets = sample_devices();
  sets[0]["devices"] = {0, 9};
  try {
    m_store.ingest_benchmark_json(m_suite_run, allreduce_doc(sets), "allreduce");
    FAIL() << "accepted a sample device set naming device 9";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("device 9"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gpubench.devices"), std::string::npos) << e.what();
  }
}

TEST(CombineGpuStates, TrueOnAnyFalseOnlyWhenAllKnown) {
  SampleStates clean{false, false, false}, hot{false, true, false}, blind{};
  EXPECT_EQ(combine_gpu_states({clean, clean}).thermal_or_hw_slowdown, false);
  EXPECT_EQ(combine_gpu_states({clean, hot}).thermal_or_hw_slowdown, true);
  EXPECT_EQ(combine_gpu_states({clean, blind}).thermal_or_hw_slowdown, std::nullopt);
  EXPECT_EQ(combine_gpu_states({blind, hot}).thermal_or_hw_slowdown, true);
  EXPECT_EQ(combine_gpu_states({}).power_limited, std::nullopt);
}

}  // namespace
}  // namespace gpubench::results
