// compare --format json streams its entries (issue 16): render_json writes exactly
// comparison_json(cmp).dump(2) and a newline, for entries of every kind (estimated, missing,
// too few samples, unknown direction, history, per-run medians) and the unmatched lists.
// compare_sides pools by sorting both sides and merging: keys in the std::map order they had.
// Samples are FIXTURES (seeded normal draws), not measurements.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "compare/accept/accept.hpp"
#include "compare/render/render.hpp"
#include "fixtures.hpp"

using namespace gpubench::compare;
using namespace gpubench::compare::testing;
using gpubench::results::Direction;

namespace {

Comparison varied_comparison(HistoryNoise* history) {
  Side a, b;
  a.selection = "tag:nightly";
  b.selection = "latest";
  a.runs = {run_detail(1, "550"), run_detail(2, "550"), run_detail(3, "550")};
  b.runs.push_back(run_detail(4, "560 \xc3\xa9"));
  // gpu10 sorts before gpu2 as text: the key order is the byte order of the labels.
  for (int dev : {2, 10, 0}) {
    for (int bytes : {4096, 1024, 65536}) {
      std::string name = "memory/copy/bytes:" + std::to_string(bytes) + "/mode:x/mode:y";
      for (int run = 1; run <= 3; ++run) {  // three base runs: per-run medians
        auto r = row(name, "GB_per_s", "GB/s", Direction::higher,
                     normal_samples(100.0, 0.01, 5, static_cast<unsigned>(bytes + dev + run)), dev);
        r.suite_run_id = run;
        a.results.push_back(r);
      }
      auto c = row(name, "GB_per_s", "GB/s", Direction::higher,
                   normal_samples(bytes == 1024 ? 80.0 : 100.0, 0.01, 5,
                                  static_cast<unsigned>(bytes * 3 + dev)),
                   dev);
      c.suite_run_id = 9;
      b.results.push_back(c);
    }
  }
  // Host rows, an unknown direction, too few samples, a missing side, a skip, unmatched rows.
  a.results.push_back(row("memory/host/n:1", "score", "", Direction::unknown,
                          normal_samples(5, 0.01, 6, 1), std::nullopt));
  b.results.push_back(row("memory/host/n:1", "score", "", Direction::unknown,
                          normal_samples(6, 0.01, 6, 2), std::nullopt));
  a.results.push_back(row("memory/few/n:2", "real_time", "ns", Direction::lower, {1.0, 1.1}));
  b.results.push_back(row("memory/few/n:2", "real_time", "ns", Direction::lower, {1.2, 1.3}));
  a.results.push_back(row("memory/empty/n:3", "real_time", "ns", Direction::lower, {}));
  b.results.push_back(
      row("memory/empty/n:3", "real_time", "ns", Direction::lower, {1.0, 1.0, 1.0}));
  auto skipped = row("gemm/fp8/n:4", "real_time", "ns", Direction::lower, {});
  skipped.status = gpubench::results::BenchmarkStatus::skipped;
  skipped.message = "skipped: FP8 needs sm_89+";
  a.results.push_back(skipped);
  b.results.push_back(row("gemm/fp8/n:4", "real_time", "ns", Direction::lower, {1, 2, 3}));
  a.results.push_back(row("gemm/only_base/n:5", "real_time", "ns", Direction::lower, {1, 2, 3}));
  b.results.push_back(row("fusion/only_cand/n:6", "real_time", "ns", Direction::lower, {1, 2}));
  b.results.push_back(row("aaa/only_cand/n:7", "real_time", "ns", Direction::lower, {1, 2}));
  (*history)[Key{"memory", "memory/copy/bytes:4096/mode:x/mode:y", "GB_per_s", "gpu0"}] =
      SeriesNoise{0.02, 5, 0, 0, true, ""};  // marked usable by hand (a fixture)
  Options options;
  options.history = history;
  options.history_window = 10;
  options.gpubench_version = "test";
  return compare_sides(a, b, options);
}

TEST(RenderStream, JsonIsTheOneDocumentDumpedByteForByte) {
  HistoryNoise history;
  const Comparison cmp = varied_comparison(&history);
  ASSERT_FALSE(cmp.added.empty());
  ASSERT_FALSE(cmp.removed.empty());
  ASSERT_FALSE(cmp.skipped.empty());
  std::ostringstream out;
  render_json(cmp, out);
  EXPECT_EQ(out.str(), comparison_json(cmp).dump(2) + "\n");
  const auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["results"].size(), cmp.entries.size());
}

TEST(RenderStream, EntriesAndUnmatchedAreInKeyOrder) {
  HistoryNoise history;
  const Comparison cmp = varied_comparison(&history);
  for (std::size_t i = 1; i < cmp.entries.size(); ++i) {
    EXPECT_LT(cmp.entries[i - 1].key, cmp.entries[i].key) << i;
  }
  ASSERT_EQ(cmp.added.size(), 2u);
  EXPECT_EQ(cmp.added[0].key.suite, "aaa");
  EXPECT_EQ(cmp.added[1].key.suite, "fusion");
  ASSERT_EQ(cmp.removed.size(), 1u);
  EXPECT_EQ(cmp.removed[0].key.benchmark, "gemm/only_base/n:5");
  // Three base runs pooled per device: per-run medians; the history noise reached its entry.
  bool per_run = false, with_history = false;
  for (const Entry& e : cmp.entries) {
    per_run = per_run || (e.base.per_run && e.base.runs == 3 && e.base.n == 3);
    with_history = with_history || (e.history && e.history->runs == 5);
  }
  EXPECT_TRUE(per_run);
  EXPECT_TRUE(with_history);
}

// accept --format json streams its checks: the bytes of accept_json(result).dump(2).
TEST(RenderStream, AcceptJsonIsTheOneDocumentDumpedByteForByte) {
  Side run, reference;
  run.selection = "latest";
  reference.selection = "baseline:golden";
  for (Side* s : {&run, &reference}) {
    gpubench::results::RunDetail d = run_detail(s == &run ? 2 : 1, "560");
    d.info.gpus.clear();
    for (int i = 0; i < 4; ++i) {
      gpubench::results::GpuInfo g;
      g.nvml_index = i;
      g.uuid = "GPU-fixture-" + std::to_string(i);
      g.pci_bus_id = "0000:" + std::to_string(10 + i) + ":00.0";
      d.info.gpus.push_back(g);
      const double mean = s == &run && i == 3 ? 300.0 : 400.0;  // one slow GPU
      auto r = row("transfer/h2d/bytes:1", "GB_per_s", "GB/s", Direction::higher,
                   normal_samples(mean, 0.005, 8, 7u * static_cast<unsigned>(i) + (s == &run)), i);
      r.gpu_uuid = g.uuid;
      s->results.push_back(r);
    }
    s->runs.push_back(d);
  }
  reference.results.push_back(row("transfer/d2h/bytes:1", "GB_per_s", "GB/s", Direction::higher,
                                  normal_samples(50.0, 0.01, 5, 3), 0));  // missing in the run
  run.results.push_back(
      row("transfer/few/bytes:1", "GB_per_s", "GB/s", Direction::higher, {1.0}, 0));
  reference.results.push_back(
      row("transfer/few/bytes:1", "GB_per_s", "GB/s", Direction::higher, {1.0, 1.1}, 0));
  const AcceptResult r = accept_against_reference(run, reference, AcceptOptions{});
  ASSERT_FALSE(r.checks.empty());
  ASSERT_FALSE(r.outliers.empty());
  ASSERT_FALSE(r.missing.empty());
  std::ostringstream out;
  render_accept_json(r, out);
  EXPECT_EQ(out.str(), accept_json(r).dump(2) + "\n");
}

}  // namespace
