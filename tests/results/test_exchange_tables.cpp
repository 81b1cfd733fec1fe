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

}  // namespace
}  // namespace gpubench::results
