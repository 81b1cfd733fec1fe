// End-to-end (issue 25): `gpubench history`, `history --changes` and `annotate` through the real
// binary on a real SQLite file. The runs are FIXTURES written through the store: 60 nightly runs
// of two benchmarks with 1% run-to-run noise (seeded), a -6% step from run 41 where the driver
// changes, and a tag that differs every night (so the ranking has to tell the driver first).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "e2e_support.hpp"
#include "history_fixture.hpp"
#include "results/change_points.hpp"
#include "util/fs.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(E2eHistory, ChangesFindsTheStepAtRun41WithTheDriverFirst) {
  Workspace ws;
  make_fixture_db(ws.db(), 60, 41, 0.94, 7);
  const CliResult r = ws.run({"history", "tag:ci=nightly", "--changes"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\nrun 41 \\(2026-02-13, driver 570\\.86 → 575\\.51\\): 2 series, "
                        "geomean -[56]\\.[0-9]% \\[-[5-7]\\.[0-9], -[4-6]\\.[0-9]\\]\n")))
      << r.out;
  EXPECT_EQ(count_of(r.out, "\nrun "), 1u) << r.out;  // exactly one change point run

  const CliResult j = ws.run({"history", "tag:ci=nightly", "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json doc = json::parse(j.out);
  ASSERT_EQ(doc["changes_by_run"].size(), 1u);
  const json& change = doc["changes_by_run"][0];
  EXPECT_EQ(change["run"], 41);
  EXPECT_EQ(change["series"], 2);
  EXPECT_EQ(change["differences"][0]["field"], "driver");
  EXPECT_EQ(change["differences"][1]["field"], "tag night");  // differs every night: ranked after
  EXPECT_LT(change["geomean_high"].get<double>(), 0.96);
  EXPECT_EQ(doc["parameters"]["significance"], "permutation");
  EXPECT_EQ(doc["series"].size(), 2u);
  EXPECT_EQ(doc["series"][0]["points"].size(), 60u);
  EXPECT_EQ(doc["series"][0]["changes"][0]["previous_run"], 40);
}

TEST(E2eHistory, RecordStoresTheChangePointsWithTheirParameters) {
  Workspace ws;
  make_fixture_db(ws.db(), 60, 41, 0.94, 7);
  const CliResult r = ws.run({"history", "all", "--record", "--seed", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "recorded 2 change points of 2 series")) << r.err;
  // Recorded again: replaced, not doubled.
  ASSERT_EQ(ws.run({"history", "all", "--record", "--seed", "5"}).exit_code, 0);
  results::Store store = results::Store::open(ws.db(), results::OpenMode::read_only);
  const auto rows = results::list_change_points(store.database());
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.run_id, 41);
    EXPECT_NEAR(row.magnitude, 0.94, 0.01);
    const json detail = json::parse(row.detail);
    EXPECT_EQ(detail["parameters"]["seed"], 5);
    EXPECT_EQ(detail["parameters"]["significance"], "permutation");
    EXPECT_EQ(detail["previous_run"], 40);
    EXPECT_EQ(detail["differences"][0]["field"], "driver");
  }
}

TEST(E2eHistory, AARunsHaveNoChangePoint) {
  Workspace ws;
  make_fixture_db(ws.db(), 60, 0, 1.0, 11);
  const CliResult r = ws.run({"history", "tag:ci=nightly", "--changes"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "no change points")) << r.out;
}

TEST(E2eHistory, TextHasASparklinePerSeriesAndLastLimitsTheRuns) {
  Workspace ws;
  make_fixture_db(ws.db(), 60, 41, 0.94, 7);
  const CliResult r = ws.run({"history", "all", "--benchmark", "work:4$", "--last", "30"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "history of all: 30 runs")) << r.out;
  EXPECT_TRUE(contains(r.out, "calibration/spin/work:4 real_time host")) << r.out;
  EXPECT_FALSE(contains(r.out, "work:1")) << r.out;
  EXPECT_TRUE(contains(r.out, "▁")) << r.out;
  EXPECT_TRUE(contains(r.out, "█")) << r.out;
  EXPECT_TRUE(contains(r.out, "change at run 41")) << r.out;
}

TEST(E2eHistory, MarkdownHtmlAndCsv) {
  Workspace ws;
  make_fixture_db(ws.db(), 60, 41, 0.94, 7);
  const CliResult md = ws.run({"history", "all", "--format", "md"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(contains(md.out, "## history of all: 60 runs")) << md.out;
  EXPECT_TRUE(contains(md.out, "- change at run 41")) << md.out;
  const fs::path html = ws.root() / "history.html";
  ASSERT_EQ(ws.run({"history", "all", "--format", "html", "-o", html.string()}).exit_code, 0);
  const std::string page = read_file(html);
  EXPECT_EQ(count_of(page, "<svg class=\"history\""), 2u);
  EXPECT_EQ(count_of(page, "<g class=\"change-point\">"), 2u);
  EXPECT_FALSE(contains(page, "<script"));
  const CliResult csv = ws.run({"history", "all", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(count_of(csv.out, "\n"), 121u);  // header + 2 series x 60 runs
  EXPECT_EQ(count_of(csv.out, ",1\n"), 2u);  // one change point row per series
}

TEST(E2eHistory, FailOnChangeOnlyForANewChangePoint) {
  // 60 runs: the change at run 41 is 20 runs old, not new: exit 0.
  Workspace old_change;
  make_fixture_db(old_change.db(), 60, 41, 0.94, 7);
  EXPECT_EQ(old_change.run({"history", "all", "--changes", "--fail-on-change"}).exit_code, 0);
  // 43 runs: the change at run 41 became visible with run 43 (3 runs after it): exit 1.
  Workspace new_change;
  make_fixture_db(new_change.db(), 43, 41, 0.94, 7);
  const CliResult r = new_change.run({"history", "all", "--changes", "--fail-on-change"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "change point at run 41")) << r.err;
}

TEST(E2eHistory, BadInputIsExit2) {
  Workspace ws;
  make_fixture_db(ws.db(), 5, 0, 1.0, 1);
  const CliResult bad_regex = ws.run({"history", "all", "--benchmark", "("});
  EXPECT_EQ(bad_regex.exit_code, 2);
  EXPECT_TRUE(contains(bad_regex.err, "--benchmark is not a valid regular expression"))
      << bad_regex.err;
  EXPECT_EQ(ws.run({"history", "tag:nope=1"}).exit_code, 2);
  EXPECT_EQ(ws.run({"history", "all", "--significance", "magic"}).exit_code, 2);
  EXPECT_EQ(ws.run({"history", "all", "--format", "pdf"}).exit_code, 2);
  EXPECT_EQ(ws.run({"annotate", "99", "BIOS"}).exit_code, 2);
  EXPECT_EQ(ws.run({"annotate", "1", "  "}).exit_code, 2);
}

TEST(E2eHistory, AnnotationsAreShownExportedAndMerged) {
  Workspace ws;
  make_fixture_db(ws.db(), 60, 41, 0.94, 7);
  const CliResult a = ws.run({"annotate", "41", "driver upgrade"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_TRUE(contains(a.out, "run 41: annotated \"driver upgrade\"")) << a.out;
  const CliResult h = ws.run({"history", "all", "--changes"});
  EXPECT_TRUE(contains(h.out, "run 41 (2026-02-13, driver 570.86 → 575.51, \"driver upgrade\")"))
      << h.out;
  EXPECT_TRUE(contains(h.out, "annotated: driver upgrade")) << h.out;

  // Merged into another database with its run.
  const fs::path merged = ws.root() / "merged.db";
  const CliResult m = ws.run({"--db", merged.string(), "import", ws.db().string()});
  ASSERT_EQ(m.exit_code, 0) << m.out << m.err;
  const CliResult hm = ws.run({"--db", merged.string(), "history", "all", "--format", "json"});
  ASSERT_EQ(hm.exit_code, 0) << hm.err;
  const json merged_doc = json::parse(hm.out);
  EXPECT_EQ(merged_doc["runs"][40]["annotations"], json::array({"driver upgrade"}));
  // Exported with its run and imported.
  const fs::path exported = ws.root() / "run41.json";
  ASSERT_EQ(ws.run({"export", "41", "--format", "json", "-o", exported.string()}).exit_code, 0);
  const fs::path other = ws.root() / "other.db";
  const CliResult imp = ws.run({"--db", other.string(), "import", exported.string()});
  ASSERT_EQ(imp.exit_code, 0) << imp.out << imp.err;
  const CliResult ho = ws.run({"--db", other.string(), "history", "all", "--format", "json"});
  ASSERT_EQ(ho.exit_code, 0) << ho.err;
  EXPECT_EQ(json::parse(ho.out)["runs"][0]["annotations"], json::array({"driver upgrade"}));
}

}  // namespace
}  // namespace gpubench::e2e
