// The CUDA samples' bandwidthTest and p2pBandwidthLatencyTest read into peer documents
// (results/peers/peers_cuda_samples.cpp), on the real outputs in tests/fixtures/peers/
// cuda-samples/ and on cuts of them.
#include <gtest/gtest.h>

#include <string>

#include "results/peers/peers_cuda_samples.hpp"
#include "tests/results/peers_test_support.hpp"

namespace gpubench::results::peers {
namespace {

using testing::context_json;
using testing::read_peer_fixture;
using testing::refusal;
using testing::value_of;

const char* const k_t4 = "cuda-samples/bandwidthTest_t4_gbs_cuda_demo.txt";
const char* const k_p100 = "cuda-samples/bandwidthTest_p100_mbs_gearshifft.txt";
const char* const k_p2p = "cuda-samples/p2pBandwidthLatencyTest_rtx6000ada_stelline.txt";

TEST(PeersBandwidthTest, DetectsBothVersionsAndNotP2p) {
  EXPECT_TRUE(detect_bandwidth_test(read_peer_fixture(k_t4)));
  EXPECT_TRUE(detect_bandwidth_test(read_peer_fixture(k_p100)));
  EXPECT_FALSE(detect_bandwidth_test(read_peer_fixture(k_p2p)));
  EXPECT_TRUE(detect_p2p_bandwidth_latency_test(read_peer_fixture(k_p2p)));
  EXPECT_FALSE(detect_p2p_bandwidth_latency_test(read_peer_fixture(k_t4)));
}

TEST(PeersBandwidthTest, GbPerSecondTables) {
  const PeerDocument doc = parse_bandwidth_test(read_peer_fixture(k_t4), "t4.txt");
  EXPECT_EQ(doc.format, "bandwidthTest");
  EXPECT_TRUE(doc.failure.empty());
  EXPECT_DOUBLE_EQ(
      value_of(doc, "bandwidthTest/h2d/memory:pinned/bytes:32000000/device:0", "GB_per_s"), 9.7);
  EXPECT_DOUBLE_EQ(
      value_of(doc, "bandwidthTest/d2h/memory:pinned/bytes:32000000/device:0", "GB_per_s"), 11.1);
  EXPECT_DOUBLE_EQ(
      value_of(doc, "bandwidthTest/d2d/memory:pinned/bytes:32000000/device:0", "GB_per_s"), 239.6);
  EXPECT_EQ(doc.document["context"]["peer.command"], "./bandwidthTest");
  EXPECT_EQ(context_json(doc, "gpubench.devices")[0]["name"], "Tesla T4");
  EXPECT_EQ(doc.document["benchmarks"].size(), 3u);
}

TEST(PeersBandwidthTest, OldMegabytesPerSecondAreMebibytesConvertedToDecimalGb) {
  const PeerDocument doc = parse_bandwidth_test(read_peer_fixture(k_p100), "p100.txt");
  // 12150.7 MiB/s * 2^20 B / 1e9 = 12.741 GB/s.
  EXPECT_NEAR(value_of(doc, "bandwidthTest/h2d/memory:pinned/bytes:33554432/device:0", "GB_per_s"),
              12150.7 * 1048576.0 / 1e9, 1e-9);
  EXPECT_EQ(doc.document["context"]["peer.command"], "numactl -m0 -N0 bandwidthTest");
}

TEST(PeersBandwidthTest, CsvLines) {
  // The first lines of bandwidthTest --csv as superbenchmark's tests/data/cuda_memory_h2d_bw.log
  // holds them (V100, shmoo mode).
  const std::string text =
      "[CUDA Bandwidth Test] - Starting...\n"
      "Running on...\n"
      "\n"
      " Device 0: Tesla V100-PCIE-32GB\n"
      " Shmoo Mode\n"
      "\n"
      "bandwidthTest-H2D-Pinned, Bandwidth = 0.4 GB/s, Time = 0.00000 s, Size = 1000 bytes, "
      "NumDevsUsed = 1\n"
      "bandwidthTest-H2D-Pinned, Bandwidth = 12.4 GB/s, Time = 0.00549 s, Size = 68000000 "
      "bytes, NumDevsUsed = 1\n"
      "Result = PASS\n";
  const PeerDocument doc = parse_bandwidth_test(text, "csv.txt");
  EXPECT_DOUBLE_EQ(
      value_of(doc, "bandwidthTest/h2d/memory:pinned/bytes:68000000/device:0", "GB_per_s"), 12.4);
}

TEST(PeersBandwidthTest, CutAndBrokenTablesAreRefusedNamingTheLine) {
  std::string cut = read_peer_fixture(k_t4);
  cut = cut.substr(0, cut.find("   32000000                     11.1"));
  const std::string why = refusal([&] { parse_bandwidth_test(cut, "cut.txt"); });
  EXPECT_NE(why.find("expected a row '<transfer size in bytes> <bandwidth>'"), std::string::npos)
      << why;
  EXPECT_NE(why.find("the table is cut"), std::string::npos) << why;
  std::string bad = read_peer_fixture(k_t4);
  bad.replace(bad.find("239.6"), 5, "23g.6");
  const std::string why2 = refusal([&] { parse_bandwidth_test(bad, "bad.txt"); });
  EXPECT_NE(why2.find("line 25: expected '<transfer size in bytes> <bandwidth>' (two numbers)"),
            std::string::npos)
      << why2;
  const std::string why3 = refusal([&] {
    parse_bandwidth_test(
        "[CUDA Bandwidth Test] - Starting...\nRunning on...\n\n"
        "cudaGetDeviceProperties returned 100\n-> no CUDA-capable device is "
        "detected\nCUDA error at bandwidthTest.cu:256 code=100\n",
        "err.txt");
  });
  EXPECT_NE(why3.find("nothing was measured: bandwidthTest said: CUDA error at "
                      "bandwidthTest.cu:256 code=100"),
            std::string::npos)
      << why3;
}

TEST(PeersP2p, EveryMatrixWithDirectionsAndDevices) {
  const PeerDocument doc = parse_p2p_bandwidth_latency_test(read_peer_fixture(k_p2p), "p2p.txt");
  EXPECT_EQ(doc.format, "p2pBandwidthLatencyTest");
  const std::string b = "p2pBandwidthLatencyTest/";
  EXPECT_DOUBLE_EQ(value_of(doc, b + "unidirectional/p2p:disabled/src:1/dst:0", "GB_per_s"), 22.32);
  EXPECT_DOUBLE_EQ(value_of(doc, b + "unidirectional/p2p:enabled/src:0/dst:1", "GB_per_s"), 26.32);
  EXPECT_DOUBLE_EQ(value_of(doc, b + "bidirectional/p2p:enabled/src:0/dst:1", "GB_per_s"), 52.11);
  EXPECT_DOUBLE_EQ(value_of(doc, b + "bidirectional/p2p:disabled/src:1/dst:1", "GB_per_s"), 808.33);
  EXPECT_DOUBLE_EQ(value_of(doc, b + "latency_gpu/p2p:disabled/src:0/dst:1", "latency_us"), 10.90);
  EXPECT_DOUBLE_EQ(value_of(doc, b + "latency_cpu/p2p:enabled/src:1/dst:0", "latency_us"), 1.32);
  // 4 bandwidth and 4 latency matrices of 2 x 2; the connectivity matrix is not a measurement.
  EXPECT_EQ(doc.document["benchmarks"].size(), 32u);
  const nlohmann::json devices = context_json(doc, "gpubench.devices");
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1]["name"], "NVIDIA RTX 6000 Ada Generation");
  EXPECT_EQ(devices[1]["pci_bus_id"], "0000:c2:00.0");
  EXPECT_EQ(doc.document["context"]["peer.command"], "./p2pBandwidthLatencyTest");
  EXPECT_EQ(context_json(doc, "gpubench.metrics").size(), 2u);
}

TEST(PeersP2p, ReadsSwapSourceAndDestination) {
  // FIXTURE, the shape p2pBandwidthLatencyTest --p2p_read prints; values invented.
  const std::string text =
      "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n"
      "Unidirectional P2P=Enabled Bandwidth (P2P Reads) Matrix (GB/s)\n"
      "   D\\D     0      1\n"
      "     0 800.00  10.00\n"
      "     1  20.00 800.00\n";
  const PeerDocument doc = parse_p2p_bandwidth_latency_test(text, "r.txt");
  EXPECT_DOUBLE_EQ(
      value_of(doc, "p2pBandwidthLatencyTest/unidirectional/p2p:enabled/src:1/dst:0", "GB_per_s"),
      10.0);
}

TEST(PeersP2p, CutAndBrokenMatricesAreRefusedNamingTheLine) {
  std::string cut = read_peer_fixture(k_p2p);
  cut = cut.substr(0, cut.find("     1  52.10 806.22"));
  const std::string why = refusal([&] { parse_p2p_bandwidth_latency_test(cut, "cut.txt"); });
  EXPECT_NE(why.find("expected row 1 of 2"), std::string::npos) << why;
  std::string bad = read_peer_fixture(k_p2p);
  bad.replace(bad.find("801.28"), 6, "801,28");
  const std::string why2 = refusal([&] { parse_p2p_bandwidth_latency_test(bad, "bad.txt"); });
  EXPECT_NE(why2.find("line 17: expected a number in column 0"), std::string::npos) << why2;
  const std::string why3 = refusal([&] {
    parse_p2p_bandwidth_latency_test("[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n", "e");
  });
  EXPECT_NE(why3.find("nothing was measured"), std::string::npos) << why3;
}

}  // namespace
}  // namespace gpubench::results::peers
