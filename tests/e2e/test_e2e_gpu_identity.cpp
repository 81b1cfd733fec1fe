// Issue 11 end to end through the real CLI: `gpubench import` of gemm-shaped Google Benchmark
// files (FIXTURES: made-up UUIDs and numbers, not measurements) with two devices stores each
// result under its own GPU's UUID, keeps sm_clock_MHz as sample state, and `gpubench compare`
// of two such files compares no clock metric.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "e2e_support.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

// The suite's CUDA ordinal 0 is GPU-...-B and ordinal 1 GPU-...-A (listed out of order, as the
// gemm suite writes it: a JSON string in the context). `scale` shifts the throughput.
std::string gemm_file(double scale) {
  const json devices =
      json::array({{{"index", 1}, {"uuid", "GPU-FIXTURE-A"}, {"pci_bus_id", "0000:19:00.0"}},
                   {{"index", 0}, {"uuid", "GPU-FIXTURE-B"}, {"pci_bus_id", "0000:3B:00.0"}}});
  const json metrics =
      json::array({{{"name", "TFLOP_per_s"}, {"unit", "TFLOP/s"}, {"direction", "higher"}},
                   {{"name", "time_per_call_us"}, {"unit", "us"}, {"direction", "lower"}}});
  json doc;
  doc["context"] = {{"date", "2026-12-03T07:00:00+00:00"},
                    {"gpubench.suite", "gemm"},
                    {"gpubench.metrics", metrics.dump()},
                    {"gpubench.devices", devices.dump()}};
  doc["benchmarks"] = json::array();
  for (int d = 0; d < 2; ++d) {
    const std::string name =
        "gemm/bf16/m:4096/n:4096/k:4096/cache:hot/device:" + std::to_string(d) + "/manual_time";
    for (int rep = 0; rep < 5; ++rep) {
      const double tflops = (600.0 + 10 * d + rep * 0.5) * scale;
      doc["benchmarks"].push_back(
          iteration_entry({.name = name,
                           .repetition = rep,
                           .repetitions = 5,
                           .iterations = 20,
                           .real_time = 229.0 / scale,
                           .cpu_time = 10.0,
                           .time_unit = "us"},
                          {{"TFLOP_per_s", tflops},
                           {"time_per_call_us", 229.0 / scale},
                           // the clock differs a lot between the files: never a metric
                           {"sm_clock_MHz", scale > 1 ? 1980.0 - rep : 1410.0 + rep}}));
    }
  }
  return doc.dump(1);
}

TEST(E2eGpuIdentity, ImportTiesResultsToUuidsAndCompareHasNoClockMetric) {
  Workspace ws;
  const fs::path a = ws.root() / "gemm_a.json";
  const fs::path b = ws.root() / "gemm_b.json";
  write_file_atomic(a, gemm_file(1.0));
  write_file_atomic(b, gemm_file(1.3));
  for (const fs::path& f : {a, b}) {
    const CliResult r = ws.run({"import", f.string(), ws.db_arg()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  {
    results::Store store = results::Store::open(ws.db(), results::OpenMode::read_only);
    results::Statement st = store.database().prepare(
        "SELECT DISTINCT device_index, gpu_uuid, metric FROM v_samples WHERE kind = "
        "'iteration' ORDER BY device_index, metric");
    std::map<int64_t, std::set<std::string>> uuids;
    std::set<std::string> metrics;
    while (st.step()) {
      uuids[st.column_int64(0)].insert(st.column_text(1));
      metrics.insert(st.column_text(2));
    }
    EXPECT_EQ(uuids[0], std::set<std::string>{"GPU-FIXTURE-B"});
    EXPECT_EQ(uuids[1], std::set<std::string>{"GPU-FIXTURE-A"});
    EXPECT_EQ(metrics.count("sm_clock_MHz"), 0u);
    for (const std::string& m : metrics) EXPECT_EQ(m.find("clock"), std::string::npos) << m;
    results::Statement clock = store.database().prepare(
        "SELECT min(sm_clock_mhz), max(sm_clock_mhz) FROM v_samples WHERE metric = "
        "'TFLOP_per_s' AND kind = 'iteration'");
    ASSERT_TRUE(clock.step());
    EXPECT_EQ(clock.column_double(0), 1410.0);
    EXPECT_EQ(clock.column_double(1), 1980.0);
  }
  // `show --format json` names each result's GPU by UUID next to its CUDA ordinal, with the
  // per-sample states (unknown here: an import has no telemetry and no expected clock).
  const CliResult show = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  int tied = 0;
  const json shown = json::parse(show.out);
  for (const auto& r : shown["results"]) {
    if (r["metric"] != "TFLOP_per_s") continue;
    EXPECT_EQ(r["gpu_uuid"], r["cuda_ordinal"] == 0 ? "GPU-FIXTURE-B" : "GPU-FIXTURE-A")
        << r.dump();
    EXPECT_EQ(r["power_limited"], json::array({-1, -1, -1, -1, -1})) << r.dump();
    ++tied;
  }
  EXPECT_EQ(tied, 2);
  const CliResult cmp =
      ws.run({"compare", "latest~1", "latest", "--format", "json", "--history", "0", ws.db_arg()});
  ASSERT_TRUE(cmp.exit_code == 0 || cmp.exit_code == 1) << cmp.out << cmp.err;
  // Every "metric" value anywhere in the JSON report.
  const std::string text = json::parse(cmp.out).dump();
  std::set<std::string> compared;
  const std::regex metric_re("\"metric\":\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), metric_re);
       it != std::sregex_iterator(); ++it) {
    compared.insert((*it)[1].str());
  }
  EXPECT_TRUE(compared.count("TFLOP_per_s")) << cmp.out;
  for (const std::string& m : compared) {
    EXPECT_EQ(m.find("clock"), std::string::npos) << "compare compared a clock: " << m;
  }
}

}  // namespace
}  // namespace gpubench::e2e
