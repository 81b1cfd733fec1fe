// Issue 26 against the real binary: "did you mean" for commands, options and selectors, and
// `show` keeping expected NaN of Google Benchmark's aggregate rows out of the invalid-values table.
#include <fstream>

#include "chromium_labels.hpp"
#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

TEST(E2eReports, DidYouMeanForCommandsAndOptions) {
  Workspace ws;
  CliResult r = ws.run({"comapre", "1", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "did you mean 'gpubench compare'?")) << r.err;
  r = ws.run({"compare", "1", "2", "--thresold", "5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "did you mean '--threshold'?")) << r.err;
  r = ws.run({"run", "--suite", "fixture_okk", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "did you mean '--suite fixture_ok'?")) << r.err;
}

TEST(E2eReports, DidYouMeanForSelectors) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  ASSERT_EQ(ws.run({"baseline", "set", "nightly", "1", ws.db_arg()}).exit_code, 0);
  CliResult r = ws.run({"compare", "lates~1", "latest", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "did you mean 'latest'?")) << r.err;
  r = ws.run({"compare", "tga:ci=nightly", "latest", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "did you mean 'tag:ci=nightly'?")) << r.err;
  r = ws.run({"compare", "baseline:nigthly", "latest", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "did you mean 'baseline:nightly'?")) << r.err;
}

// FIXTURE Google Benchmark file (made-up numbers): a counter that is 0 in every repetition has a
// NaN cv aggregate (expected), and one repetition reports a NaN counter (a real problem).
constexpr const char* k_nan_fixture = R"({
  "context": {"date": "2026-12-02T16:00:00+00:00", "host_name": "fixture-host", "num_cpus": 2},
  "benchmarks": [
    {"name": "fixture/load/files:4", "run_name": "fixture/load/files:4", "run_type": "iteration",
     "repetitions": 2, "repetition_index": 0, "threads": 1, "iterations": 1, "real_time": 100,
     "cpu_time": 90, "time_unit": "ns", "retries": 0},
    {"name": "fixture/load/files:4", "run_name": "fixture/load/files:4", "run_type": "iteration",
     "repetitions": 2, "repetition_index": 1, "threads": 1, "iterations": 1, "real_time": 110,
     "cpu_time": 95, "time_unit": "ns", "retries": 0},
    {"name": "fixture/load/files:4_mean", "run_name": "fixture/load/files:4",
     "run_type": "aggregate", "aggregate_name": "mean", "repetitions": 2, "threads": 1,
     "iterations": 2, "real_time": 105, "cpu_time": 92.5, "time_unit": "ns", "retries": 0},
    {"name": "fixture/load/files:4_cv", "run_name": "fixture/load/files:4",
     "run_type": "aggregate", "aggregate_name": "cv", "aggregate_unit": "percentage",
     "repetitions": 2, "threads": 1, "iterations": 2, "real_time": 0.067, "cpu_time": 0.038,
     "time_unit": "ns", "retries": NaN},
    {"name": "fixture/broken", "run_name": "fixture/broken", "run_type": "iteration",
     "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 1, "real_time": 5,
     "cpu_time": 5, "time_unit": "ns", "items": NaN}
  ]
})";

TEST(E2eReports, ShowDemotesExpectedAggregateNaN) {
  Workspace ws;
  const fs::path file = ws.root() / "nan_fixture.json";
  std::ofstream(file) << k_nan_fixture;
  const CliResult imp = ws.run({"import", file.string(), "--suite", "fixture", ws.db_arg()});
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  const CliResult r = ws.run({"show", "latest", ws.db_arg()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The real problem stays in the table, alone.
  EXPECT_TRUE(contains(r.out, "1 reported value kept aside as invalid")) << r.out;
  EXPECT_TRUE(contains(r.out, "fixture/broken")) << r.out;
  // The expected NaN is one note at the end, after the results.
  const std::size_t note = r.out.find(
      "note: 1 NaN in Google Benchmark's own aggregate rows (cv of "
      "retries)");
  EXPECT_NE(note, std::string::npos) << r.out;
  EXPECT_GT(note, r.out.find("load/files:4  real_time")) << r.out;
}

// FIXTURE Google Benchmark file with GPU-suite-like long names and messages (made-up numbers,
// benchmark b takes scale[b] times the base time): three measured benchmarks, one skipped, one
// failed.
std::string long_names_fixture(const std::vector<double>& scale) {
  std::string rows;
  const char* names[] = {
      "gemm/cublaslt/dtype:bf16/m:8192/n:8192/k:8192/layout:tn/epilogue:bias_gelu/"
      "cache:cold/device:0/iterations:10/manual_time",
      "gemm/cublaslt/dtype:fp16/m:8192/n:8192/k:8192/layout:tn/epilogue:bias_gelu/"
      "cache:cold/device:0/iterations:10/manual_time",
      "gemm/cublaslt/dtype:fp32/m:8192/n:8192/k:8192/layout:tn/epilogue:bias_gelu/"
      "cache:cold/device:0/iterations:10/manual_time"};
  for (std::size_t b = 0; b < 3; ++b) {
    const char* name = names[b];
    for (int rep = 0; rep < 3; ++rep) {
      rows += std::string(R"({"name": ")") + name + R"(", "run_name": ")" + name +
              R"(", "run_type": "iteration", "repetitions": 3, "repetition_index": )" +
              std::to_string(rep) + R"(, "threads": 1, "iterations": 10, "real_time": )" +
              std::to_string((1000 + 10 * rep) * scale[b]) +
              R"(, "cpu_time": 5, "time_unit": "us"},)";
    }
  }
  rows +=
      R"JSON({"name": "gemm/cublaslt/dtype:fp8/m:8192/n:8192/k:8192/layout:tn/device:0/iterations:10/manual_time",
    "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
    "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "us", "error_occurred": true,
    "error_message": "skipped: FP8 needs compute capability 8.9 or newer (Ada, Hopper); this GPU is sm_80 (NVIDIA A100-SXM4-80GB), so the FP8 cases are not run"},
   {"name": "gemm/cublaslt/dtype:int8/m:8192/n:8192/k:8192/layout:tn/device:0/iterations:10/manual_time",
    "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
    "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "us", "error_occurred": true,
    "error_message": "cublasLtMatmul failed with CUBLAS_STATUS_NOT_SUPPORTED for this layout and epilogue combination on this device (see the cuBLASLt documentation)"})JSON";
  return R"({"context": {"date": "2026-12-02T16:00:00+00:00", "host_name": "fixture-host", "num_cpus": 2},
    "benchmarks": [)" +
         rows + "]}";
}

// Two imports of the FIXTURE: the second 30% slower on bf16, 50 times slower on fp32 (a wide
// ratio axis).
void import_long_names(const Workspace& ws) {
  int i = 0;
  for (const std::vector<double>& scale :
       {std::vector<double>{1, 1, 1}, std::vector<double>{1.3, 1, 50}}) {
    const fs::path file = ws.root() / ("long_" + std::to_string(++i) + ".json");
    std::ofstream(file) << long_names_fixture(scale);
    const CliResult imp = ws.run({"import", file.string(), "--suite", "gemm", ws.db_arg()});
    ASSERT_EQ(imp.exit_code, 0) << imp.err;
  }
}

TEST(E2eReports, TextFitsColumns120) {
  Workspace ws;
  import_long_names(ws);
  const std::vector<std::pair<std::string, std::string>> columns = {{"COLUMNS", "120"}};
  const std::vector<std::vector<std::string>> commands = {{"show", "latest"},
                                                          {"report", "latest"},
                                                          {"compare", "1", "2"},
                                                          {"accept", "2", "--against", "1"}};
  for (const auto& command : commands) {
    SCOPED_TRACE(command[0]);
    std::vector<std::string> args = command;
    args.push_back(ws.db_arg());
    const CliResult r = ws.run(args, columns);
    EXPECT_LE(r.exit_code, 1) << r.err;
    EXPECT_FALSE(r.out.empty());
    EXPECT_LE(longest_line(r.out), 120u) << r.out;
    EXPECT_EQ(r.out.find("manual_time"), std::string::npos) << r.out;
    args.push_back("--wide");  // everything whole: the same output is wider
    const CliResult wide = ws.run(args, columns);
    EXPECT_GT(longest_line(wide.out), 120u) << wide.out;
  }
  // The first line of show and report says what was measured.
  for (const char* cmd : {"show", "report"}) {
    const CliResult r = ws.run({cmd, "latest", ws.db_arg()}, columns);
    // report leaves the database: it names the run by UUID prefix too (issue 39).
    const std::string run = std::string(cmd) == "report" ? "run 2 (" : "run 2: ";
    EXPECT_EQ(r.out.rfind(run, 0), 0u) << r.out;
    EXPECT_NE(r.out.find(": 1 suite, 5 benchmarks: 3 measured, 1 skipped (FP8 needs"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find(", 1 failed\n"), std::string::npos) << r.out;
  }
  // compare opens with the verdict.
  const CliResult c = ws.run({"compare", "1", "2", ws.db_arg()}, columns);
  EXPECT_EQ(c.out.rfind("FAIL: ", 0), 0u) << c.out;
}

// Lays `html` out in headless Chromium (1400 px wide) and returns "OK" or what is wrong: tick
// labels on one axis that overlap, result rows taller than 56 px (three lines: issue 39 wraps
// benchmark names so the table fits the page; a "why" still opens from one line). The check
// script goes into a copy; the report itself has no scripts.
std::string chromium_layout_check(const std::string& chromium, const fs::path& html,
                                  const fs::path& dir) {
  return chromium_script_result(chromium, html, dir, R"(let ticks=0, rows=0;
document.querySelectorAll('svg.chart').forEach((svg,i)=>{
  const b=[...svg.querySelectorAll('text.tick')].map(t=>t.getBBox()); ticks+=b.length;
  for(let p=0;p<b.length;p++) for(let q=p+1;q<b.length;q++){
    if(Math.abs(b[p].y-b[q].y)<1 && b[p].x<b[q].x+b[q].width && b[q].x<b[p].x+b[p].width)
      out.push('chart '+i+': tick labels overlap: '+svg.querySelectorAll('text.tick')[p].textContent
               +' / '+svg.querySelectorAll('text.tick')[q].textContent);}});
document.querySelectorAll('table.results tr').forEach((tr,i)=>{rows++;
  const h=tr.getBoundingClientRect().height; if(h>56) out.push('row '+i+' is '+Math.round(h)+' px');});
const problems=out.splice(0);
out.push('ticks='+ticks+' rows='+rows+' '+(problems.length?problems.join(' | '):'OK'));
)",
                                "1400,1000");
}

// Issue 26: axis labels ran together on a wide ratio axis and one long "why" made each row
// 120-150 px tall. Fails on either, measured in the browser.
TEST(E2eReports, HtmlTicksDoNotOverlapAndRowsStayLow) {
  const std::string chromium = find_chromium_binary();
  if (chromium.empty()) GTEST_SKIP() << "no chromium (ci/setup installs it)";
  Workspace ws;
  import_long_names(ws);
  const fs::path html = ws.root() / "compare.html";
  const CliResult r =
      ws.run({"compare", "1", "2", "--format", "html", "-o", html.string(), ws.db_arg()});
  ASSERT_LE(r.exit_code, 1) << r.err;
  const std::string page = read_file(html);
  EXPECT_NE(page.find("class=\"legend\""), std::string::npos);  // what the colours mean
  const std::string result = chromium_layout_check(chromium, html, ws.root());
  EXPECT_NE(result.find(" rows="), std::string::npos) << result;
  EXPECT_EQ(result.find("rows=0 "), std::string::npos) << result;
  EXPECT_NE(result.find(" OK"), std::string::npos) << result;
}

// FIXTURE Google Benchmark file of an 8-GPU server (made-up numbers): three GEMM cases on each
// GPU (named ".../device:N", with a "device_index" counter), 3 repetitions; GPU `slow` takes
// `factor` times as long on the bf16 case.
std::string eight_gpu_fixture(int slow, double factor) {
  nlohmann::json rows = nlohmann::json::array();
  const char* names[] = {"gemm/cublaslt/dtype:bf16/m:8192/n:8192/k:8192",
                         "gemm/cublaslt/dtype:fp16/m:8192/n:8192/k:8192",
                         "gemm/cublaslt/dtype:tf32/m:8192/n:8192/k:8192"};
  for (int gpu = 0; gpu < 8; ++gpu) {
    for (std::size_t b = 0; b < 3; ++b) {
      for (int rep = 0; rep < 3; ++rep) {
        const double t = (1000 + 5 * rep + gpu) * (gpu == slow && b == 0 ? factor : 1.0);
        // Named per GPU as the suites name them (gemm_cases.cpp: ".../device:N").
        const std::string name =
            std::string(names[b]) + "/device:" + std::to_string(gpu) + "/manual_time";
        rows.push_back(iteration_entry({.name = name,
                                        .repetition = rep,
                                        .repetitions = 3,
                                        .iterations = 10,
                                        .real_time = t,
                                        .cpu_time = 5,
                                        .time_unit = "us",
                                        .with_threads = true},
                                       {{"device_index", gpu}}));
      }
    }
  }
  const nlohmann::json doc = {
      {"context",
       {{"date", "2026-12-02T16:00:00+00:00"}, {"host_name", "fixture-host"}, {"num_cpus", 2}}},
      {"benchmarks", rows}};
  return doc.dump();
}

// Issue 26: a comparison of 8 GPUs was 8 near-identical rows per benchmark. From 4 devices on,
// the HTML results are one row per benchmark and metric with the GPUs as a strip.
TEST(E2eReports, ManyGpusAreOneRowPerBenchmarkWithAStrip) {
  Workspace ws;
  int i = 0;
  for (double factor : {1.0, 1.25}) {
    const fs::path file = ws.root() / ("eight_" + std::to_string(++i) + ".json");
    std::ofstream(file) << eight_gpu_fixture(3, factor);
    const CliResult imp = ws.run({"import", file.string(), "--suite", "gemm", ws.db_arg()});
    ASSERT_EQ(imp.exit_code, 0) << imp.err;
  }
  const fs::path html = ws.root() / "eight.html";
  const CliResult r =
      ws.run({"compare", "1", "2", "--format", "html", "-o", html.string(), ws.db_arg()});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;  // GPU 3's bf16 regression fails the comparison
  const std::string page = read_file(html);
  EXPECT_NE(page.find("<p class=\"verdict-line\"><strong>FAIL: 1 failing"), std::string::npos)
      << page;
  std::size_t strips = 0, squares = 0;
  for (std::size_t at = page.find("<svg class=\"strip\""); at != std::string::npos;
       at = page.find("<svg class=\"strip\"", at + 1)) {
    ++strips;
  }
  for (std::size_t at = page.find("<rect x="); at != std::string::npos;
       at = page.find("<rect x=", at + 1)) {
    if (page.find("height=\"10\" class=", at) < page.find('>', at)) ++squares;
  }
  EXPECT_EQ(strips, 3u) << page;    // one row per benchmark (real_time)
  EXPECT_EQ(squares, 24u) << page;  // 8 GPUs each
  EXPECT_NE(page.find("1 regression, 7 unchanged"), std::string::npos) << page;
  EXPECT_NE(page.find("<title>gpu3: +25"), std::string::npos) << page;
  EXPECT_EQ(page.find("<th>device</th>"), std::string::npos);  // not one row per GPU

  const std::string chromium = find_chromium_binary();
  if (chromium.empty()) GTEST_SKIP() << "no chromium (ci/setup installs it)";
  const std::string result = chromium_layout_check(chromium, html, ws.root());
  EXPECT_NE(result.find(" rows=4 "), std::string::npos) << result;  // header + 3 benchmarks
  EXPECT_NE(result.find(" OK"), std::string::npos) << result;
}

}  // namespace
}  // namespace gpubench::e2e
