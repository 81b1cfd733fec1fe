// End-to-end (issue 25): `gpubench history`, `history --changes` and `annotate` through the real
// binary on a real SQLite file. The runs are FIXTURES written through the store: 60 nightly runs
// of two benchmarks with 1% run-to-run noise (seeded), a -6% step from run 41 where the driver
// changes, and a tag that differs every night (so the ranking has to tell the driver first).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>

#include "e2e_support.hpp"
#include "history_fixture.hpp"
#include "results/change_points.hpp"
#include "results/sqlite/sqlite.hpp"
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
  // real_time 6% lower is 6% faster: better, by the metric's direction (issue 39).
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\nrun 41 \\(2026-02-13, driver 570\\.86 → 575\\.51\\): 2 primary "
                        "series: 0 worse, 2 better \\(geomean \\+[56]\\.[0-9]% speed "
                        "\\[\\+[4-6]\\.[0-9], \\+[5-7]\\.[0-9]\\]\\)\n")))
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
  EXPECT_EQ(change["primary_worse"]["series"], 0);
  EXPECT_EQ(change["primary_better"]["series"], 2);
  EXPECT_GT(change["primary_better"]["low"].get<double>(), 1.04);  // a speed-up: > 1 is better
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

TEST(E2eHistory, AnnotationsAreShownByCompareAndReport) {
  Workspace ws;
  make_fixture_db(ws.db(), 45, 41, 0.94, 7);
  ASSERT_EQ(ws.run({"annotate", "41", "driver upgrade"}).exit_code, 0);
  ASSERT_EQ(ws.run({"annotate", "40", "BIOS 2.1"}).exit_code, 0);
  const CliResult text = ws.run({"compare", "40", "41"});
  ASSERT_LE(text.exit_code, 1) << text.out << text.err;
  EXPECT_TRUE(contains(text.out, "annotated: base run 40: BIOS 2.1\n")) << text.out;
  EXPECT_TRUE(contains(text.out, "annotated: candidate run 41: driver upgrade\n")) << text.out;
  const CliResult md = ws.run({"compare", "40", "41", "--format", "md"});
  EXPECT_TRUE(contains(md.out, "| annotations | 40: BIOS 2.1 | 41: driver upgrade |")) << md.out;
  const CliResult js = ws.run({"compare", "40", "41", "--format", "json"});
  const json doc = json::parse(js.out);
  EXPECT_EQ(doc["candidate"]["annotations"],
            json::parse(R"([{"run": 41, "text": "driver upgrade"}])"));
  EXPECT_EQ(doc["base"]["annotations"][0]["text"], "BIOS 2.1");
  const CliResult html = ws.run({"compare", "40", "41", "--format", "html"});
  EXPECT_TRUE(contains(html.out, "Annotated: candidate run 41: driver upgrade")) << html.out;
  // The report of one run lists its annotations with its environment, in every format.
  const CliResult report = ws.run({"report", "41"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(std::regex_search(report.out, std::regex("annotations: driver upgrade")))
      << report.out;
  const CliResult report_json = ws.run({"report", "41", "--format", "json"});
  EXPECT_EQ(json::parse(report_json.out)["environment"]["annotations"], "driver upgrade");
  // A run without annotations has no such line.
  EXPECT_FALSE(contains(ws.run({"report", "42"}).out, "annotations"));
  EXPECT_FALSE(contains(ws.run({"compare", "42", "43"}).out, "annotated:"));
}

// FIXTURE: two steps (x0.94 from night 16, x0.88 from night 36), 1% run-to-run noise.
double two_steps(int night) {
  return night >= 36 ? 0.88 : night >= 16 ? 0.94 : 1.0;
}

std::vector<int64_t> stored_runs(const fs::path& db) {
  results::Store store = results::Store::open(db, results::OpenMode::read_only);
  std::vector<int64_t> runs;
  for (const auto& row : results::list_change_points(store.database())) runs.push_back(row.run_id);
  std::sort(runs.begin(), runs.end());
  return runs;
}

void add_nights(const fs::path& db, int first, int last, double (*level)(int), uint64_t seed) {
  results::Store store = results::Store::open(db, results::OpenMode::read_write_create);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> between(0.0, 0.01);
  for (int night = first; night <= last; ++night) {
    add_fixture_run(store, night, std::exp(between(rng)) * level(night), "570.86", rng);
  }
}

TEST(E2eHistory, RecordRecomputesOnlyTheTailsANewRunTouched) {
  Workspace ws;
  add_nights(ws.db(), 1, 50, two_steps, 3);
  const CliResult first = ws.run({"history", "all", "--record"});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_TRUE(contains(first.err,
                       "(detected in full: 2; on the tail only: 0, 0 runs in all; "
                       "unchanged since the last --record: 0)"))
      << first.err;
  EXPECT_EQ(stored_runs(ws.db()), (std::vector<int64_t>{16, 16, 36, 36}));

  // No new run: nothing is detected again, and the stored change points stand.
  const CliResult same = ws.run({"history", "all", "--record"});
  EXPECT_TRUE(contains(same.err,
                       "detected in full: 0; on the tail only: 0, 0 runs in all; "
                       "unchanged since the last --record: 2"))
      << same.err;
  EXPECT_EQ(stored_runs(ws.db()), (std::vector<int64_t>{16, 16, 36, 36}));

  // Ten new nights with a third step at night 55: only the tail from run 36 (the last change) is
  // detected again, 25 runs of each series, and the new step is found.
  add_nights(
      ws.db(), 51, 60, [](int night) { return night >= 55 ? 0.82 : two_steps(night); }, 4);
  const CliResult tail = ws.run({"history", "all", "--record"});
  ASSERT_EQ(tail.exit_code, 0) << tail.err;
  EXPECT_TRUE(contains(tail.err, "recorded 6 change points of 2 series")) << tail.err;
  EXPECT_TRUE(contains(tail.err, "detected in full: 0; on the tail only: 2, 50 runs in all"))
      << tail.err;
  const std::vector<int64_t> expected = {16, 16, 36, 36, 55, 55};
  EXPECT_EQ(stored_runs(ws.db()), expected);
  // The same as a full recomputation.
  const CliResult full = ws.run({"history", "all", "--record", "--full"});
  EXPECT_TRUE(contains(full.err, "detected in full: 2;")) << full.err;
  EXPECT_EQ(stored_runs(ws.db()), expected);

  // A run of another host is a series of its own: the fixture node's series stand.
  {
    results::Store store = results::Store::open(ws.db(), results::OpenMode::read_write);
    std::mt19937_64 rng(9);
    add_fixture_run(store, 61, 1.0, "570.86", rng, "other-node");
  }
  const CliResult other = ws.run({"history", "all", "--record"});
  EXPECT_TRUE(contains(other.err,
                       "detected in full: 2; on the tail only: 0, 0 runs in all; "
                       "unchanged since the last --record: 2"))
      << other.err;
  // Other parameters, or a run that now precedes the scanned ones: detected in full again.
  const CliResult reseeded = ws.run({"history", "all", "--record", "--seed", "2"});
  EXPECT_TRUE(contains(reseeded.err, "detected in full: 4;")) << reseeded.err;
  {
    results::Store store = results::Store::open(ws.db(), results::OpenMode::read_write);
    std::mt19937_64 rng(10);
    add_fixture_run(store, 0, 1.0, "570.86", rng, "fixture-node", "2025-12-31T02:00:00.000Z");
  }
  const CliResult merged = ws.run({"history", "all", "--record", "--seed", "2"});
  EXPECT_TRUE(contains(merged.err,
                       "detected in full: 2; on the tail only: 0, 0 runs in all; "
                       "unchanged since the last --record: 2"))
      << merged.err;
  EXPECT_EQ(ws.run({"history", "all", "--full"}).exit_code, 2);  // --full needs --record
}

// A scan vouches only for change points recorded with its parameters. An older gpubench's
// --record replaces a group's change points (with its own parameters) and leaves the scans: here
// its rows are simulated by rewriting the stored parameters. The next record detects in full.
TEST(E2eHistory, RecordDetectsInFullWhenTheChangePointsHaveOtherParameters) {
  Workspace ws;
  add_nights(ws.db(), 1, 50, two_steps, 3);
  ASSERT_EQ(ws.run({"history", "all", "--record"}).exit_code, 0);
  {
    results::Store store = results::Store::open(ws.db(), results::OpenMode::read_write);
    store.database().exec(
        "UPDATE change_points SET detail = json_set(detail, '$.parameters.seed', 7)");
  }
  const CliResult again = ws.run({"history", "all", "--record"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(contains(again.err,
                       "detected in full: 2; on the tail only: 0, 0 runs in all; "
                       "unchanged since the last --record: 0)"))
      << again.err;
  EXPECT_EQ(stored_runs(ws.db()), (std::vector<int64_t>{16, 16, 36, 36}));
}

// An older gpubench's --record, or one with other parameters that finds nothing, deletes change
// points and leaves the scans (issue 43, defect 5): each scan says how many change points it
// stored, so the next record finds them gone, detects those series in full and stores them again
// (it recorded 0, "unchanged", for good). All of them deleted, then one series' only.
TEST(E2eHistory, RecordDetectsInFullWhenStoredChangePointsAreGone) {
  for (const bool all : {true, false}) {
    SCOPED_TRACE(all ? "all deleted" : "one series' deleted");
    Workspace ws;
    add_nights(ws.db(), 1, 50, two_steps, 3);
    ASSERT_EQ(ws.run({"history", "all", "--record"}).exit_code, 0);
    const std::vector<int64_t> recorded = stored_runs(ws.db());
    ASSERT_EQ(recorded, (std::vector<int64_t>{16, 16, 36, 36}));
    {
      results::Store store = results::Store::open(ws.db(), results::OpenMode::read_write);
      store.database().exec(all ? "DELETE FROM change_points"
                                : "DELETE FROM change_points WHERE benchmark_id = (SELECT "
                                  "min(benchmark_id) FROM change_points)");
    }
    const CliResult again = ws.run({"history", "all", "--record"});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_TRUE(contains(again.err, "recorded 4 change points of 2 series")) << again.err;
    EXPECT_TRUE(contains(again.err, all ? "detected in full: 2;" : "detected in full: 1;"))
        << again.err;
    EXPECT_EQ(stored_runs(ws.db()), recorded);
    // Whole again: the next record with nothing new reuses every scan.
    const CliResult same = ws.run({"history", "all", "--record"});
    EXPECT_TRUE(contains(same.err, "unchanged since the last --record: 2)")) << same.err;
  }
}

// Replacing a group's change points drops the group's scans with them: a scan left behind would
// vouch for change points that are gone.
TEST(E2eHistory, ReplacingAGroupsChangePointsDropsItsScans) {
  Workspace ws;
  add_nights(ws.db(), 1, 50, two_steps, 3);
  ASSERT_EQ(ws.run({"history", "all", "--record"}).exit_code, 0);
  results::Store store = results::Store::open(ws.db(), results::OpenMode::read_write);
  const std::vector<results::ChangePointScan> scans =
      results::list_change_point_scans(store.database());
  ASSERT_EQ(scans.size(), 2u);
  const results::ChangePointScan& first = scans.front();
  results::replace_change_points(
      store.database(), {{first.benchmark_id, first.metric_id, first.hardware_class}}, {}, {});
  const std::vector<results::ChangePointScan> left =
      results::list_change_point_scans(store.database());
  ASSERT_EQ(left.size(), 1u);
  EXPECT_FALSE(left.front().benchmark_id == first.benchmark_id &&
               left.front().metric_id == first.metric_id);
}

// FIXTURE Google Benchmark file (made-up numbers): one benchmark with a time and a counter that
// is 0 in every repetition (as the dataloader's resident_fraction of a cold read).
constexpr const char* k_zero_counter = R"({"context": {"date": "2026-12-02T16:00:00+00:00",
  "host_name": "fixture-host", "num_cpus": 2}, "benchmarks": [
  {"name": "fx/read", "run_name": "fx/read", "run_type": "iteration", "repetitions": 2,
   "repetition_index": 0, "threads": 1, "iterations": 1, "real_time": 100, "cpu_time": 90,
   "time_unit": "ns", "resident_fraction": 0},
  {"name": "fx/read", "run_name": "fx/read", "run_type": "iteration", "repetitions": 2,
   "repetition_index": 1, "threads": 1, "iterations": 1, "real_time": 110, "cpu_time": 95,
   "time_unit": "ns", "resident_fraction": 0}]})";

// A series whose medians are 0 has no change points; a second record with nothing new reuses it
// like any other series (it was counted as detected in full).
TEST(E2eHistory, RecordReusesSeriesWithZeroMedians) {
  Workspace ws;
  const fs::path file = ws.root() / "zero.json";
  write_file_atomic(file, k_zero_counter);
  ASSERT_EQ(ws.run({"import", file.string(), "--suite", "fx"}).exit_code, 0);
  const CliResult first = ws.run({"history", "all", "--record"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(contains(first.err, "of 2 series")) << first.err;
  const CliResult again = ws.run({"history", "all", "--record"});
  EXPECT_TRUE(contains(again.err,
                       "detected in full: 0; on the tail only: 0, 0 runs in all; "
                       "unchanged since the last --record: 2"))
      << again.err;
}

}  // namespace
}  // namespace gpubench::e2e
