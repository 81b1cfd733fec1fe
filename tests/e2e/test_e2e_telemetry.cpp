// GPU telemetry end to end: `gpubench run` without a usable NVML says so and still succeeds;
// `gpubench show` marks results whose suite run saw throttling (FIXTURE database written through
// the store API, then read by the real binary).
#include <nlohmann/json.hpp>
#include <sstream>

#include "e2e_support.hpp"
#include "harness/probe/nvml.hpp"
#include "harness/run/runner.hpp"
#include "results/ingest/ingest.hpp"
#include "results/store.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

std::vector<std::string> tokens_of_line_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(needle) == std::string::npos) continue;
    std::istringstream words(line);
    std::vector<std::string> out;
    for (std::string w; words >> w;) out.push_back(w);
    return out;
  }
  return {};
}

bool has_token(const std::vector<std::string>& tokens, const std::string& t) {
  return std::find(tokens.begin(), tokens.end(), t) != tokens.end();
}

TEST(E2eTelemetry, RunRecordsWhyTelemetryIsUnavailable) {
  harness::Nvml nvml;
  const bool have_gpus = nvml.available() && nvml.device_count() > 0;
  Workspace ws;
  const CliResult run = ws.run({"run", "--suite", "fixture_ok", "--profile", "quick", ws.db_arg()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const CliResult show_json = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  ASSERT_EQ(show_json.exit_code, 0) << show_json.err;
  const json sj = json::parse(show_json.out);
  const json& env = sj["environment"]["configuration"]["env"];
  if (have_gpus) {
    EXPECT_TRUE(contains(run.out, "telemetry: sampled every 100 ms")) << run.out;
    EXPECT_FALSE(env.contains(harness::k_telemetry_env_key)) << env.dump();
    EXPECT_EQ(sj["telemetry"]["recorded"], true);
    return;
  }
  // This machine: no NVIDIA driver (or no GPU). The run says so, stores it, and succeeds.
  EXPECT_TRUE(contains(run.out, "telemetry: unavailable: ")) << run.out;
  ASSERT_TRUE(env.contains(harness::k_telemetry_env_key)) << env.dump();
  const std::string recorded = env[harness::k_telemetry_env_key];
  EXPECT_EQ(recorded.rfind("unavailable: ", 0), 0u) << recorded;
  EXPECT_GT(recorded.size(), std::string("unavailable: ").size());
  EXPECT_EQ(sj["telemetry"]["recorded"], false);
  EXPECT_EQ(sj["telemetry"]["reason"], recorded);
  for (const auto& r : sj["results"]) EXPECT_TRUE(r["telemetry_throttled"].is_null()) << r.dump();

  const CliResult show = ws.run({"show", "latest", ws.db_arg()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(contains(show.out, "telemetry " + recorded)) << show.out;
}

TEST(E2eTelemetry, DisabledByTheEnvironmentAndBadValuesAreUsageErrors) {
  Workspace ws;
  const CliResult off = ws.run({"run", "--suite", "fixture_ok", "--profile", "quick", ws.db_arg()},
                               {{"GPUBENCH_TELEMETRY_INTERVAL_MS", "0"}});
  ASSERT_EQ(off.exit_code, 0) << off.out << off.err;
  EXPECT_TRUE(contains(off.out, "telemetry: disabled: GPUBENCH_TELEMETRY_INTERVAL_MS=0"))
      << off.out;
  const CliResult bad = ws.run({"run", "--suite", "fixture_ok", ws.db_arg()},
                               {{"GPUBENCH_TELEMETRY_INTERVAL_MS", "fast"}});
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_TRUE(contains(bad.err, "GPUBENCH_TELEMETRY_INTERVAL_MS")) << bad.err;
}

// FIXTURE: two made-up benchmarks, one per GPU, three repetitions each. Not measurements.
constexpr const char* k_fixture_json = R"json({
  "context": {"gpubench.suite": "fixture_gpu",
              "gpubench.devices": "[{\"index\":0,\"uuid\":\"GPU-FIXTURE-0\"},{\"index\":1,\"uuid\":\"GPU-FIXTURE-1\"}]"},
  "benchmarks": [
    {"name": "fixture_gpu/busy/device:0", "run_type": "iteration", "repetition_index": 0,
     "iterations": 10, "real_time": 100.0, "cpu_time": 100.0, "time_unit": "ns", "device_index": 0},
    {"name": "fixture_gpu/busy/device:0", "run_type": "iteration", "repetition_index": 1,
     "iterations": 10, "real_time": 101.0, "cpu_time": 101.0, "time_unit": "ns", "device_index": 0},
    {"name": "fixture_gpu/cool/device:1", "run_type": "iteration", "repetition_index": 0,
     "iterations": 10, "real_time": 90.0, "cpu_time": 90.0, "time_unit": "ns", "device_index": 1},
    {"name": "fixture_gpu/cool/device:1", "run_type": "iteration", "repetition_index": 1,
     "iterations": 10, "real_time": 91.0, "cpu_time": 91.0, "time_unit": "ns", "device_index": 1}
  ]
})json";

TEST(E2eTelemetry, ShowMarksResultsWhoseSuiteRunThrottled) {
  Workspace ws;
  {
    results::Store store = results::Store::open(ws.db(), results::OpenMode::read_write_create);
    results::RunInfo info;
    info.note = "FIXTURE telemetry run";
    for (int i = 0; i < 2; ++i) {
      results::GpuInfo g;
      g.nvml_index = i;
      g.uuid = "GPU-FIXTURE-" + std::to_string(i);
      g.name = "Fixture GPU";
      info.gpus.push_back(g);
    }
    const int64_t run = store.begin_run(info);
    results::SuiteRunInfo s;
    s.suite = "fixture_gpu";
    s.executable = "gpubench-fixture_gpu";
    const int64_t sr = store.add_suite_run(run, s);
    store.ingest_benchmark_json(sr, results::parse_benchmark_json(k_fixture_json, "fixture"),
                                "fixture_gpu");
    // FIXTURE telemetry: GPU 0 hits the SW thermal slowdown, GPU 1 is merely idle part-time.
    std::vector<results::TelemetrySample> t;
    for (int k = 0; k < 4; ++k) {
      for (int d = 0; d < 2; ++d) {
        results::TelemetrySample x;
        x.nvml_index = d;
        x.t_s = 0.1 * k;
        x.sm_clock_mhz = d == 0 && k >= 2 ? 1200 : 1980;
        x.temperature_c = d == 0 ? 85 + k : 50;
        x.power_w = 300;
        x.throttle_reasons = d == 0 && k >= 2 ? harness::throttle::sw_thermal_slowdown
                                              : (k % 2 ? harness::throttle::gpu_idle : 0);
        t.push_back(x);
      }
    }
    store.add_telemetry(run, sr, t);
    store.finish_run(run, results::RunStatus::complete);
  }
  const CliResult show = ws.run({"show", "latest", ws.db_arg()});
  // Names are shown without the prefix every row shares (issue 26: text fits the terminal).
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(has_token(tokens_of_line_with(show.out, "busy/device:0"), "T")) << show.out;
  EXPECT_FALSE(has_token(tokens_of_line_with(show.out, "cool/device:1"), "T")) << show.out;
  EXPECT_TRUE(contains(show.out, "T: NVML telemetry saw thermal/HW slowdown")) << show.out;
  EXPECT_TRUE(contains(show.out, "telemetry gpu 0 (GPU-FIXTURE-0): 4 samples, max 88 C"))
      << show.out;
  EXPECT_TRUE(contains(show.out, "thermal/HW slowdown 2/4, power-limited 0/4 in fixture_gpu"))
      << show.out;
  EXPECT_TRUE(contains(show.out, "telemetry gpu 1 (GPU-FIXTURE-1): 4 samples")) << show.out;

  const CliResult js = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json j = json::parse(js.out);
  int checked = 0;
  for (const auto& r : j["results"]) {
    const bool busy = r["benchmark"] == "fixture_gpu/busy/device:0";
    EXPECT_EQ(r["telemetry_throttled"], busy) << r.dump();
    ++checked;
  }
  EXPECT_GE(checked, 4);  // real_time and cpu_time of both benchmarks
  ASSERT_EQ(j["telemetry"]["gpus"].size(), 2u);
  EXPECT_EQ(j["telemetry"]["gpus"][0]["throttled_samples"], 2);
  EXPECT_EQ(j["telemetry"]["gpus"][0]["min_sm_clock_mhz"], 1200.0);
  EXPECT_EQ(j["telemetry"]["gpus"][1]["throttled_samples"], 0);
}

}  // namespace
}  // namespace gpubench::e2e
