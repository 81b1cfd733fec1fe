// Issue 23, item 22: foreign Google Benchmark files are imported with what they have, never
// refused for benchmarks that carry only aggregate rows. Through the real CLI: google/benchmark's
// own ten test inputs (fixtures, tests/fixtures/gbench_inputs/README.md), an aggregates-only
// file as written by --benchmark_report_aggregates_only, and compare's reading of both.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

fs::path gbench_input(const std::string& name) {
  return fs::path(GPUBENCH_SOURCE_DIR) / "tests/fixtures/gbench_inputs" / (name + ".json");
}

// The compare entry of `benchmark` and `metric`; fails the test when there is none.
json entry_of(const json& doc, const std::string& benchmark, const std::string& metric) {
  for (const json& e : doc["results"]) {
    if (e["benchmark"] == benchmark && e["metric"] == metric) return e;
  }
  ADD_FAILURE() << "no entry for " << benchmark << " " << metric << " in " << doc.dump(1);
  return json::object();
}

// An aggregate row as Google Benchmark 1.7 writes it under --benchmark_report_aggregates_only.
json aggregate_row(const std::string& name, const std::string& statistic, double t) {
  return {{"name", name + "_" + statistic},
          {"run_name", name},
          {"run_type", "aggregate"},
          {"repetitions", 5},
          {"threads", 1},
          {"aggregate_name", statistic},
          {"iterations", 5},
          {"real_time", t},
          {"cpu_time", t},
          {"time_unit", "us"}};
}

json aggregates_only_file(double mean) {
  json rows = json::array();
  for (const auto& [statistic, v] :
       {std::pair<std::string, double>{"mean", mean}, {"median", mean}, {"stddev", 0.5}}) {
    rows.push_back(aggregate_row("BM_Copy/4096", statistic, v));
  }
  json cv = aggregate_row("BM_Copy/4096", "cv", 0.02);
  cv["aggregate_unit"] = "percentage";
  rows.push_back(cv);
  return {{"context", {{"date", "2026-01-01T00:00:00+00:00"}, {"num_cpus", 2}}},
          {"benchmarks", rows}};
}

TEST(E2eAggregates, EveryGoogleBenchmarkTestInputImports) {
  Workspace ws;
  const char* inputs[] = {"test1_run1", "test1_run2", "test2_run",  "test3_run0", "test3_run1",
                          "test4_run",  "test4_run0", "test4_run1", "test5_run0", "test5_run1"};
  for (const char* name : inputs) {
    const CliResult r = ws.run({"import", gbench_input(name).string(), ws.db_arg()});
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
  }
  const CliResult runs = ws.run({"runs", "--format", "json", ws.db_arg()});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_EQ(json::parse(runs.out).size(), 10u) << runs.out;

  // test1_run1 is the first run: its complexity fit is listed, with its O(N).
  const CliResult show = ws.run({"show", "1", ws.db_arg()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(contains(show.out, "complexity fit O(N)")) << show.out;
  EXPECT_TRUE(contains(show.out, "MyComplexityTest")) << show.out;

  // test1_run1 against test1_run2: the fit is listed as skipped, not compared.
  const CliResult cmp = ws.run({"compare", "1", "2", "--format", "json", ws.db_arg()});
  ASSERT_LE(cmp.exit_code, 1) << cmp.err;
  const json doc = json::parse(cmp.out);
  bool listed = false;
  for (const json& s : doc["skipped"]) {
    if (s["benchmark"] == "MyComplexityTest") {
      listed = true;
      EXPECT_TRUE(contains(s["reason"].get<std::string>(), "complexity fit O(N)")) << s.dump();
    }
  }
  EXPECT_TRUE(listed) << cmp.out;
  for (const json& e : doc["results"]) EXPECT_NE(e["benchmark"], "MyComplexityTest") << e.dump();
}

TEST(E2eAggregates, AggregatesOnlyFileIsStoredShownAndInconclusive) {
  Workspace ws;
  const fs::path a = ws.root() / "a.json";
  const fs::path b = ws.root() / "b.json";
  write_file_atomic(a, aggregates_only_file(10.0).dump(2));
  write_file_atomic(b, aggregates_only_file(12.0).dump(2));
  for (const fs::path& f : {a, b}) {
    const CliResult r = ws.run({"import", f.string(), ws.db_arg()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const CliResult show = ws.run({"show", "latest", ws.db_arg()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(contains(show.out, "aggregates only (")) << show.out;
  EXPECT_TRUE(contains(show.out, "mean 12000")) << show.out;  // 12 us, stored in ns
  EXPECT_TRUE(contains(show.out, "rerun with repetitions")) << show.out;

  // Exported, the benchmark says what it is.
  const CliResult exported = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  bool aggregate_kind = false;
  const json run = json::parse(exported.out);
  for (const json& r : run["results"]) {
    if (r["benchmark"] == "BM_Copy/4096") aggregate_kind = r["kind"] == "aggregate";
  }
  EXPECT_TRUE(aggregate_kind) << exported.out;

  // 20% slower in the mean, but one number a side: inconclusive with the reason, never a
  // regression and never a zero-width interval.
  const CliResult cmp =
      ws.run({"compare", "latest~1", "latest", "--format", "json", ws.db_arg()});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.err;
  const json e = entry_of(json::parse(cmp.out), "BM_Copy/4096", "real_time");
  EXPECT_EQ(e["verdict"], "inconclusive") << e.dump();
  EXPECT_TRUE(contains(e["reason"].get<std::string>(), "aggregates only: rerun with repetitions"))
      << e.dump();
  EXPECT_NEAR(e["ratio"].get<double>(), 1.2, 1e-9) << e.dump();
  EXPECT_TRUE(e["ci_low"].is_null()) << e.dump();
  const CliResult strict = ws.run(
      {"compare", "latest~1", "latest", "--fail-on", "inconclusive", ws.db_arg()});
  EXPECT_EQ(strict.exit_code, 1) << strict.out << strict.err;
}

// google/benchmark's tools/gbench/report.py, TestReportDifferenceWithUTest, on the same pair
// expects: medium real -0.3750, cpu -0.3375 (faster in both); BM_Two cpu -0.0111 and -0.1628
// (faster), BM_Two real +0.1111 and -0.1250 (mixed: no direction to agree with). compare.py pairs
// rows by position whatever their run_type; gpubench keeps BM_One (an unnamed aggregate in
// run0) and short (aggregates only in run0) apart as aggregates only, inconclusive, rather than
// reading one statistic against one repetition.
TEST(E2eAggregates, Test3PairAgreesInDirectionWithCompareScript) {
  Workspace ws;
  for (const char* name : {"test3_run0", "test3_run1"}) {
    const CliResult r = ws.run({"import", gbench_input(name).string(), ws.db_arg()});
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
  }
  const CliResult real = ws.run({"compare", "1", "2", "--format", "json", ws.db_arg()});
  ASSERT_LE(real.exit_code, 1) << real.err;
  const json r = json::parse(real.out);
  EXPECT_LT(entry_of(r, "medium", "real_time")["ratio"].get<double>(), 1.0) << real.out;
  for (const char* aggregates_only : {"BM_One", "short"}) {
    const json e = entry_of(r, aggregates_only, "real_time");
    EXPECT_EQ(e["verdict"], "inconclusive") << e.dump();
    EXPECT_TRUE(contains(e["reason"].get<std::string>(), "aggregates only")) << e.dump();
  }
  const CliResult cpu =
      ws.run({"compare", "1", "2", "--metric", "cpu_time", "--format", "json", ws.db_arg()});
  ASSERT_LE(cpu.exit_code, 1) << cpu.err;
  const json c = json::parse(cpu.out);
  EXPECT_LT(entry_of(c, "medium", "cpu_time")["ratio"].get<double>(), 1.0) << cpu.out;
  EXPECT_LT(entry_of(c, "BM_Two", "cpu_time")["ratio"].get<double>(), 1.0) << cpu.out;
}

}  // namespace
}  // namespace gpubench::e2e
