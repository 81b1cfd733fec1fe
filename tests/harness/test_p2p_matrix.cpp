// Peer-to-peer matrices for `gpubench show`: layout from synthetic result rows (FIXTURE values,
// not measurements), slow-pair detection, rendering with UUIDs.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/cli/p2p_matrix.hpp"
#include "results/model.hpp"

namespace gpubench::harness {
namespace {

results::ResultRow p2p_row(int src, int dst, std::vector<double> values,
                           const std::string& peer = "on") {
  results::ResultRow r;
  r.suite = "transfer";
  r.benchmark =
      "transfer/device_to_device_memcpy_write_ce/dir:p2p/memory:device/engine:ce/"
      "peer_access:" +
      peer + "/src:" + std::to_string(src) + "/dst:" + std::to_string(dst) +
      "/bytes:268435456/device:" + std::to_string(src) + "/iterations:10/manual_time";
  const results::ParsedName parsed = results::parse_benchmark_name(r.benchmark, "transfer");
  r.case_name = parsed.case_name;
  r.params = parsed.params;
  r.metric = "GB_per_s";
  r.unit = "GB/s";
  r.direction = results::Direction::higher;
  r.values = std::move(values);
  r.device_index = src;  // as ingest ties device:N to its GPU through gpubench.devices
  r.gpu_uuid = "GPU-fixture-" + std::to_string(src);
  return r;
}

// FIXTURE: a 4-GPU matrix where every pair does ~400 GB/s except 2 -> 1 at 150 GB/s.
std::vector<results::ResultRow> fixture_rows() {
  std::vector<results::ResultRow> rows;
  for (int s = 0; s < 4; ++s) {
    for (int d = 0; d < 4; ++d) {
      if (s == d) continue;
      const double v = (s == 2 && d == 1) ? 150.0 : 395.0 + s + d;
      rows.push_back(p2p_row(s, d, {v - 1, v, v + 1}));
    }
  }
  return rows;
}

TEST(P2pMatrix, LaysOutRowsBySourceAndColumnsByDestination) {
  auto rows = fixture_rows();
  results::ResultRow other;  // not a p2p result: ignored
  other.benchmark = "transfer/device_local_copy/bytes:4096/device:0";
  other.metric = "GB_per_s";
  other.unit = "GB/s";
  other.values = {1.0};
  rows.push_back(other);
  const auto matrices = build_p2p_matrices(rows);
  ASSERT_EQ(matrices.size(), 1u);
  const P2pMatrix& m = matrices[0];
  EXPECT_EQ(m.size, 4);
  EXPECT_EQ(m.metric, "GB_per_s");
  EXPECT_EQ(m.title,
            "transfer/device_to_device_memcpy_write_ce dir:p2p memory:device engine:ce "
            "peer_access:on bytes:268435456");
  EXPECT_FALSE(m.at(0, 0));
  EXPECT_DOUBLE_EQ(*m.at(0, 3), 398.0);  // the median of the pair's samples
  EXPECT_DOUBLE_EQ(*m.at(3, 0), 398.0);
  EXPECT_DOUBLE_EQ(*m.at(2, 1), 150.0);
}

TEST(P2pMatrix, SeparateMatricesPerParameterSet) {
  auto rows = fixture_rows();
  rows.push_back(p2p_row(0, 1, {20.0}, "off"));
  const auto matrices = build_p2p_matrices(rows);
  ASSERT_EQ(matrices.size(), 2u);
  EXPECT_NE(matrices[1].title.find("peer_access:off"), std::string::npos);
  EXPECT_EQ(matrices[1].size, 2);
}

TEST(P2pMatrix, FindsOnlyThePairFarBelowItsSiblings) {
  const auto matrices = build_p2p_matrices(fixture_rows());
  const auto slow = find_slow_pairs(matrices[0]);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].src, 2);
  EXPECT_EQ(slow[0].dst, 1);
  EXPECT_DOUBLE_EQ(slow[0].value, 150.0);
  EXPECT_NEAR(slow[0].siblings_median, 398.0, 1.0);
  // A uniform matrix (differences within noise) has no slow pair.
  std::vector<results::ResultRow> even;
  for (int s = 0; s < 3; ++s) {
    for (int d = 0; d < 3; ++d) {
      if (s != d) even.push_back(p2p_row(s, d, {390.0 + 5 * s}));
    }
  }
  EXPECT_TRUE(find_slow_pairs(build_p2p_matrices(even)[0]).empty());
}

// FIXTURE: 4 GPUs where 0<->1 have 2 NVLinks (50 GB/s) and the other pairs 4 (100 GB/s), each
// pair at 90% of its link, except 1 -> 0 at 60% of its 2 links.
std::vector<results::ResultRow> two_class_rows(bool with_pct) {
  std::vector<results::ResultRow> rows;
  for (int s = 0; s < 4; ++s) {
    for (int d = 0; d < 4; ++d) {
      if (s == d) continue;
      const bool narrow = s + d == 1;
      const double link = narrow ? 50.0 : 100.0;
      const double pct = (s == 1 && d == 0) ? 60.0 : 90.0;
      rows.push_back(p2p_row(s, d, {link * pct / 100.0}));
      if (with_pct) {
        results::ResultRow r = p2p_row(s, d, {pct});
        r.metric = "pct_of_link";
        r.unit = "%";
        rows.push_back(r);
      }
    }
  }
  return rows;
}

TEST(P2pMatrix, SlowPairsAreJudgedWithinTheirLinkClass) {
  const auto with_links = build_p2p_matrices(two_class_rows(true));
  ASSERT_EQ(with_links.size(), 1u);  // pct_of_link is no matrix of its own
  ASSERT_TRUE(with_links[0].link_at(0, 1));
  EXPECT_NEAR(*with_links[0].link_at(0, 1), 50.0, 1e-9);
  EXPECT_NEAR(*with_links[0].link_at(0, 2), 100.0, 1e-9);
  const auto slow = find_slow_pairs(with_links[0]);
  ASSERT_EQ(slow.size(), 1u);  // only 1 -> 0, against the other 2-link pair
  EXPECT_EQ(slow[0].src, 1);
  EXPECT_EQ(slow[0].dst, 0);
  EXPECT_NEAR(slow[0].siblings_median, 45.0, 1e-9);
  // Without link rates both 2-link pairs look slow next to the 4-link ones.
  const auto blind = find_slow_pairs(build_p2p_matrices(two_class_rows(false))[0]);
  EXPECT_EQ(blind.size(), 2u);
}

// FIXTURE: a 2-socket PCIe box, 8 GPUs, every one at PCIe Gen5 x16 (64 GB/s): GPUs 0-5 under
// the switches of socket 0, GPUs 6-7 on socket 1. Pairs on one socket do 50 GB/s, CUDA
// performance rank 0; pairs across the sockets 30 GB/s, rank 1 (the labels say so, as the
// transfer suite writes them). `degraded`: 0 -> 1 does 20 GB/s.
std::vector<results::ResultRow> two_socket_rows(bool with_ranks, bool degraded) {
  std::vector<results::ResultRow> rows;
  auto socket = [](int gpu) { return gpu < 6 ? 0 : 1; };
  for (int s = 0; s < 8; ++s) {
    for (int d = 0; d < 8; ++d) {
      if (s == d) continue;
      const bool across = socket(s) != socket(d);
      const double v = degraded && s == 0 && d == 1 ? 20.0 : across ? 30.0 : 50.0;
      const std::string label =
          "GPU " + std::to_string(s) + " -> GPU " + std::to_string(d) +
          "; PCIe peer-to-peer over PCIe Gen5 x16" +
          (with_ranks ? std::string("; CUDA performance rank ") + (across ? "1" : "0")
                      : std::string());
      results::ResultRow r = p2p_row(s, d, {v});
      r.label = label;
      rows.push_back(r);
      results::ResultRow pct = p2p_row(s, d, {v * 100.0 / 64.0});
      pct.metric = "pct_of_link";
      pct.unit = "%";
      pct.label = label;
      rows.push_back(pct);
    }
  }
  return rows;
}

TEST(P2pMatrix, PciePairsAcrossSocketsAreAClassOfTheirOwnByPerformanceRank) {
  const auto m = build_p2p_matrices(two_socket_rows(true, false));
  ASSERT_EQ(m.size(), 1u);
  ASSERT_TRUE(m[0].perf_rank_at(0, 7));
  EXPECT_EQ(*m[0].perf_rank_at(0, 7), 1);
  EXPECT_EQ(*m[0].perf_rank_at(0, 1), 0);
  EXPECT_NEAR(*m[0].link_at(0, 7), *m[0].link_at(0, 1), 1e-9);  // one PCIe rate for all pairs
  EXPECT_TRUE(find_slow_pairs(m[0]).empty()) << "cross-socket pairs are not slow links";
  // Without the rank (an older suite's labels) the 24 cross-socket pairs read as slow.
  EXPECT_EQ(find_slow_pairs(build_p2p_matrices(two_socket_rows(false, false))[0]).size(), 24u);
  // A bad same-socket link is still found, against its own class.
  const auto slow = find_slow_pairs(build_p2p_matrices(two_socket_rows(true, true))[0]);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].src, 0);
  EXPECT_EQ(slow[0].dst, 1);
  EXPECT_DOUBLE_EQ(slow[0].siblings_median, 50.0);
}

TEST(P2pMatrix, PerformanceRankIsReadFromTheLabel) {
  EXPECT_EQ(perf_rank_in_label("GPU 0 GPU-a -> GPU 1 GPU-b; NVLink; CUDA performance rank 0"), 0);
  EXPECT_EQ(perf_rank_in_label("x; CUDA performance rank 12"), 12);
  EXPECT_FALSE(perf_rank_in_label("GPU 0 -> GPU 1; PCIe Gen4 x16"));
  EXPECT_FALSE(perf_rank_in_label("CUDA performance rank "));
}

TEST(P2pMatrix, RendersTheMatrixAndNamesTheSlowPairWithUuids) {
  auto rows = fixture_rows();
  results::ResultRow skipped = p2p_row(3, 2, {});
  skipped.status = results::BenchmarkStatus::skipped;
  skipped.message = "GPU 3 cannot access GPU 2 as a peer";
  skipped.metric.clear();
  rows.push_back(skipped);
  std::ostringstream out;
  print_p2p_matrices(out, build_p2p_matrices(rows));
  const std::string text = out.str();
  EXPECT_NE(text.find("row = source GPU, column = destination GPU"), std::string::npos) << text;
  EXPECT_NE(text.find("150.0"), std::string::npos) << text;
  EXPECT_NE(text.find("slow pair: GPU 2 (GPU-fixture-2) -> GPU 1 (GPU-fixture-1): 150.0 GB/s"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("not measured: 3->2: skipped: GPU 3 cannot access GPU 2 as a peer"),
            std::string::npos)
      << text;
  const auto j = p2p_matrices_json(build_p2p_matrices(rows));
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0]["slow_pairs"][0]["src_uuid"], "GPU-fixture-2");
  EXPECT_TRUE(j[0]["cells"][1][1].is_null());
  EXPECT_DOUBLE_EQ(j[0]["cells"][2][1].get<double>(), 150.0);
}

// Issue 35: a run measures each suite in several executions, each its own suite run with its own
// row of every pair. A cell is the median over every execution's values (not the last row's), and
// a pair skipped the same way in each execution is noted once.
TEST(P2pMatrix, ExecutionsOfAPairArePooledIntoOneCell) {
  std::vector<results::ResultRow> rows;
  int64_t suite_run_id = 1;
  for (const std::vector<double>& values :
       {std::vector<double>{100, 110}, std::vector<double>{120}, std::vector<double>{400}}) {
    for (const auto& [src, dst] : {std::pair{0, 1}, std::pair{1, 0}}) {
      rows.push_back(p2p_row(src, dst, values));
      rows.back().suite_run_id = suite_run_id;
    }
    results::ResultRow skipped = p2p_row(1, 1, {});
    skipped.status = results::BenchmarkStatus::skipped;
    skipped.message = "a GPU is not its own peer";
    skipped.metric.clear();
    skipped.suite_run_id = suite_run_id++;
    rows.push_back(skipped);
  }
  const auto matrices = build_p2p_matrices(rows);
  ASSERT_EQ(matrices.size(), 1u);
  // Median of {100, 110, 120, 400} = 115; the last execution alone would be 400.
  ASSERT_TRUE(matrices[0].at(0, 1));
  EXPECT_DOUBLE_EQ(*matrices[0].at(0, 1), 115.0);
  EXPECT_DOUBLE_EQ(*matrices[0].at(1, 0), 115.0);
  EXPECT_EQ(matrices[0].not_measured,
            std::vector<std::string>{"1->1: skipped: a GPU is not its own peer"});
}

TEST(P2pMatrix, NoPeerResultsNoMatrix) {
  std::ostringstream out;
  print_p2p_matrices(out, build_p2p_matrices({}));
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace gpubench::harness
