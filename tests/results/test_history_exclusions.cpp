// Schema v7 (issue 38): runs excluded from history (results/history_exclusions.hpp) and the
// `incomplete` run status, and the migration of a v6 database to them. Fixture runs only.
#include <gtest/gtest.h>

#include "helpers.hpp"
#include "results/history_exclusions.hpp"
#include "results/schema/schema.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

using testing::sample_run_info;

int64_t add_finished_run(Store& store) {
  const int64_t run = store.begin_run(sample_run_info());
  store.finish_run(run, RunStatus::complete);
  return run;
}

TEST(HistoryExclusions, ExcludeIncludeAndList) {
  TempDir dir("gpubench-test-exclusions");
  Store store = Store::open(dir.path() / "x.db", OpenMode::read_write_create);
  const int64_t a = add_finished_run(store);
  const int64_t b = add_finished_run(store);
  Database& db = store.database();
  EXPECT_TRUE(list_history_exclusions(db).empty());
  exclude_from_history(db, a, "  GPU 3 throttled (fixture)  ");
  ASSERT_TRUE(history_exclusion(db, a));
  EXPECT_EQ(history_exclusion(db, a)->reason, "GPU 3 throttled (fixture)");  // trimmed
  EXPECT_FALSE(history_exclusion(db, b));
  exclude_from_history(db, a, "replaced reason");  // again: the reason is replaced, one row
  ASSERT_EQ(list_history_exclusions(db).size(), 1u);
  EXPECT_EQ(list_history_exclusions(db, {a, b}).front().reason, "replaced reason");
  EXPECT_TRUE(list_history_exclusions(db, {b}).empty());
  // Shown with the run.
  for (const RunRow& r : store.list_runs()) {
    EXPECT_EQ(r.history_excluded, r.id == a ? "replaced reason" : "") << r.id;
  }
  EXPECT_EQ(store.get_run(a).run.history_excluded, "replaced reason");
  try {
    exclude_from_history(db, b, " ");
    ADD_FAILURE() << "an empty reason was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
  }
  EXPECT_TRUE(include_in_history(db, a));
  EXPECT_FALSE(include_in_history(db, a));
  EXPECT_TRUE(list_history_exclusions(db).empty());
}

TEST(HistoryExclusions, AnIncompleteRunKeepsItsReasonAndIsNotLatest) {
  TempDir dir("gpubench-test-exclusions");
  Store store = Store::open(dir.path() / "x.db", OpenMode::read_write_create);
  const int64_t first = add_finished_run(store);
  const int64_t second = add_finished_run(store);
  store.record_run_outcome(second, RunStatus::incomplete, "incomplete: expected 8 GPUs, found 7");
  const RunDetail d = store.get_run(second);
  EXPECT_EQ(d.run.status, RunStatus::incomplete);
  EXPECT_EQ(d.run.status_reason, "incomplete: expected 8 GPUs, found 7");
  EXPECT_EQ(store.resolve_run("latest"), first);
  EXPECT_EQ(store.resolve_run(std::to_string(second)), second);  // by id it is still there
  EXPECT_EQ(run_status_from_string("incomplete"), RunStatus::incomplete);
}

// A v6 database: no history_exclusions, a runs.status check without 'incomplete'. Opened for
// writing it migrates to v7 with its rows; the wider check then takes an incomplete run.
TEST(HistoryExclusions, AVersionSixDatabaseMigrates) {
  TempDir dir("gpubench-test-exclusions");
  const auto path = dir.path() / "v6.db";
  int64_t run = 0;
  {
    Store store = Store::open(path, OpenMode::read_write_create);
    run = add_finished_run(store);
  }
  {
    Database raw = Database::open(path, Access::read_write, 1000);
    raw.exec("DROP TABLE acceptance_facts");  // v8's (a v6 database has neither)
    raw.exec("DROP TABLE history_exclusions");
    int64_t cookie = 0;
    {
      Statement st = raw.prepare("PRAGMA schema_version");
      ASSERT_TRUE(st.step());
      cookie = st.column_int64(0);
    }
    raw.exec("PRAGMA writable_schema = ON");
    raw.exec(
        "UPDATE sqlite_master SET sql = replace(sql, ', ''incomplete''))', '))') WHERE type = "
        "'table' AND name = 'runs'");
    raw.exec("PRAGMA schema_version = " + std::to_string(cookie + 1));
    raw.exec("PRAGMA writable_schema = OFF");
    raw.exec("UPDATE meta SET value = '6' WHERE key = 'schema_version'");
  }
  {
    // The v6 layout really refuses the new status (so the migration below is what widens it).
    Database raw = Database::open(path, Access::read_write, 1000);
    EXPECT_FALSE(raw.table_exists("history_exclusions"));
    EXPECT_THROW(raw.exec("UPDATE runs SET status = 'incomplete'"), Error);
  }
  Store store = Store::open(path, OpenMode::read_write);
  EXPECT_EQ(schema::read_versions(store.database()).schema_version, schema::k_version);
  EXPECT_GE(schema::k_version, 7);  // later versions add their own steps
  EXPECT_EQ(schema::read_versions(store.database()).compatible_version, 3);
  ASSERT_EQ(store.list_runs().size(), 1u);
  EXPECT_EQ(store.list_runs()[0].id, run);
  store.record_run_outcome(run, RunStatus::incomplete, "incomplete: expected 2 GPUs, found 1");
  EXPECT_EQ(store.get_run(run).run.status, RunStatus::incomplete);
  exclude_from_history(store.database(), run, "fixture");
  EXPECT_EQ(list_history_exclusions(store.database()).size(), 1u);
}

}  // namespace
}  // namespace gpubench::results
