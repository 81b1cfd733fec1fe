// The line-up of gpubench's figures against imported peer tools (compare/peers/lineup.hpp, issue
// 40): which quantities match, the GPU they match on, the ratio and its interval. Every run here is
// a FIXTURE built in memory: names as the suites and results/peers write them, invented values.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "compare/peers/lineup.hpp"
#include "compare/render/render_peers.hpp"
#include "compare/stats/stats.hpp"
#include "util/median.hpp"
#include "util/text_width.hpp"

namespace gpubench::compare {
namespace {

using results::ResultRow;

ResultRow row(const std::string& name, const std::string& metric, std::vector<double> values,
              const std::string& uuid = "") {
  const results::ParsedName parsed = results::parse_benchmark_name(name, "");
  ResultRow r;
  r.suite = parsed.suite;
  r.benchmark = name;
  r.case_name = parsed.case_name;
  r.params = parsed.params;
  r.metric = metric;
  r.unit = metric == "TFLOP_per_s" ? "TFLOP/s" : "GB/s";
  r.direction = results::Direction::higher;
  r.values = std::move(values);
  r.gpu_uuid = uuid;
  return r;
}

results::GpuInfo gpu(const std::string& uuid, const std::string& bus = "unknown") {
  results::GpuInfo g;
  g.uuid = uuid;
  g.pci_bus_id = bus;
  return g;
}

LoadedRun run(int64_t id, std::vector<ResultRow> rows, std::vector<results::GpuInfo> gpus = {},
              const std::string& host = "node-FIXTURE") {
  LoadedRun r;
  r.detail.run.id = id;
  r.detail.info.host.hostname = host;
  r.detail.info.gpus = std::move(gpus);
  r.rows = std::move(rows);
  return r;
}

const std::string k_ar = "allreduce/allreduce/dtype:fp32/mode:out_of_place/bytes:67108864/ranks:8";
const std::string k_nccl =
    "nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/bytes:67108864/ranks:8";

TEST(PeerLineup, AllreduceMatchesNcclTestsAtTheSameOpDtypeModeSizeAndRanks) {
  const LoadedRun own = run(1, {row(k_ar, "busbw_GB_per_s", {100, 101, 102}),
                                row(k_ar + "/scope:intra_node", "busbw_GB_per_s", {90}),
                                row(k_ar, "algbw_GB_per_s", {60})});
  const LoadedRun peer =
      run(2, {row(k_nccl, "busbw_GB_per_s", {110}),
              // Another op, another place, another size, another rank count: no line each.
              row("nccl-tests/allreduce/dtype:fp32/op:max/mode:out_of_place/bytes:67108864/ranks:8",
                  "busbw_GB_per_s", {50}),
              row("nccl-tests/allreduce/dtype:fp32/op:sum/mode:in_place/bytes:67108864/ranks:8",
                  "busbw_GB_per_s", {51}),
              row("nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/bytes:33554432/ranks:8",
                  "busbw_GB_per_s", {52}),
              row("nccl-tests/allreduce/dtype:fp32/op:sum/mode:out_of_place/bytes:67108864/ranks:4",
                  "busbw_GB_per_s", {53}),
              row(k_nccl, "algbw_GB_per_s", {62})});
  const std::vector<PeerLine> lines = line_up(own, peer);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].gpubench.benchmark, k_ar);
  EXPECT_EQ(lines[0].peer.benchmark, k_nccl);
  EXPECT_DOUBLE_EQ(lines[0].ratio, 101.0 / 110.0);  // medians: one peer value, no interval
  EXPECT_FALSE(lines[0].ci_low.has_value());
  EXPECT_EQ(lines[0].gpu, "");
  EXPECT_NE(lines[0].note.find("mean over its processes"), std::string::npos);
  EXPECT_NE(lines[0].quantity.find("64 MiB"), std::string::npos) << lines[0].quantity;
}

TEST(PeerLineup, BroadcastMatchesRootZeroOnly) {
  const std::string own_name =
      "allreduce/broadcast/dtype:fp32/mode:out_of_place/bytes:1048576/ranks:8";
  const LoadedRun own = run(1, {row(own_name, "busbw_GB_per_s", {40})});
  const LoadedRun peer =
      run(2, {row("nccl-tests/broadcast/dtype:fp32/op:none/mode:out_of_place/bytes:1048576/ranks:8/"
                  "root:1",
                  "busbw_GB_per_s", {30}),
              row("nccl-tests/broadcast/dtype:fp32/op:none/mode:out_of_place/bytes:1048576/ranks:8/"
                  "root:0",
                  "busbw_GB_per_s", {50})});
  const std::vector<PeerLine> lines = line_up(own, peer);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_DOUBLE_EQ(lines[0].ratio, 40.0 / 50.0);
}

TEST(PeerLineup, IntervalIsCompareEstimatorWhenBothSidesHaveThreeValues) {
  const std::string own_name =
      "gemm/cublaslt/dtype:bf16/m:8192/n:8192/k:8192/layout:tn/"
      "cache:hot/device:0";
  const std::string peer_name = "pytorch/matmul/dtype:bf16/m:8192/n:8192/k:8192/device:0";
  const std::vector<double> mine = {700, 702, 704, 701, 703};
  const std::vector<double> theirs = {690, 695, 692};
  LoadedRun own = run(1, {row(own_name, "TFLOP_per_s", mine)});
  LoadedRun peer = run(2, {row(peer_name, "TFLOP_per_s", theirs)});
  std::vector<PeerLine> lines = line_up(own, peer);
  ASSERT_EQ(lines.size(), 1u);
  LogRatioOptions options;
  options.confidence = 0.99;
  const LogRatioEstimate e = log_ratio_estimate(theirs, mine, options);
  ASSERT_TRUE(lines[0].ci_low && lines[0].ci_high);
  EXPECT_DOUBLE_EQ(lines[0].ratio, e.ratio);
  EXPECT_DOUBLE_EQ(*lines[0].ci_low, e.ci_low);
  EXPECT_DOUBLE_EQ(*lines[0].ci_high, e.ci_high);
  EXPECT_LT(*lines[0].ci_low, lines[0].ratio);
  EXPECT_GT(*lines[0].ci_high, lines[0].ratio);
  EXPECT_EQ(lines[0].gpu, "0");
  // Two peer values: the ratio of medians, no interval.
  peer.rows[0].values = {690, 695};
  lines = line_up(own, peer);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_FALSE(lines[0].ci_low.has_value());
  EXPECT_DOUBLE_EQ(lines[0].ratio, 702.0 / 692.5);
  // A slowed sample (thermal or HW slowdown) is not a value; an errored benchmark has none.
  own.rows[0].throttled = {1, 1, 1, 0, 0};
  peer.rows[0].values = {690, 695, 692};
  lines = line_up(own, peer);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].gpubench.values.size(), 2u);
  peer.rows[0].status = results::BenchmarkStatus::error;
  EXPECT_TRUE(line_up(own, peer).empty());
}

TEST(PeerLineup, GemmMatchesPytorchOnlyAtTnHotSameDtypeAndShape) {
  const LoadedRun own =
      run(1, {row("gemm/cublaslt/dtype:bf16/m:8192/n:8192/k:8192/layout:nn/cache:hot/device:0",
                  "TFLOP_per_s", {600}),
              row("gemm/cublas/dtype:bf16/m:8192/n:8192/k:8192/layout:tn/cache:hot/device:0",
                  "TFLOP_per_s", {610}),
              row("gemm/cublaslt/dtype:fp16/m:8192/n:8192/k:8192/layout:tn/cache:hot/device:0",
                  "TFLOP_per_s", {620}),
              row("gemm/cublaslt/dtype:bf16/m:4096/n:4096/k:4096/layout:tn/cache:hot/device:0",
                  "TFLOP_per_s", {630})});
  const LoadedRun peer =
      run(2, {row("pytorch/matmul/dtype:bf16/m:8192/n:8192/k:8192/device:0", "TFLOP_per_s", {1})});
  EXPECT_TRUE(line_up(own, peer).empty());
}

TEST(PeerLineup, GpusMatchByUuidWhereBothSidesNameThem) {
  // nvbandwidth ran with the GPUs in the other order (CUDA_VISIBLE_DEVICES=1,0): its GPU 0 is
  // gpubench's GPU 1.
  const std::string h2d =
      "transfer/host_to_device_memcpy_ce/dir:h2d/memory:pinned/engine:ce/"
      "numa:local/bytes:268435456/device:";
  const LoadedRun own = run(1,
                            {row(h2d + "0", "GB_per_s", {50}, "GPU-a-FIXTURE"),
                             row(h2d + "1", "GB_per_s", {40}, "GPU-b-FIXTURE")},
                            {gpu("GPU-a-FIXTURE"), gpu("GPU-b-FIXTURE")});
  LoadedRun peer =
      run(2, {row("nvbandwidth/host_to_device_memcpy_ce/src:host/dst:0", "GB_per_s", {44})},
          {gpu("GPU-b-FIXTURE"), gpu("GPU-a-FIXTURE")});
  std::vector<PeerLine> lines = line_up(own, peer);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].gpu, "1");
  EXPECT_DOUBLE_EQ(lines[0].ratio, 40.0 / 44.0);
  EXPECT_EQ(lines[0].note.find("CUDA ordinal"), std::string::npos);
  // Without UUIDs on the peer's side, the CUDA ordinal decides, and the note says so.
  peer.detail.info.gpus.clear();
  lines = line_up(own, peer);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].gpu, "0");
  EXPECT_NE(lines[0].note.find("matched by CUDA ordinal"), std::string::npos);
}

TEST(PeerLineup, SizesMatchExactlyOrTheLargestWhenThePeerStatesNone) {
  const std::string d2h =
      "transfer/device_to_host_memcpy_ce/dir:d2h/memory:pinned/engine:ce/"
      "numa:local/bytes:";
  const LoadedRun own =
      run(1, {row(d2h + "67108864/device:0", "GB_per_s", {45}),
              row(d2h + "268435456/device:0", "GB_per_s", {50}),
              // NUMA-remote host buffers are not what nvbandwidth measures.
              row("transfer/device_to_host_memcpy_ce/dir:d2h/memory:pinned/engine:ce/numa:remote/"
                  "bytes:1073741824/device:0",
                  "GB_per_s", {30})});
  std::vector<PeerLine> lines = line_up(
      own, run(2, {row("nvbandwidth/device_to_host_memcpy_ce/src:0/dst:host", "GB_per_s", {52})}));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].gpubench.benchmark, d2h + "268435456/device:0");
  EXPECT_NE(lines[0].note.find("states no buffer size"), std::string::npos);
  lines = line_up(own, run(2, {row("nvbandwidth/device_to_host_memcpy_ce/src:0/dst:host/"
                                   "bytes:67108864",
                                   "GB_per_s", {46})}));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].gpubench.benchmark, d2h + "67108864/device:0");
  // bandwidthTest's 32 MB (decimal) has no gpubench size: no line.
  EXPECT_TRUE(line_up(own, run(2, {row("bandwidthTest/d2h/memory:pinned/bytes:32000000/device:0",
                                       "GB_per_s", {26})}))
                  .empty());
}

TEST(PeerLineup, CountingDifferencesAreScaledAndSaid) {
  const LoadedRun own = run(
      1, {row("transfer/device_local_copy/dir:d2d/memory:device/engine:ce/bytes:268435456/device:0",
              "GB_per_s", {1500}),
          row("memory/device_copy/array_bytes:268435456/device:0/iterations:1/manual_time",
              "GB_per_s", {3000})});
  // bandwidthTest counts a device copy twice: halved.
  std::vector<PeerLine> lines =
      line_up(own, run(2, {row("bandwidthTest/d2d/memory:pinned/bytes:268435456/device:0",
                               "GB_per_s", {2800})}));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_DOUBLE_EQ(lines[0].peer_scale, 0.5);
  EXPECT_DOUBLE_EQ(lines[0].peer.median, 1400);
  EXPECT_DOUBLE_EQ(lines[0].ratio, 1500.0 / 1400.0);
  // nvbandwidth's device_local_copy lines up with the transfer case as is and with STREAM copy
  // (read + write counted) doubled.
  lines = line_up(own, run(2, {row("nvbandwidth/device_local_copy/src:0/dst:0/bytes:268435456",
                                   "GB_per_s", {1450})}));
  ASSERT_EQ(lines.size(), 2u);
  for (const PeerLine& l : lines) {
    if (l.gpubench.suite == "memory") {
      EXPECT_DOUBLE_EQ(l.peer_scale, 2);
      EXPECT_DOUBLE_EQ(l.ratio, 3000.0 / 2900.0);
      EXPECT_NE(l.note.find("x2"), std::string::npos);
    } else {
      EXPECT_DOUBLE_EQ(l.ratio, 1500.0 / 1450.0);
    }
  }
}

TEST(PeerLineup, PytorchCopiesMatchTransferCases) {
  const LoadedRun own =
      run(1, {row("transfer/host_to_device_memcpy_ce/dir:h2d/memory:pinned/engine:ce/numa:local/"
                  "bytes:268435456/device:0",
                  "GB_per_s", {55}),
              row("transfer/host_to_device_memcpy_ce/dir:h2d/memory:pageable/engine:ce/numa:local/"
                  "bytes:268435456/device:0",
                  "GB_per_s", {20})});
  const std::vector<PeerLine> lines = line_up(
      own,
      run(2, {row("pytorch/copy/h2d/memory:pinned/bytes:268435456/device:0", "GB_per_s", {54})}));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_DOUBLE_EQ(lines[0].ratio, 55.0 / 54.0);
  EXPECT_NE(lines[0].note.find("non_blocking"), std::string::npos);
}

TEST(PeerLineup, PeerRunsOfAnotherHostOrOtherGpusAreLeftOut) {
  LoadedRun own = run(1, {}, {gpu("GPU-a-FIXTURE", "0000:18:00.0"), gpu("GPU-b-FIXTURE")},
                      "node-FIXTURE.example.com");
  EXPECT_EQ(peer_mismatch(own.detail, run(2, {}, {gpu("GPU-b-FIXTURE")}, "NODE-FIXTURE").detail),
            "");
  EXPECT_EQ(peer_mismatch(own.detail, run(2, {}, {}, "node-FIXTURE").detail), "");
  EXPECT_EQ(peer_mismatch(own.detail, run(2, {}, {}, "other-FIXTURE").detail),
            "another host (other-FIXTURE)");
  EXPECT_EQ(peer_mismatch(own.detail, run(2, {}, {gpu("GPU-c-FIXTURE")}).detail),
            "other GPUs (UUID GPU-c-FIXTURE is not in the run)");
  // Without UUIDs, PCI bus ids decide.
  EXPECT_NE(peer_mismatch(own.detail, run(2, {}, {gpu("unknown", "0000:99:00.0")}).detail)
                .find("PCI bus id 0000:99:00.0"),
            std::string::npos);
  EXPECT_EQ(peer_mismatch(own.detail, run(2, {}, {gpu("unknown", "0000:18:00.0")}).detail), "");
  // NVML's 8-digit domain and nccl-tests' 4-digit one without the function are one address.
  own.detail.info.gpus[0].uuid = "unknown";
  own.detail.info.gpus[0].pci_bus_id = "00000000:18:00.0";
  EXPECT_EQ(peer_mismatch(own.detail, run(2, {}, {gpu("unknown", "0000:18:00")}).detail), "");
  EXPECT_NE(peer_mismatch(own.detail, run(2, {}, {gpu("unknown", "0000:19:00")}).detail), "");
}

TEST(PeerLineup, TextFitsTheWidthAndNotesAreFootnotes) {
  PeerLineup lineup;
  lineup.run_id = 1;
  lineup.host = "node-FIXTURE";
  lineup.peer_runs.push_back({2, "nccl-tests", "2026-12-05T10:00:00.000Z", 1, ""});
  lineup.peer_runs.push_back({3, "nvbandwidth", "2026-12-05T09:00:00.000Z", 0, "other GPUs (x)"});
  const LoadedRun own = run(1, {row(k_ar, "busbw_GB_per_s", {100, 101, 102})});
  lineup.lines = line_up(own, run(2, {row(k_nccl, "busbw_GB_per_s", {110})}));
  set_output_width(80);
  std::ostringstream out;
  render_peers_text(lineup, out);
  set_output_width(0);
  const std::string text = out.str();
  EXPECT_NE(text.find("run 3 nvbandwidth of 2026-12-05T09:00:00.000Z: left out, other GPUs (x)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[1] nccl-tests reports the mean"), std::string::npos) << text;
  EXPECT_NE(text.find("0.918"), std::string::npos) << text;  // 101 / 110
  EXPECT_NE(text.find("nccl-tests run 2 [1]"), std::string::npos) << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  [1]", 0) == 0 || line.rfind("peers of", 0) == 0) continue;  // prose
    EXPECT_LE(display_width(line), 80u) << line;
  }
  const nlohmann::json j = peers_json(lineup);
  EXPECT_EQ(j["lines"].size(), 1u);
  EXPECT_TRUE(j["lines"][0]["ci_low"].is_null());
  EXPECT_EQ(j["peer_runs"][1]["left_out"], "other GPUs (x)");
}

}  // namespace
}  // namespace gpubench::compare
