// `gpubench import` of nvbandwidth, nvbench and CUDA samples outputs through the real CLI
// (issue 40, part B): every fixture in tests/fixtures/peers/{nvbandwidth,nvbench,cuda-samples}
// imports into a real SQLite file or is refused with exit 2 as its README says, and cut or
// broken tables are refused naming the line, with nothing stored.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_faults_support.hpp"
#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

std::string peer_fixture(const std::string& relative) {
  return std::string(GPUBENCH_SOURCE_DIR) + "/tests/fixtures/peers/" + relative;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The value stored for `benchmark`'s `metric` (one iteration sample), as text.
std::string stored(const Workspace& ws, const std::string& benchmark, const std::string& metric) {
  FaultDb db(ws.db());
  return db.scalar("SELECT value FROM v_samples WHERE benchmark = '" + benchmark +
                   "' AND metric = '" + metric + "' AND kind = 'iteration'");
}

struct Case {
  const char* file;
  const char* suite;
  int benchmarks;
  const char* benchmark;
  const char* metric;
  const char* value;
};

TEST(E2eImportPeersB, EveryMeasuredFixtureImportsWithItsValuesAndFacts) {
  const std::vector<Case> cases = {
      {"nvbandwidth/v0.6_gh200_superbench.txt", "nvbandwidth", 36,
       "nvbandwidth/host_device_latency_sm/src:host/dst:0", "latency_ns", "772.58"},
      {"nvbandwidth/v0.8_a100_issue42.txt", "nvbandwidth", 2,
       "nvbandwidth/host_to_device_memcpy_sm/src:host/dst:0/bytes:536870912", "GB_per_s", "25.13"},
      {"nvbandwidth/v0.10_azure_healthchecks.txt", "nvbandwidth", 9,
       "nvbandwidth/device_to_device_memcpy_read_ce/src:0/dst:1", "GB_per_s", "276.19"},
      {"nvbandwidth/v0.8_a100_constructed.json", "nvbandwidth", 2,
       "nvbandwidth/host_to_device_memcpy_sm/sum", "GB_per_s", "25.13"},
      {"nvbench/nvbench_axes_test_ref.json", "nvbench", 126,
       "nvbench/copy_type_sweep/t:f64/device:1", "elements_per_s", ""},
      {"nvbench/nvbench_auto_throughput_superbench.json", "nvbench", 2,
       "nvbench/throughput_bench/t:1/stride:1/blocksize:128/device:0", "gpu_time_us", "100.0"},
      {"nvbench/nvbench_sleep_kernel_markdown_superbench.md", "nvbench", 3,
       "nvbench/sleep_benchmark/duration_us:75/device:0", "gpu_time_us", "75.987"},
      {"cuda-samples/bandwidthTest_t4_gbs_cuda_demo.txt", "bandwidthTest", 3,
       "bandwidthTest/d2d/memory:pinned/bytes:32000000/device:0", "GB_per_s", "239.6"},
      {"cuda-samples/bandwidthTest_p100_mbs_gearshifft.txt", "bandwidthTest", 3,
       "bandwidthTest/h2d/memory:pinned/bytes:33554432/device:0", "GB_per_s",
       "12.7409324032"},  // 12150.7 MiB/s * 2^20 / 1e9: decimal GB/s
      {"cuda-samples/p2pBandwidthLatencyTest_rtx6000ada_stelline.txt", "p2pBandwidthLatencyTest",
       32, "p2pBandwidthLatencyTest/latency_gpu/p2p:enabled/src:1/dst:0", "latency_us", "1.14"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    Workspace ws;
    const CliResult r = ws.run({"import", peer_fixture(c.file)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "as run 1: " + std::to_string(c.benchmarks) + " benchmarks"))
        << r.out;
    FaultDb db(ws.db());
    EXPECT_EQ(db.scalar("SELECT suite FROM suite_runs"), c.suite);
    EXPECT_EQ(db.scalar("SELECT status FROM runs"), "complete");
    EXPECT_EQ(db.scalar("SELECT value FROM run_tags WHERE key = 'peer.tool'"), c.suite);
    const std::string v = stored(ws, c.benchmark, c.metric);
    ASSERT_FALSE(v.empty()) << c.benchmark << " " << c.metric;
    if (*c.value) {
      EXPECT_NEAR(std::stod(v), std::stod(c.value), 1e-9);
    }
  }
}

TEST(E2eImportPeersB, TheFilesEnvironmentIsTheRuns) {
  Workspace ws;
  ASSERT_EQ(ws.run({"import", peer_fixture("nvbandwidth/v0.8_a100_issue42.txt")}).exit_code, 0);
  const CliResult show = ws.run({"show", "1"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(contains(show.out, "NVIDIA A100-SXM4-40GB")) << show.out;
  EXPECT_TRUE(contains(show.out, "bus 0000:99:00.0")) << show.out;
  EXPECT_TRUE(contains(show.out, "driver 560.35.05, CUDA driver 12.6, CUDA runtime 12.6"))
      << show.out;
  FaultDb db(ws.db());
  const nlohmann::json ctx = nlohmann::json::parse(db.scalar("SELECT context FROM suite_runs"));
  EXPECT_EQ(ctx["peer.version"], "v0.8");
  EXPECT_EQ(ctx["peer.command"], "nvbandwidth -t host_to_device_memcpy_sm -b 512");
}

TEST(E2eImportPeersB, NothingMeasuredIsRefusedWith2AndNothingStored) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"nvbandwidth/v0.2label_2080ti_waived_issue13.txt",
       "nothing was measured: every testcase was waived (device_to_device_memcpy_write_ce)"},
      {"nvbandwidth/v0.7_a100_assert_issue34.txt",
       "nothing was measured: nvbandwidth stopped in device_to_device_memcpy_read_ce: ASSERT"},
  };
  for (const auto& [file, why] : cases) {
    SCOPED_TRACE(file);
    Workspace ws;
    const CliResult r = ws.run({"import", peer_fixture(file)});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.err, why)) << r.err;
    EXPECT_FALSE(fs::exists(ws.db()));
  }
}

TEST(E2eImportPeersB, CutOrBrokenTablesAreRefusedNamingTheLine) {
  struct Broken {
    std::string fixture, from, to, message;
    bool cut;  // true: the text is cut where `from` starts
  };
  const std::vector<Broken> cases = {
      {"nvbandwidth/v0.6_gh200_superbench.txt", "\nSUM host_to_device_memcpy_ce", "",
       "line 15: expected 'SUM host_to_device_memcpy_ce <value>' after the matrix", true},
      {"nvbandwidth/v0.10_azure_healthchecks.txt", "25.97", "25.9?",
       "line 14: expected a number or N/A in column 0", false},
      {"cuda-samples/p2pBandwidthLatencyTest_rtx6000ada_stelline.txt", "     1  31.45 808.33", "",
       "expected row 1 of 2", true},
      {"cuda-samples/bandwidthTest_p100_mbs_gearshifft.txt", "12890.6", "12,890.6",
       "line 16: expected '<transfer size in bytes> <bandwidth>' (two numbers)", false},
      {"nvbench/nvbench_sleep_kernel_markdown_superbench.md", "|  2.34% |", "|  2.34%",
       "line 42: expected 8 cells, one per header column", false},
  };
  for (const Broken& b : cases) {
    SCOPED_TRACE(b.fixture);
    Workspace ws;
    std::string text = slurp(peer_fixture(b.fixture));
    const std::size_t at = text.find(b.from);
    ASSERT_NE(at, std::string::npos);
    if (b.cut) {
      text = text.substr(0, at + (b.from.front() == '\n' ? 1 : 0));
    } else {
      text.replace(at, b.from.size(), b.to);
    }
    const fs::path file = ws.root() / "broken.txt";
    std::ofstream(file, std::ios::binary) << text;
    const CliResult r = ws.run({"import", file.string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(contains(r.err, b.message)) << r.err;
    EXPECT_TRUE(contains(r.err, "the database was not changed")) << r.err;
    EXPECT_FALSE(fs::exists(ws.db()));
  }
}

TEST(E2eImportPeersB, FormatForcesAReaderAndAWrongOneIsRefused) {
  Workspace ws;
  const std::string v010 = peer_fixture("nvbandwidth/v0.10_azure_healthchecks.txt");
  const CliResult wrong = ws.run({"import", "--format", "p2pBandwidthLatencyTest", v010});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_TRUE(contains(wrong.err, "as p2pBandwidthLatencyTest (nothing was measured")) << wrong.err;
  const CliResult right = ws.run({"import", "--format", "nvbandwidth", v010});
  EXPECT_EQ(right.exit_code, 0) << right.err;
}

TEST(E2eImportPeersB, NvbenchSampleFilesNextToTheJsonAreItsRepetitions) {
  // FIXTURE, constructed from nvbench's JSON writer (nvbench/json_printer.cu, commit 66212f1):
  // a state naming its sample file, float32 seconds; values invented.
  Workspace ws;
  const nlohmann::json doc = {
      {"benchmarks",
       {{{"name", "copy"},
         {"states",
          {{{"name", "Device=0"},
            {"device", 0},
            {"axis_values", nullptr},
            {"is_skipped", false},
            {"summaries",
             {{{"tag", "nv/cold/time/gpu/mean"},
               {"data", {{{"name", "value"}, {"type", "float64"}, {"value", "2.5e-06"}}}}},
              {{"tag", "nv/json/bin:nv/cold/sample_times"},
               {"data",
                {{{"name", "filename"}, {"type", "string"}, {"value", "result.json-bin/0.bin"}},
                 {{"name", "size"}, {"type", "int64"}, {"value", "3"}}}}}}}}}}}}}};
  std::ofstream(ws.root() / "result.json") << doc.dump(2);
  fs::create_directories(ws.root() / "result.json-bin");
  const float samples[3] = {1e-6f, 2e-6f, 4e-6f};
  std::ofstream(ws.root() / "result.json-bin/0.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(samples), sizeof samples);
  const CliResult r = ws.run({"import", (ws.root() / "result.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  FaultDb db(ws.db());
  EXPECT_EQ(db.scalar("SELECT COUNT(*) FROM v_samples WHERE metric = 'gpu_time_us' AND kind = "
                      "'iteration'"),
            "3");
  EXPECT_NEAR(std::stod(db.scalar("SELECT value FROM v_samples WHERE metric = 'gpu_time_us' AND "
                                  "kind = 'mean'")),
              2.5, 1e-9);
}

TEST(E2eImportPeersB, AToolThatStoppedAfterSomeResultsIsAFailedRun) {
  // FIXTURE: the real v0.8 output with the v0.7 run's pattern error appended as a second
  // testcase, to show a run that measured before it stopped.
  Workspace ws;
  std::string text = slurp(peer_fixture("nvbandwidth/v0.8_a100_issue42.txt"));
  text +=
      "Running device_to_device_memcpy_read_ce.\n"
      " Invalid value when checking the pattern at 0x70a640000000\n";
  const fs::path file = ws.root() / "stopped.txt";
  std::ofstream(file, std::ios::binary) << text;
  const CliResult r = ws.run({"import", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  FaultDb db(ws.db());
  EXPECT_EQ(db.scalar("SELECT status FROM runs"), "failed");
  EXPECT_EQ(db.scalar("SELECT reason FROM suite_runs"),
            "nvbandwidth stopped in device_to_device_memcpy_read_ce: Invalid value when checking "
            "the pattern at 0x70a640000000");
  EXPECT_EQ(stored(ws, "nvbandwidth/host_to_device_memcpy_sm/sum/bytes:536870912", "GB_per_s"),
            "25.13");
}

}  // namespace
}  // namespace gpubench::e2e
