// nvbandwidth text and --json read into peer documents (results/peers/peers_nvbandwidth.cpp),
// on the real outputs in tests/fixtures/peers/nvbandwidth/ and on cuts of them.
#include <gtest/gtest.h>

#include <string>

#include "results/peers/peers_nvbandwidth.hpp"
#include "tests/results/peers_test_support.hpp"

namespace gpubench::results::peers {
namespace {

using testing::context_json;
using testing::entries;
using testing::read_peer_fixture;
using testing::refusal;
using testing::value_of;

TEST(PeersNvbandwidth, DetectsTextOfEveryVersionAndJsonButNotOtherTools) {
  for (const char* f :
       {"nvbandwidth/v0.6_gh200_superbench.txt", "nvbandwidth/v0.8_a100_issue42.txt",
        "nvbandwidth/v0.10_azure_healthchecks.txt", "nvbandwidth/v0.8_a100_constructed.json",
        "nvbandwidth/v0.2label_2080ti_waived_issue13.txt"}) {
    EXPECT_TRUE(detect_nvbandwidth(read_peer_fixture(f))) << f;
  }
  EXPECT_FALSE(detect_nvbandwidth(read_peer_fixture("nvbench/nvbench_axes_test_ref.json")));
  EXPECT_FALSE(detect_nvbandwidth(
      read_peer_fixture("cuda-samples/p2pBandwidthLatencyTest_rtx6000ada_stelline.txt")));
  EXPECT_FALSE(detect_nvbandwidth("{\"context\": {}, \"benchmarks\": []}"));
}

TEST(PeersNvbandwidth, V06EveryTestcaseWithHostDirectionsLatencyAndSums) {
  const PeerDocument doc =
      parse_nvbandwidth(read_peer_fixture("nvbandwidth/v0.6_gh200_superbench.txt"), "f.txt");
  EXPECT_EQ(doc.format, "nvbandwidth");
  EXPECT_TRUE(doc.failure.empty());
  const nlohmann::json& ctx = doc.document["context"];
  EXPECT_EQ(ctx["gpubench.suite"], "nvbandwidth");
  EXPECT_EQ(ctx["peer.tool"], "nvbandwidth");
  EXPECT_EQ(ctx["peer.version"], "v0.6");
  EXPECT_EQ(ctx["gpubench.cuda_runtime_version"], "12.4");
  EXPECT_EQ(ctx["gpubench.driver_version"], "550.54.15");
  EXPECT_EQ(ctx["peer.waived_testcases"], "17");
  const nlohmann::json devices = context_json(doc, "gpubench.devices");
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0]["name"], "NVIDIA GH200 480GB");
  EXPECT_EQ(devices[0]["pci_bus_id"], "0009:01:00.0");
  // CPU(row) -> GPU(column): host to GPU j; this matrix has two CPU rows: host0, host1.
  EXPECT_DOUBLE_EQ(
      value_of(doc, "nvbandwidth/host_to_device_memcpy_ce/src:host1/dst:2", "GB_per_s"), 312.11);
  // CPU(row) <- GPU(column): GPU j to host.
  EXPECT_DOUBLE_EQ(value_of(doc, "nvbandwidth/device_to_host_memcpy_ce/src:1/dst:host", "GB_per_s"),
                   312.11);
  // Bidirectional host testcases: the name says which way was measured.
  EXPECT_DOUBLE_EQ(
      value_of(doc, "nvbandwidth/device_to_host_bidirectional_memcpy_ce/src:0/dst:host",
               "GB_per_s"),
      187.26);
  EXPECT_DOUBLE_EQ(
      value_of(doc, "nvbandwidth/host_to_device_bidirectional_memcpy_ce/src:host/dst:0",
               "GB_per_s"),
      176.92);
  EXPECT_DOUBLE_EQ(value_of(doc, "nvbandwidth/host_device_latency_sm/src:host/dst:0", "latency_ns"),
                   772.58);
  EXPECT_DOUBLE_EQ(value_of(doc, "nvbandwidth/host_to_device_memcpy_ce/sum", "GB_per_s"), 1985.60);
  const nlohmann::json metrics = context_json(doc, "gpubench.metrics");
  ASSERT_EQ(metrics.size(), 2u);
  EXPECT_EQ(metrics[0]["name"], "GB_per_s");
  EXPECT_EQ(metrics[1]["name"], "latency_ns");
  EXPECT_EQ(metrics[1]["direction"], "lower");
  // 6 + 2 + 13 single-value matrices, and 15 SUM lines.
  EXPECT_EQ(doc.document["benchmarks"].size(), 6u + 2u + 13u + 15u);
  // nvbandwidth states rates, no time per iteration: no made-up real_time / cpu_time sample.
  for (const nlohmann::json& e : doc.document["benchmarks"]) {
    EXPECT_FALSE(e.contains("real_time")) << e.dump();
    EXPECT_FALSE(e.contains("cpu_time")) << e.dump();
  }
}

TEST(PeersNvbandwidth, V08CommandLineGivesTheBufferSizeAndPciAddresses) {
  const PeerDocument doc =
      parse_nvbandwidth(read_peer_fixture("nvbandwidth/v0.8_a100_issue42.txt"), "f.txt");
  const nlohmann::json& ctx = doc.document["context"];
  EXPECT_EQ(ctx["peer.command"], "nvbandwidth -t host_to_device_memcpy_sm -b 512");
  EXPECT_EQ(ctx["peer.version"], "v0.8");
  // -b 512 (MiB) = 536870912 bytes.
  EXPECT_DOUBLE_EQ(
      value_of(doc, "nvbandwidth/host_to_device_memcpy_sm/src:host/dst:0/bytes:536870912",
               "GB_per_s"),
      25.13);
  EXPECT_EQ(context_json(doc, "gpubench.devices")[0]["pci_bus_id"], "0000:99:00.0");
}

TEST(PeersNvbandwidth, V010GpuRowCpuColumnAndNotAvailableCells) {
  const PeerDocument doc =
      parse_nvbandwidth(read_peer_fixture("nvbandwidth/v0.10_azure_healthchecks.txt"), "f.txt");
  // "GPU(row) -> CPU(column)" with two CPU columns.
  EXPECT_DOUBLE_EQ(
      value_of(doc, "nvbandwidth/device_to_host_memcpy_ce/src:0/dst:host1", "GB_per_s"), 26.00);
  // "GPU(row) <- GPU(column)": column j is read by row i; N/A cells are not values.
  EXPECT_DOUBLE_EQ(
      value_of(doc, "nvbandwidth/device_to_device_memcpy_read_ce/src:1/dst:0", "GB_per_s"), 276.07);
  EXPECT_TRUE(entries(doc, "nvbandwidth/device_to_device_memcpy_read_ce/src:0/dst:0").empty());
  EXPECT_FALSE(doc.document["context"].contains("peer.version"));
}

TEST(PeersNvbandwidth, JsonReadsLikeTheText) {
  const PeerDocument doc =
      parse_nvbandwidth(read_peer_fixture("nvbandwidth/v0.8_a100_constructed.json"), "f.json");
  EXPECT_DOUBLE_EQ(value_of(doc, "nvbandwidth/host_to_device_memcpy_sm/src:host/dst:0", "GB_per_s"),
                   25.13);
  EXPECT_DOUBLE_EQ(value_of(doc, "nvbandwidth/host_to_device_memcpy_sm/sum", "GB_per_s"), 25.13);
  EXPECT_EQ(doc.document["context"]["host_name"], "fixture-host");
  EXPECT_EQ(doc.document["context"]["gpubench.cuda_runtime_version"], "12.6");
  const nlohmann::json devices = context_json(doc, "gpubench.devices");
  EXPECT_EQ(devices[0]["name"], "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(devices[0]["pci_bus_id"], "0000:99:00.0");
}

TEST(PeersNvbandwidth, MultinodeProcessesGiveEachRankItsHostAndBidirectionalMatrices) {
  // FIXTURE, constructed from nvbandwidth's multinode printing (output.cpp, printGPUsMultinode,
  // commit 66746a3) and a CE bidirectional testcase's three matrices; values invented.
  const std::string text =
      "nvbandwidth Version: v0.8\n"
      "Process 0 (node-a): device 0: NVIDIA GB200 (00000008:06:00)\n"
      "Process 1 (node-b): device 0: NVIDIA GB200 (00000008:06:00)\n"
      "\n"
      "Running multinode_device_to_device_bidirectional_memcpy_read_ce.\n"
      "memcpy CE GPU(row) <-> GPU(column) Read1 bandwidth (GB/s)\n"
      "           0         1\n"
      " 0       N/A    100.00\n"
      " 1    101.00       N/A\n"
      "\n"
      "SUM multinode_device_to_device_bidirectional_memcpy_read_ce 201.00\n"
      "memcpy CE GPU(row) <-> GPU(column) Total bandwidth (GB/s)\n"
      "           0         1\n"
      " 0       N/A    200.00\n"
      " 1    202.00       N/A\n"
      "\n"
      "SUM multinode_device_to_device_bidirectional_memcpy_read_ce 402.00\n";
  const PeerDocument doc = parse_nvbandwidth(text, "f.txt");
  const std::string base = "nvbandwidth/multinode_device_to_device_bidirectional_memcpy_read_ce";
  EXPECT_DOUBLE_EQ(value_of(doc, base + "/matrix:read1/src:1/dst:0", "GB_per_s"), 101.0);
  EXPECT_DOUBLE_EQ(value_of(doc, base + "/matrix:total/src:0/dst:1", "GB_per_s"), 200.0);
  EXPECT_DOUBLE_EQ(value_of(doc, base + "/matrix:total/sum", "GB_per_s"), 402.0);
  const nlohmann::json devices = context_json(doc, "gpubench.devices");
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1]["index"], 1);
  EXPECT_EQ(devices[1]["host"], "node-b");
  EXPECT_EQ(devices[1]["pci_bus_id"], "0008:06:00.0");
}

TEST(PeersNvbandwidth, ACutTableIsRefusedNamingTheLine) {
  std::string text = read_peer_fixture("nvbandwidth/v0.8_a100_issue42.txt");
  // Cut after the matrix's row: no SUM line follows (line 15 of the original is the SUM).
  text = text.substr(0, text.find("\nSUM ") + 1);
  const std::string why = refusal([&] { parse_nvbandwidth(text, "cut.txt"); });
  EXPECT_NE(why.find("cannot import cut.txt as nvbandwidth"), std::string::npos) << why;
  EXPECT_NE(why.find("expected 'SUM host_to_device_memcpy_sm <value>'"), std::string::npos) << why;
  // Cut inside the header: the title is the last line.
  std::string title_only = read_peer_fixture("nvbandwidth/v0.8_a100_issue42.txt");
  title_only = title_only.substr(0, title_only.find("(GB/s)\n") + 7);
  const std::string why2 = refusal([&] { parse_nvbandwidth(title_only, "cut.txt"); });
  EXPECT_NE(why2.find("expected the column header"), std::string::npos) << why2;
}

TEST(PeersNvbandwidth, ABadNumberIsRefusedNamingTheLineAndColumn) {
  std::string text = read_peer_fixture("nvbandwidth/v0.10_azure_healthchecks.txt");
  text.replace(text.find("276.07"), 6, "27x.07");
  const std::string why = refusal([&] { parse_nvbandwidth(text, "bad.txt"); });
  EXPECT_NE(why.find("line 22: expected a number or N/A in column 1"), std::string::npos) << why;
  EXPECT_NE(why.find("27x.07"), std::string::npos) << why;
  // A row with a cell missing.
  std::string short_row = read_peer_fixture("nvbandwidth/v0.10_azure_healthchecks.txt");
  short_row.replace(short_row.find("0     26.03     25.94"), 21, "0     26.03");
  const std::string why2 = refusal([&] { parse_nvbandwidth(short_row, "bad.txt"); });
  EXPECT_NE(why2.find("line 4: expected a row label and 2 values"), std::string::npos) << why2;
}

TEST(PeersNvbandwidth, NothingMeasuredIsRefusedWithWhatTheToolSaid) {
  const std::string waived = refusal([&] {
    parse_nvbandwidth(read_peer_fixture("nvbandwidth/v0.2label_2080ti_waived_issue13.txt"),
                      "w.txt");
  });
  EXPECT_NE(waived.find("nothing was measured: every testcase was waived "
                        "(device_to_device_memcpy_write_ce)"),
            std::string::npos)
      << waived;
  const std::string assert_ = refusal([&] {
    parse_nvbandwidth(read_peer_fixture("nvbandwidth/v0.7_a100_assert_issue34.txt"), "a.txt");
  });
  EXPECT_NE(assert_.find("nvbandwidth stopped in device_to_device_memcpy_read_ce: ASSERT in "
                         "expression h_errorFlag == 0"),
            std::string::npos)
      << assert_;
}

TEST(PeersNvbandwidth, AnErrorAfterSomeResultsIsTheRunsFailure) {
  // The v0.8 run, then the v0.7 run's assertion in a second testcase (FIXTURE: the two real
  // outputs joined, to show a run that measured before it stopped).
  std::string text = read_peer_fixture("nvbandwidth/v0.8_a100_issue42.txt");
  text +=
      "Running device_to_device_memcpy_read_ce.\n"
      " Invalid value when checking the pattern at 0x70a640000000\n";
  const PeerDocument doc = parse_nvbandwidth(text, "f.txt");
  EXPECT_EQ(doc.failure,
            "nvbandwidth stopped in device_to_device_memcpy_read_ce: Invalid value when checking "
            "the pattern at 0x70a640000000");
  EXPECT_EQ(doc.document["benchmarks"].size(), 2u);
}

}  // namespace
}  // namespace gpubench::results::peers

namespace gpubench::results::peers {
namespace {

TEST(PeersNvbandwidth, LocalAllGpusAndDeviceLatencyTitles) {
  // FIXTURE, constructed from the titles nvbandwidth prints (testcases_ce.cpp, testcases_sm.cpp,
  // commit 66746a3); values invented.
  const std::string text =
      "Running device_local_copy.\n"
      "memcpy local GPU(column) bandwidth (GB/s)\n"
      "           0         1\n"
      " 0   1500.00   1501.00\n"
      "\n"
      "SUM device_local_copy 3001.00\n"
      "Running all_to_one_write_sm.\n"
      "memcpy SM All Gpus -> GPU(column) total bandwidth (GB/s)\n"
      "           0         1\n"
      " 0    300.00    301.00\n"
      "\n"
      "SUM all_to_one_write_sm 601.00\n"
      "Running device_to_device_latency_sm.\n"
      "Device to Device Latency SM GPU(row) <-> GPU(column) (ns)\n"
      "           0         1\n"
      " 0       N/A    700.00\n"
      " 1    701.00       N/A\n"
      "\n"
      "SUM device_to_device_latency_sm 1401.00\n";
  const PeerDocument doc = parse_nvbandwidth(text, "t.txt");
  EXPECT_DOUBLE_EQ(testing::value_of(doc, "nvbandwidth/device_local_copy/src:1/dst:1", "GB_per_s"),
                   1501.0);
  EXPECT_DOUBLE_EQ(
      testing::value_of(doc, "nvbandwidth/all_to_one_write_sm/src:all/dst:0", "GB_per_s"), 300.0);
  EXPECT_DOUBLE_EQ(
      testing::value_of(doc, "nvbandwidth/device_to_device_latency_sm/src:1/dst:0", "latency_ns"),
      701.0);
}

TEST(PeersTable, EachFixtureIsDetectedAsItsOwnFormat) {
  const std::pair<const char*, const char*> cases[] = {
      {"nvbandwidth/v0.6_gh200_superbench.txt", "nvbandwidth"},
      {"nvbandwidth/v0.10_azure_healthchecks.txt", "nvbandwidth"},
      {"nvbandwidth/v0.8_a100_constructed.json", "nvbandwidth"},
      {"nvbench/nvbench_axes_test_ref.json", "nvbench"},
      {"nvbench/nvbench_auto_throughput_superbench.json", "nvbench"},
      {"nvbench/nvbench_sleep_kernel_markdown_superbench.md", "nvbench"},
      {"cuda-samples/bandwidthTest_t4_gbs_cuda_demo.txt", "bandwidthTest"},
      {"cuda-samples/bandwidthTest_p100_mbs_gearshifft.txt", "bandwidthTest"},
      {"cuda-samples/p2pBandwidthLatencyTest_rtx6000ada_stelline.txt", "p2pBandwidthLatencyTest"},
  };
  for (const auto& [file, format] : cases) {
    std::string head = testing::read_peer_fixture(file).substr(0, k_detect_bytes);
    const PeerFormat* f = detect_peer_format(head);
    ASSERT_NE(f, nullptr) << file;
    EXPECT_EQ(f->name, format) << file;
    EXPECT_EQ(find_peer_format(format), f);
  }
}

}  // namespace
}  // namespace gpubench::results::peers

namespace gpubench::results::peers {
namespace {

TEST(PeersNvbandwidth, JsonBidirectionalMatricesAppendedInOneAreSplitAgain) {
  // FIXTURE, constructed from nvbandwidth's JSON writer (json_output.cpp, commit 66746a3:
  // addTestcaseResults appends each matrix's rows to the testcase's "bandwidth_matrix" and
  // overwrites its description and sum); values invented.
  const std::string text = R"json({
   "nvbandwidth" : {
      "testcases" : [
         {
            "bandwidth_description" : "memcpy CE GPU(row) <-> GPU(column) Total bandwidth (GB/s)",
            "bandwidth_matrix" : [ [ "N/A", "10" ], [ "11", "N/A" ],
                                   [ "N/A", "20" ], [ "21", "N/A" ],
                                   [ "N/A", "30" ], [ "31", "N/A" ] ],
            "name" : "device_to_device_bidirectional_memcpy_read_ce",
            "status" : "Passed",
            "sum" : 61
         }
      ],
      "version" : "v0.8"
   }
})json";
  const PeerDocument doc = parse_nvbandwidth(text, "bidir.json");
  const std::string b = "nvbandwidth/device_to_device_bidirectional_memcpy_read_ce";
  EXPECT_DOUBLE_EQ(testing::value_of(doc, b + "/matrix:read1/src:1/dst:0", "GB_per_s"), 11.0);
  EXPECT_DOUBLE_EQ(testing::value_of(doc, b + "/matrix:read2/src:0/dst:1", "GB_per_s"), 20.0);
  EXPECT_DOUBLE_EQ(testing::value_of(doc, b + "/matrix:total/src:1/dst:0", "GB_per_s"), 31.0);
  EXPECT_DOUBLE_EQ(testing::value_of(doc, b + "/matrix:read1/sum", "GB_per_s"), 21.0);
  EXPECT_DOUBLE_EQ(testing::value_of(doc, b + "/matrix:total/sum", "GB_per_s"), 61.0);
  EXPECT_TRUE(testing::entries(doc, b + "/matrix:total/src:3/dst:0").empty());
}

}  // namespace
}  // namespace gpubench::results::peers
