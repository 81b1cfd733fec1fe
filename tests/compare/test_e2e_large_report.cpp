// End-to-end (issue 16): the real `gpubench` imports two generated Google Benchmark files of
// 6,000 benchmarks x 3 repetitions (a seeded fixture, not measurements; the candidate 20% slower
// on every 500th benchmark), then `compare` and `report` write large Markdown and HTML: with
// -o FILE the unchanged entries (ok rows) go to FILE's stem + .unchanged.csv (.results.csv),
// named in the report; to stdout they are in a collapsed block (HTML) or not listed (Markdown).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "html_check.hpp"
#include "synthetic_memory_doc.hpp"
#include "tests/suites/run_program.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int k_benchmarks = 6000;  // x 2 metrics compared: 12,000 entries, the large layout

using Result = gpubench::testing::ChildResult;  // out: stdout and stderr (2>&1)

Result sh(const std::string& cmd) {
  return gpubench::testing::run_shell(cmd + " 2>&1");
}

void write_gbench(const fs::path& path, unsigned seed, bool slower) {
  const json doc = gpubench::testing::synthetic_memory_doc(
      k_benchmarks, 3, 0.002, seed, [slower](int b) { return slower && b % 500 == 0 ? 1.2 : 1.0; });
  std::ofstream(path) << doc.dump();
}

class LargeReportE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists(fs::path(GPUBENCH_BIN_DIR) / "gpubench")) return;
    s_dir = new gpubench::TempDir("gpubench-e2e-large");
    write_gbench(s_dir->path() / "base.json", 1, false);
    write_gbench(s_dir->path() / "cand.json", 2, true);
    for (const char* f : {"base.json", "cand.json"}) {
      Result r = gpubench("import " + (s_dir->path() / f).string());
      if (r.exit_code != 0) s_setup_error = "import failed: " + r.out;
    }
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  void SetUp() override {
    if (s_dir == nullptr) GTEST_SKIP() << "gpubench not built";
    ASSERT_EQ(s_setup_error, "");
  }
  static Result gpubench(const std::string& args) {
    return sh("'" + std::string(GPUBENCH_BIN_DIR) + "/gpubench' --db '" +
              (s_dir->path() / "results.db").string() + "' " + args);
  }
  static fs::path path(const std::string& name) { return s_dir->path() / name; }

  // Entries of a verdict from `compare --format json` (benchmark + " " + metric).
  static std::vector<json> results_with(const std::string& verdict) {
    Result r = gpubench("compare 1 2 --history 0 --format json");
    std::vector<json> out;
    const json doc = json::parse(r.out);  // kept alive: the loop below refers into it
    for (const json& e : doc["results"]) {
      if (e["verdict"] == verdict) out.push_back(e);
    }
    return out;
  }

  static inline gpubench::TempDir* s_dir = nullptr;
  static inline std::string s_setup_error;
};

TEST_F(LargeReportE2E, HtmlToFileNamesEveryRegressionAndWritesUnchangedBesideIt) {
  Result r = gpubench("compare 1 2 --history 0 --format html -o " + path("cmp.html").string());
  EXPECT_EQ(r.exit_code, 1) << r.out;  // regressions
  const std::string html = gpubench::read_file(path("cmp.html"));
  EXPECT_EQ(gpubench::compare::testing::check_markup(html, true), "");
  EXPECT_NE(html.find("more than 5000"), std::string::npos);
  const std::vector<json> regressions = results_with("regression");
  EXPECT_GE(regressions.size(), 10u);  // 12 slowed benchmarks x 2 metrics, most decided
  for (const json& e : regressions) {
    EXPECT_NE(html.find("<td class=\"name\">" + e["benchmark"].get<std::string>() + "</td>"),
              std::string::npos)
        << e["benchmark"];
  }
  ASSERT_TRUE(fs::exists(path("cmp.unchanged.csv")));
  EXPECT_NE(html.find("<a href=\"cmp.unchanged.csv\">"), std::string::npos);
  const std::string csv = gpubench::read_file(path("cmp.unchanged.csv"));
  const auto lines = static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n'));
  EXPECT_EQ(lines, results_with("unchanged").size() + 1);
  EXPECT_LT(html.size(), 2u * 1000 * 1000);  // 12,000 entries; the full table was ~5 MB
}

TEST_F(LargeReportE2E, StdoutHtmlHasUnchangedInACollapsedBlockAndMarkdownSaysHowToGetThem) {
  Result html = gpubench("compare 1 2 --history 0 --format html");
  EXPECT_EQ(html.exit_code, 1);
  EXPECT_NE(html.out.find(" unchanged entries</summary>"), std::string::npos);
  // No sidecar for stdout: not even one named after "-", where gpubench ran (this directory).
  EXPECT_FALSE(fs::exists(fs::current_path() / "-.unchanged.csv"));
  Result md = gpubench("compare 1 2 --history 0 --format md");
  EXPECT_EQ(md.exit_code, 1);
  EXPECT_NE(md.out.find("Not listed here: write the report with -o FILE"), std::string::npos);
  for (const json& e : results_with("regression")) {
    EXPECT_NE(md.out.find(e["benchmark"].get<std::string>()), std::string::npos);
  }
  Result md_file = gpubench("compare 1 2 --history 0 --format md -o " + path("md.md").string());
  EXPECT_EQ(md_file.exit_code, 1) << md_file.out;
  EXPECT_TRUE(fs::exists(path("md.unchanged.csv")));
  EXPECT_NE(gpubench::read_file(path("md.md")).find("listed in md.unchanged.csv"),
            std::string::npos);
}

TEST_F(LargeReportE2E, RunReportWritesOkRowsBesideTheFile) {
  Result r = gpubench("report 1 --format html -o " + path("run.html").string());
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string html = gpubench::read_file(path("run.html"));
  EXPECT_NE(html.find("<a href=\"run.results.csv\">"), std::string::npos);
  const std::string csv = gpubench::read_file(path("run.results.csv"));
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')),
            2u * k_benchmarks + 1);  // GB_per_s and real_time a benchmark, plus the header
  // An unwritable place for the CSV is bad input, named, exit 2 (checked before any work).
  Result bad = gpubench("report 1 --format html -o " + path("no/such/dir/run.html").string());
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  EXPECT_NE(bad.out.find("does not exist"), std::string::npos) << bad.out;
}

}  // namespace
