// Issue 39 against the real binary: compare, accept and report read in one minute. On the
// FIXTURE database of two 8-GPU gemm runs (tests/fixtures/reports/make_eight_gpu_gemm.py: made-up
// numbers, GPU 3 15% slower in run 2), each opens with its verdict, the failing entries worst
// first, per-GPU verdicts, and fits its budget (compare: 80 lines at 120 columns, Markdown 40 table
// rows); secondary metrics and skipped cases only with --all; runs named by UUID prefix as well
// as id; the compare CSV carries gpu_uuid and primary.
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::size_t line_of(const std::vector<std::string>& lines, const std::string& part) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (contains(lines[i], part)) return i;
  }
  return lines.size();
}

// A workspace holding the fixture's two runs (run 1, then run 2) and their UUIDs.
class EightGpuGemm : public ::testing::Test {
 protected:
  void SetUp() override {
    harness::ProcessSpec spec;
    spec.argv = {
        "/usr/bin/env", "python3",
        (fs::path(GPUBENCH_SOURCE_DIR) / "tests/fixtures/reports/make_eight_gpu_gemm.py").string(),
        "--out", ws.root().string()};
    spec.timeout_s = 60;
    const harness::ProcessResult made = harness::run_process(spec);
    ASSERT_EQ(made.exit_code.value_or(-1), 0) << made.stderr_tail;
    for (const char* file : {"gemm_run1.json", "gemm_run2.json"}) {
      const CliResult r = ws.run({"import", (ws.root() / file).string()});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    const CliResult runs = ws.run({"runs", "--format", "json"});
    ASSERT_EQ(runs.exit_code, 0) << runs.err;
    for (const auto& run : nlohmann::json::parse(runs.out)) {
      uuid[run.at("id").get<int>()] = run.at("uuid").get<std::string>();
    }
    ASSERT_EQ(uuid.size(), 2u) << runs.out;
  }
  CliResult at(int columns, const std::vector<std::string>& args) const {
    return ws.run(args, {{"COLUMNS", std::to_string(columns)}});
  }
  Workspace ws;
  std::map<int, std::string> uuid;  // run id -> UUID
};

TEST_F(EightGpuGemm, CompareTextOpensWithTheFailingEntriesAndFitsEightyLines) {
  const CliResult r = at(120, {"compare", "1", "2"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  // Was 1,660 lines: 4 metric rows a benchmark, a wrapped why column, skips 2 lines each.
  EXPECT_LE(lines.size(), 80u) << r.out;
  EXPECT_LE(longest_line(r.out), 120u) << r.out;
  EXPECT_EQ(lines.front().rfind("FAIL: 5 failing under --fail-on regression", 0), 0u) << r.out;
  // Runs by id and UUID prefix: ids are local to this database.
  EXPECT_TRUE(contains(r.out, "run 1 (" + uuid[1].substr(0, 8) + ")")) << r.out;
  EXPECT_TRUE(contains(r.out, "run 2 (" + uuid[2].substr(0, 8) + ")")) << r.out;
  // What every name shares once; the rows name the rest.
  EXPECT_TRUE(contains(
      r.out, "names:     gemm/cublaslt/dtype:*/m:8192/n:8192/k:8192/layout:nn/cache:hot/device:*"))
      << r.out;
  // The failing entries come first, each with its why on its own indented line under it.
  const std::size_t failing = line_of(lines, "failing under --fail-on regression (5, worst first");
  ASSERT_LT(failing, 12u) << r.out;
  for (std::size_t row = failing + 2; row < failing + 12; row += 2) {
    EXPECT_TRUE(std::regex_search(lines[row], std::regex("^  dtype:[a-z0-9]+/device:3 +gpu3 ")))
        << lines[row];
    EXPECT_TRUE(contains(lines[row], "regression")) << lines[row];
    EXPECT_EQ(lines[row + 1].rfind("      15% worse, between", 0), 0u) << lines[row + 1];
  }
  // Then the per-GPU verdicts.
  EXPECT_EQ(line_of(lines, "per GPU: gpu3 GPU-FIXTURE-00000003: FAIL (5 regressions); 7 GPUs PASS"),
            failing + 12)
      << r.out;
  // The 35 unchanged summarised per suite and GPU; secondary metrics and skips counted.
  EXPECT_TRUE(contains(r.out, "35 unchanged, changes between")) << r.out;
  EXPECT_TRUE(contains(r.out, "(--all lists them):\n  gemm (35): gpu0 5, gpu1 5, gpu2 5, gpu4 5"))
      << r.out;
  EXPECT_TRUE(contains(r.out,
                       "secondary metrics: 120 entries (15 regression, 105 unchanged), not "
                       "counted (--all lists them)"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "pct_of_peak")) << r.out;
  EXPECT_TRUE(contains(r.out, "skipped (8, --all lists them):\n  8 cases: base skipped: int8 GEMM"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "dtype:int8/m:8192")) << r.out;
}

TEST_F(EightGpuGemm, CompareAllListsEverySecondaryMetricAndSkip) {
  const CliResult r = at(120, {"compare", "1", "2", "--all"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "secondary metrics (120, shown, not counted; worst first):"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "pct_of_peak")) << r.out;
  EXPECT_TRUE(contains(r.out, "unchanged (35, TFLOP_per_s):")) << r.out;
  EXPECT_TRUE(contains(r.out, "skipped (8):")) << r.out;
  EXPECT_TRUE(contains(r.out, "dtype:int8/m:8192")) << r.out;
  // Every entry has its row: 40 primary (5 failing, 35 unchanged) and 120 secondary.
  std::size_t rows = 0;
  for (const std::string& l : lines_of(r.out)) rows += l.rfind("  dtype:", 0) == 0 ? 1 : 0;
  EXPECT_GE(rows, 160u) << r.out;
}

TEST_F(EightGpuGemm, CompareMarkdownIsASummaryOfFewRows) {
  const CliResult r = ws.run({"compare", "1", "2", "--format", "md"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  std::size_t rows = 0;
  for (const std::string& l : lines) rows += l.rfind("|", 0) == 0 ? 1 : 0;
  EXPECT_LE(rows, 40u) << r.out;  // was 172
  EXPECT_EQ(lines.front().rfind("## FAIL: 5 failing", 0), 0u) << r.out;
  EXPECT_TRUE(contains(
      r.out, "| runs | 1 (" + uuid[1].substr(0, 8) + ") | 2 (" + uuid[2].substr(0, 8) + ") |"))
      << r.out;
  const std::size_t failing = line_of(lines, "### Failing under --fail-on regression (5");
  const std::size_t per_gpu = line_of(lines, "**Per GPU:** gpu3 GPU-FIXTURE-00000003: FAIL");
  const std::size_t suites = line_of(lines, "### Suites");
  EXPECT_LT(failing, per_gpu) << r.out;
  EXPECT_LT(per_gpu, suites) << r.out;
  EXPECT_TRUE(contains(lines[failing + 4], "| dtype:") && contains(lines[failing + 4], "gpu3"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "35 unchanged, changes between")) << r.out;
  EXPECT_FALSE(contains(r.out, "pct\\_of\\_peak")) << r.out;
  EXPECT_TRUE(contains(r.out, "- 8 cases: base skipped: int8 GEMM")) << r.out;
}

TEST_F(EightGpuGemm, CompareCsvAndJsonNameGpusAndRunsByUuid) {
  const CliResult csv = ws.run({"compare", "1", "2", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 1) << csv.err;
  const std::vector<std::string> lines = lines_of(csv.out);
  ASSERT_GT(lines.size(), 160u);
  EXPECT_TRUE(contains(lines[0], ",reason,gpu_uuid,primary,base_run_uuids,candidate_run_uuids"))
      << lines[0];
  const std::string tail = ",GPU-FIXTURE-00000003,true," + uuid[1] + "," + uuid[2];
  std::size_t primary_gpu3 = 0, secondary = 0;
  for (const std::string& l : lines) {
    primary_gpu3 += contains(l, "TFLOP_per_s") && l.size() > tail.size() &&
                            l.compare(l.size() - tail.size(), tail.size(), tail) == 0
                        ? 1
                        : 0;
    secondary += contains(l, ",false," + uuid[1] + ",") ? 1 : 0;
  }
  EXPECT_EQ(primary_gpu3, 5u) << csv.out;
  EXPECT_EQ(secondary, 120u);
  const CliResult json = ws.run({"compare", "1", "2", "--format", "json"});
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc.at("base").at("run_uuids"), nlohmann::json::array({uuid[1]}));
  EXPECT_EQ(doc.at("candidate").at("run_uuids"), nlohmann::json::array({uuid[2]}));
}

TEST_F(EightGpuGemm, AcceptSaysWhichGpuFailsFirst) {
  const CliResult r = at(120, {"accept", "2", "--against", "1", "--no-record"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  EXPECT_LE(lines.size(), 40u) << r.out;  // was 177 lines
  EXPECT_LE(longest_line(r.out), 120u) << r.out;
  EXPECT_EQ(lines.at(0).rfind("accept 2 against 1: FAIL", 0), 0u) << r.out;
  EXPECT_EQ(lines.at(1),
            "per GPU: gpu3 GPU-FIXTURE-00000003 (bus 0000:48:00.0): FAIL (5 of 5 "
            "checks fail, 5 sibling outliers)")
      << r.out;
  EXPECT_EQ(lines.at(2),
            "per GPU: 7 GPUs PASS (gpu0, gpu1, gpu2, gpu4, gpu5, gpu6, gpu7; 35 checks)")
      << r.out;
  // The failing checks before the outliers, each reason on its own line; passes counted.
  const std::size_t fail = line_of(lines, "  FAIL dtype:");
  EXPECT_LT(fail, line_of(lines, "  OUTLIER gpu3")) << r.out;
  EXPECT_EQ(lines.at(fail + 1).rfind("      15.0% worse than the reference", 0), 0u) << r.out;
  EXPECT_EQ(lines.back(), "35 checks PASS (--all lists them)") << r.out;
  EXPECT_FALSE(contains(r.out, "  PASS ")) << r.out;
  const CliResult all = at(120, {"accept", "2", "--against", "1", "--no-record", "--all"});
  EXPECT_TRUE(contains(all.out, "passed:\n  PASS dtype:bf16/device:0 TFLOP_per_s on gpu0"))
      << all.out;
}

TEST_F(EightGpuGemm, ReportListsPrimaryMetricsAndGroupsSkips) {
  const CliResult r = at(120, {"report", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  EXPECT_EQ(lines.at(0).rfind("run 2 (" + uuid[2].substr(0, 8) + "): 1 suite, 48 benchmarks", 0),
            0u)
      << r.out;
  EXPECT_LE(lines.size(), 80u) << r.out;  // was 371 lines
  // One line for the 8 skipped cases, as `show` groups them, not one 3-line row each.
  EXPECT_TRUE(contains(r.out, "\n8 cases skipped: int8 GEMM needs a layout")) << r.out;
  EXPECT_FALSE(contains(r.out, "  skipped: int8")) << r.out;
  EXPECT_FALSE(contains(r.out, "pct_of_peak")) << r.out;
  EXPECT_TRUE(contains(r.out, "120 rows of secondary metrics not listed (--all lists them)"))
      << r.out;
  const CliResult all = at(120, {"report", "2", "--all"});
  EXPECT_TRUE(contains(all.out, "pct_of_peak")) << all.out;
  EXPECT_TRUE(contains(all.out, "skipped: int8 GEMM")) << all.out;
  const CliResult md = ws.run({"report", "2", "--format", "md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(contains(md.out, "**run 2 (" + uuid[2].substr(0, 8) + "): 1 suite")) << md.out;
  EXPECT_TRUE(contains(md.out, "- 8 cases skipped: int8 GEMM needs a layout")) << md.out;
  EXPECT_FALSE(contains(md.out, "pct\\_of\\_peak")) << md.out;
}

}  // namespace
}  // namespace gpubench::e2e
