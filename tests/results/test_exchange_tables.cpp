// results/exchange/exchange_tables.cpp: every table of the schema is decided for exchange, and the
// rows an export writes are the ones its run needs.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "results/exchange/exchange.hpp"
#include "results/exchange/exchange_tables.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"

namespace gpubench::results {
namespace {

std::set<std::string> schema_tables(Database& db) {
  std::set<std::string> out;
  Statement st = db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  while (st.step()) out.insert(st.column_text(0));
  return out;
}

TEST(ExchangeTables, EveryTableOfAFreshDatabaseIsDecided) {
  TempDir dir("gpubench-test");
  Store store = Store::open(dir.path() / "fresh.db", OpenMode::read_write_create);
  const std::set<std::string> tables = schema_tables(store.database());
  ASSERT_FALSE(tables.empty());
  for (const std::string& t : tables) {
    EXPECT_NE(find_exchanged_table(t), nullptr)
        << "table " << t << " is not in exchanged_tables(): decide how exchange carries it";
  }
  // And the list names no table the schema does not have.
  for (const ExchangedTable& t : exchanged_tables()) {
    EXPECT_TRUE(tables.count(t.name)) << t.name << " is listed but not in the schema";
    EXPECT_FALSE(t.why.empty()) << t.name;
    const bool exported = t.how != Carried::recomputed && t.how != Carried::not_carried;
    EXPECT_EQ(exported, !t.rows_of_run.empty()) << t.name;
  }
}

TEST(ExchangeTables, ListIsInDependencyOrder) {
  TempDir dir("gpubench-test");
  Store store = Store::open(dir.path() / "fresh.db", OpenMode::read_write_create);
  std::set<std::string> seen;
  for (const ExchangedTable& t : exchanged_tables()) {
    Statement st = store.database().prepare("SELECT \"table\" FROM pragma_foreign_key_list(?1)");
    st.bind(1, t.name);
    while (st.step()) {
      const std::string parent = st.column_text(0);
      if (parent != t.name) {
        EXPECT_TRUE(seen.count(parent)) << t.name << " before " << parent;
      }
    }
    seen.insert(t.name);
  }
}

TEST(ExchangeTables, ExportWritesTheRunsRowsOnly) {
  TempDir dir("gpubench-test");
  Store store = Store::open(dir.path() / "a.db", OpenMode::read_write_create);
  const int64_t first = store.begin_run(testing::sample_run_info());
  store.add_suite_run(first, SuiteRunInfo{});
  store.finish_run(first, RunStatus::complete);
  RunInfo other = testing::sample_run_info();
  other.tags = {{"job", "other"}};
  const int64_t second = store.begin_run(other);
  store.finish_run(second, RunStatus::complete);
  std::ostringstream out;
  JsonWriter w(out);
  write_run_tables(store, first, w);
  w.finish();
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  ASSERT_EQ(doc["runs"]["rows"].size(), 1u);
  EXPECT_EQ(doc["run_tags"]["rows"].size(), 2u);  // the first run's two tags, not the other's
  EXPECT_EQ(doc["run_gpus"]["rows"].size(), 2u);
  EXPECT_EQ(doc["suite_runs"]["rows"].size(), 1u);
  EXPECT_FALSE(doc.contains("run_liveness"));
  EXPECT_FALSE(doc.contains("series_medians"));
}

// Issue 35: a run measures each suite in several executions, each its own suite run. An export
// that lists a suite more than once must say which execution each result belongs to ("suite_run");
// without it the results are refused, not all given to the first execution.
TEST(ExchangeJson, ResultsWithoutSuiteRunAreRefusedWhenTheirSuiteHasSeveralExecutions) {
  TempDir dir("gpubench-test");
  Store store = Store::open(dir.path() / "a.db", OpenMode::read_write_create);
  auto doc = [](bool with_suite_run) {
    nlohmann::json results = nlohmann::json::array();
    for (int e = 1; e <= 2; ++e) {
      nlohmann::json r = {{"suite", "memory"},     {"benchmark", "memory/copy"},
                          {"metric", "real_time"}, {"unit", "ns"},
                          {"direction", "lower"},  {"values", {100.0 * e}}};
      if (with_suite_run) r["suite_run"] = e;
      results.push_back(r);
    }
    return nlohmann::json{{"run",
                           {{"uuid", with_suite_run ? "00000000-0000-4000-8000-0000000000f2"
                                                    : "00000000-0000-4000-8000-0000000000f1"},
                            {"status", "complete"},
                            {"started_at", "2026-11-01T00:00:00Z"}}},
                          {"environment", {{"host", {{"hostname", "FIXTURE-host"}}}}},
                          {"suites",
                           {{{"id", 1}, {"suite", "memory"}, {"status", "ok"}},
                            {{"id", 2}, {"suite", "memory"}, {"status", "ok"}}}},
                          {"results", results}};
  };
  try {
    import_run_json(store, doc(false), "old.json");
    ADD_FAILURE() << "imported results of two executions without their suite runs";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot import 'old.json'"), std::string::npos) << what;
    EXPECT_NE(what.find("suite 'memory' is listed 2 times (one per execution)"), std::string::npos)
        << what;
    EXPECT_NE(e.fix().find("\"suite_run\""), std::string::npos) << e.fix();
  }
  EXPECT_TRUE(store.list_runs().empty()) << "the database was not changed";
  // With "suite_run" each execution keeps its own result.
  import_run_json(store, doc(true), "new.json");
  const std::vector<RunRow> runs = store.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  const std::vector<ResultRow> rows = store.get_results(runs[0].id);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[0].suite_run_id, rows[1].suite_run_id);
  EXPECT_EQ(rows[0].values, std::vector<double>{100});
  EXPECT_EQ(rows[1].values, std::vector<double>{200});
}

}  // namespace
}  // namespace gpubench::results
