// Issue 38, nightly gates, end to end through the real CLI with real runs of the FIXTURE suites
// (fixture_ok, fixture_fail, fixture_fake: made-up numbers) and imported FIXTURE files: the
// rolling baseline baseline:previous-good, a suite or benchmark of the base that the candidate
// did not run failing under the default --fail-on, and imported runs marked and kept out of
// `latest` and of the rolling baseline.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <thread>

#include <nlohmann/json.hpp>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

std::string this_host() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// A Google Benchmark file of suite `suite` with one entry per name (3 repetitions, 1000 items/s),
// dated `date`, from this host. FIXTURE numbers.
std::string gb_file(const std::string& suite, const std::vector<std::string>& names,
                    const std::string& date = "2026-12-02T16:00:00+00:00") {
  json doc;
  doc["context"] = {
      {"date", date},
      {"host_name", this_host()},
      {"gpubench.suite", suite},
      {"gpubench.metrics",
       json::array({{{"name", "items_per_s"}, {"unit", "items/s"}, {"direction", "higher"}}})
           .dump()}};
  doc["benchmarks"] = json::array();
  for (const std::string& name : names) {
    for (int rep = 0; rep < 3; ++rep) {
      doc["benchmarks"].push_back(iteration_entry({.name = name,
                                                   .repetition = rep,
                                                   .repetitions = 3,
                                                   .iterations = 10,
                                                   .real_time = 100.0 + rep,
                                                   .cpu_time = 99.0,
                                                   .time_unit = "ns"},
                                                  {{"items_per_s", 1000.0 + rep}}));
    }
  }
  return doc.dump(1);
}

// Now, to the second, as a Google Benchmark context's date.
std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
  return buf;
}

int64_t base_run_of(const Workspace& ws, const std::vector<std::string>& args) {
  std::vector<std::string> full = {"compare"};
  full.insert(full.end(), args.begin(), args.end());
  full.insert(full.end(), {"--format", "json", "--fail-on", "never", ws.db_arg()});
  const CliResult r = ws.run(full);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  if (r.exit_code != 0) return -1;
  const json runs = json::parse(r.out).at("base").at("runs");
  EXPECT_EQ(runs.size(), 1u) << runs;
  return runs.empty() ? -1 : runs[0].get<int64_t>();
}

TEST(E2eNightlyGates, PreviousGoodIsTheNewestGoodRunBeforeTheCandidateOnItsHost) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);  // run 1: good
  // Run 2: a suite failed, so the run is no reference (it also holds fixture_ok's results).
  const CliResult failed = ws.run({"run", "--suite", "fixture_ok,fixture_fail", ws.db_arg()});
  ASSERT_NE(failed.exit_code, 0) << failed.out;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);  // run 3
  EXPECT_EQ(base_run_of(ws, {"baseline:previous-good", "3"}), 1) << "run 2 had a failed suite";
  EXPECT_EQ(base_run_of(ws, {"baseline:previous-good", "2"}), 1);
  // A Google Benchmark file from this host dated between run 3 and run 5, imported (run 4).
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  const fs::path file = ws.root() / "other.json";
  write_file_atomic(file, gb_file("fixture_ok", {"fixture_ok/constant/n:1"}, utc_now()));
  ASSERT_EQ(ws.run({"import", file.string(), ws.db_arg()}).exit_code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);  // run 5
  EXPECT_EQ(base_run_of(ws, {"baseline:previous-good", "5"}), 3) << "the import is no reference";
  // accept takes it as a reference too.
  const CliResult acc = ws.run(
      {"accept", "5", "--against", "baseline:previous-good", "--format", "json", ws.db_arg()});
  EXPECT_EQ(acc.exit_code, 0) << acc.out << acc.err;
  EXPECT_EQ(json::parse(acc.out).at("reference"), "baseline:previous-good") << acc.out;
  // A run left out of history on purpose is no reference either.
  ASSERT_EQ(ws.run({"history", "exclude", "3", "--reason", "fan swap", ws.db_arg()}).exit_code, 0);
  EXPECT_EQ(base_run_of(ws, {"baseline:previous-good", "5"}), 1) << "run 3 is excluded";

  // Nothing good before the first run; the name is reserved; alone it has no run to follow.
  const CliResult first = ws.run({"compare", "baseline:previous-good", "1", ws.db_arg()});
  EXPECT_EQ(first.exit_code, 2) << first.out;
  EXPECT_TRUE(contains(first.err, "baseline:previous-good matches no run before run 1"))
      << first.err;
  const CliResult reserved = ws.run({"baseline", "set", "previous-good", "1", ws.db_arg()});
  EXPECT_EQ(reserved.exit_code, 2) << reserved.out;
  EXPECT_TRUE(contains(reserved.err, "is reserved")) << reserved.err;
  const CliResult alone = ws.run({"show", "baseline:previous-good", ws.db_arg()});
  EXPECT_NE(alone.exit_code, 0) << alone.out;
}

TEST(E2eNightlyGates, ASuiteOrBenchmarkOfTheBaseMissingNowFailsAndIsCounted) {
  Workspace ws;
  const fs::path two = ws.root() / "two.json";
  write_file_atomic(two, gb_file("fixture_fake", {"fixture_fake/a", "fixture_fake/b"}));
  const fs::path one = ws.root() / "one.json";
  write_file_atomic(one, gb_file("fixture_fake", {"fixture_fake/a"}));
  // Run 1: both suites. Run 2: fixture_fake stopped running. Run 3: it lost benchmark b.
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok,fixture_fake", ws.db_arg()},
                   {{"FAKE_JSON", two.string()}})
                .exit_code,
            0);
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok,fixture_fake", ws.db_arg()},
                   {{"FAKE_JSON", one.string()}})
                .exit_code,
            0);

  const CliResult gone = ws.run({"compare", "1", "2", ws.db_arg()});
  EXPECT_EQ(gone.exit_code, 1) << gone.out << gone.err;
  const std::string headline = gone.out.substr(0, gone.out.find('\n'));
  EXPECT_EQ(headline.rfind("FAIL: 2 failing under --fail-on regression (", 0), 0u) << gone.out;
  EXPECT_TRUE(contains(headline, "2 removed: in the base, not in the candidate")) << headline;
  const CliResult md = ws.run({"compare", "1", "2", "--format", "md", ws.db_arg()});
  EXPECT_EQ(md.exit_code, 1);
  EXPECT_TRUE(contains(md.out.substr(0, md.out.find('\n')), "2 removed")) << md.out;
  const CliResult junit = ws.run({"compare", "1", "2", "--format", "junit", ws.db_arg()});
  EXPECT_TRUE(contains(junit.out, "<failure message=\"removed\"")) << junit.out;
  const CliResult js = ws.run({"compare", "1", "2", "--format", "json", ws.db_arg()});
  EXPECT_EQ(json::parse(js.out).at("failing"), 2) << js.out;
  EXPECT_EQ(ws.run({"compare", "1", "2", "--fail-on", "never", ws.db_arg()}).exit_code, 0);

  const CliResult lost_b = ws.run({"compare", "1", "3", ws.db_arg()});
  EXPECT_EQ(lost_b.exit_code, 1) << lost_b.out;
  EXPECT_TRUE(contains(lost_b.out.substr(0, lost_b.out.find('\n')), "1 removed")) << lost_b.out;
  // What the candidate added fails nothing: the other way round passes.
  EXPECT_EQ(ws.run({"compare", "2", "1", ws.db_arg()}).exit_code, 0);
}

TEST(E2eNightlyGates, AnImportedFileIsMarkedAndNeverTheLatestOfADatabaseWithRuns) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);  // run 1
  // A FIXTURE file imported by mistake, dated after every run: it must not become `latest`.
  const fs::path file = ws.root() / "gbench_test_input.json";
  write_file_atomic(
      file, gb_file("fixture_ok", {"fixture_ok/constant/n:1"}, "2099-01-01T00:00:00+00:00"));
  ASSERT_EQ(ws.run({"import", file.string(), ws.db_arg()}).exit_code, 0);  // run 2
  const CliResult runs = ws.run({"runs", "--format", "json", ws.db_arg()});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  bool marked = false;
  for (const json& r : json::parse(runs.out)) {
    if (r.at("id") == 2) marked = r.at("tags").value("imported", "") == "gbench_test_input.json";
  }
  EXPECT_TRUE(marked) << runs.out;
  const CliResult latest = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  ASSERT_EQ(latest.exit_code, 0) << latest.err;
  EXPECT_EQ(json::parse(latest.out).at("run").at("id"), 1) << "the import is not the latest";
  EXPECT_EQ(ws.run({"show", "2", ws.db_arg()}).exit_code, 0) << "an id still selects it";

  // A database of imports only keeps its newest import as latest.
  Workspace imports;
  ASSERT_EQ(imports.run({"import", file.string(), imports.db_arg()}).exit_code, 0);
  const CliResult only = imports.run({"show", "latest", "--format", "json", imports.db_arg()});
  ASSERT_EQ(only.exit_code, 0) << only.err;
  EXPECT_EQ(json::parse(only.out).at("run").at("id"), 1);
}

}  // namespace
}  // namespace gpubench::e2e
