// nvbench --json files and markdown tables read into peer documents
// (results/peers/peers_nvbench.cpp), on the real outputs in tests/fixtures/peers/nvbench/.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "results/peers/peers_nvbench.hpp"
#include "tests/results/peers_test_support.hpp"
#include "util/fs.hpp"

namespace gpubench::results::peers {
namespace {

using testing::context_json;
using testing::entries;
using testing::peer_fixture_path;
using testing::read_peer_fixture;
using testing::refusal;
using testing::value_of;

TEST(PeersNvbench, DetectsJsonAndMarkdownButNotGoogleBenchmarkJson) {
  EXPECT_TRUE(detect_nvbench(read_peer_fixture("nvbench/nvbench_axes_test_ref.json")));
  EXPECT_TRUE(detect_nvbench(read_peer_fixture("nvbench/nvbench_auto_throughput_superbench.json")));
  EXPECT_TRUE(
      detect_nvbench(read_peer_fixture("nvbench/nvbench_sleep_kernel_markdown_superbench.md")));
  EXPECT_FALSE(detect_nvbench("{\"context\": {}, \"benchmarks\": [{\"name\": \"x\"}]}"));
  EXPECT_FALSE(detect_nvbench(read_peer_fixture("nvbandwidth/v0.8_a100_constructed.json")));
}

TEST(PeersNvbench, JsonStatesWithAxesDevicesSummariesAndSkips) {
  const PeerDocument doc =
      parse_nvbench(read_peer_fixture("nvbench/nvbench_axes_test_ref.json"), "ref.json");
  const nlohmann::json& ctx = doc.document["context"];
  EXPECT_EQ(ctx["gpubench.suite"], "nvbench");
  EXPECT_EQ(ctx["peer.version"], "0.1.0 (old-cmake-63-g348acbd)");
  EXPECT_EQ(ctx["peer.command"].get<std::string>().rfind("bin/nvbench.example.axes --json", 0), 0u);
  const nlohmann::json devices = context_json(doc, "gpubench.devices");
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1]["index"], 1);
  EXPECT_EQ(devices[1]["name"], "Quadro GP100");
  // "simple", Device=0: seconds in the file, microseconds here.
  EXPECT_NEAR(value_of(doc, "nvbench/simple/device:0", "gpu_time_us"), 1003.4715849794225, 1e-9);
  EXPECT_NEAR(value_of(doc, "nvbench/simple/device:0", "cpu_time_us"), 1009.4458717434867, 1e-9);
  EXPECT_NEAR(value_of(doc, "nvbench/simple/device:0", "batch_gpu_time_us"), 1001.475909284053,
              1e-9);
  EXPECT_NEAR(value_of(doc, "nvbench/simple/device:0", "noise_pct"), 0.05782350585973689, 1e-12);
  EXPECT_NEAR(entries(doc, "nvbench/simple/device:0")[0]["real_time"].get<double>(),
              1003.4715849794225, 1e-9);
  // Axes as name parts; bandwidth in decimal GB/s.
  const std::string grid = "nvbench/copy_sweep_grid_shape/blocksize:64/numblocks:64/device:0";
  EXPECT_NEAR(value_of(doc, grid, "GB_per_s"), 82.7777656062663, 1e-9);
  EXPECT_NEAR(value_of(doc, grid, "elements_per_s"), 10347220700.783287, 1e-3);
  EXPECT_FALSE(entries(doc, "nvbench/copy_type_sweep/t:u8/device:0").empty());
  // A skipped state keeps nvbench's reason.
  const std::vector<nlohmann::json> skipped =
      entries(doc, "nvbench/copy_type_conversion_sweep/in:i8/out:i8/device:0");
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_TRUE(skipped[0]["error_occurred"].get<bool>());
  EXPECT_EQ(skipped[0]["error_message"], "skipped: Not a conversion: InputType == OutputType.");
  // 126 states, one entry each.
  EXPECT_EQ(doc.document["benchmarks"].size(), 126u);
}

TEST(PeersNvbench, JsonWithoutDevicesOrMetaTakesTheDeviceFromTheStateName) {
  const PeerDocument doc =
      parse_nvbench(read_peer_fixture("nvbench/nvbench_auto_throughput_superbench.json"), "t.json");
  const std::string name = "nvbench/throughput_bench/t:2/stride:4/blocksize:256/device:0";
  EXPECT_NEAR(value_of(doc, name, "gpu_time_us"), 200.0, 1e-9);
  EXPECT_NEAR(value_of(doc, name, "elements_per_s"), 2e11, 1e-3);
  EXPECT_FALSE(doc.document["context"].contains("peer.version"));
}

TEST(PeersNvbench, SampleFilesNextToTheJsonBecomeRepetitionsElseANote) {
  // FIXTURE, constructed from nvbench's JSON writer (nvbench/json_printer.cu, commit 66212f1:
  // "nv/json/bin:nv/cold/sample_times" with filename and size, float32 seconds); values invented.
  TempDir dir("peers-nvbench");
  const std::filesystem::path json_path = dir.path() / "result.json";
  const nlohmann::json doc_json = {
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
  std::ofstream(json_path) << doc_json.dump(2);
  const std::string text = doc_json.dump(2);
  // Without the sample file: the summary, and a note.
  const PeerDocument without = parse_nvbench(text, json_path.string());
  EXPECT_EQ(entries(without, "nvbench/copy/device:0").size(), 1u);
  EXPECT_EQ(without.document["context"]["peer.sample_files"],
            "0 read, 1 not next to the file (e.g. result.json-bin/0.bin): summaries only");
  // With it: three repetitions of gpu_time_us and the summary as the "mean" aggregate.
  std::filesystem::create_directories(dir.path() / "result.json-bin");
  const float samples[3] = {1e-6f, 2e-6f, 4e-6f};
  std::ofstream(dir.path() / "result.json-bin/0.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(samples), sizeof samples);
  const PeerDocument with = parse_nvbench(text, json_path.string());
  const std::vector<nlohmann::json> e = entries(with, "nvbench/copy/device:0");
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0]["repetitions"], 3);
  EXPECT_EQ(e[2]["repetition_index"], 2);
  EXPECT_NEAR(e[2]["gpu_time_us"].get<double>(), 4.0, 1e-6);
  EXPECT_EQ(e[3]["run_type"], "aggregate");
  EXPECT_EQ(e[3]["aggregate_name"], "mean");
  EXPECT_NEAR(e[3]["gpu_time_us"].get<double>(), 2.5, 1e-9);
  EXPECT_EQ(with.document["context"]["peer.sample_files"], "1 read");
}

TEST(PeersNvbench, MarkdownTablesWithUnits) {
  const PeerDocument doc = parse_nvbench(
      read_peer_fixture("nvbench/nvbench_sleep_kernel_markdown_superbench.md"), "s.md");
  const std::string name = "nvbench/sleep_benchmark/duration_us:50/device:0";
  EXPECT_DOUBLE_EQ(value_of(doc, name, "gpu_time_us"), 50.654);
  EXPECT_DOUBLE_EQ(value_of(doc, name, "cpu_time_us"), 68.456);
  EXPECT_DOUBLE_EQ(value_of(doc, name, "noise_pct"), 0.45);  // the Noise after GPU Time
  EXPECT_DOUBLE_EQ(value_of(doc, name, "batch_gpu_time_us"), 49.321);
  EXPECT_EQ(doc.document["benchmarks"].size(), 3u);
  EXPECT_EQ(context_json(doc, "gpubench.devices")[0]["name"], "NVIDIA GPU");
}

TEST(PeersNvbench, BrokenInputIsRefusedNamingWhere) {
  std::string json_text = read_peer_fixture("nvbench/nvbench_auto_throughput_superbench.json");
  json_text.replace(json_text.find("\"2.00e-04\""), 10, "\"2.00e-0x\"");
  const std::string why = refusal([&] { parse_nvbench(json_text, "bad.json"); });
  EXPECT_NE(why.find("expected a number as the summary's \"value\" at "
                     "benchmarks[0].states[1].summaries[6] ('nv/cold/time/gpu/mean')"),
            std::string::npos)
      << why;
  std::string md = read_peer_fixture("nvbench/nvbench_sleep_kernel_markdown_superbench.md");
  md.replace(md.find("50.654 us"), 9, "50.654 yr");
  const std::string why2 = refusal([&] { parse_nvbench(md, "bad.md"); });
  EXPECT_NE(why2.find("line 42: expected a time in column 'GPU Time'"), std::string::npos) << why2;
  // A cut table: the header and its rule, no rows.
  std::string cut = read_peer_fixture("nvbench/nvbench_sleep_kernel_markdown_superbench.md");
  cut = cut.substr(0, cut.find("|            25 |"));
  const std::string why3 = refusal([&] { parse_nvbench(cut, "cut.md"); });
  EXPECT_NE(why3.find("the table is cut"), std::string::npos) << why3;
}

}  // namespace
}  // namespace gpubench::results::peers
