// results/exchange/exchange_tables.cpp: every table of the schema is decided for exchange, and the
// rows an export writes are the ones its run needs.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "results/algorithm_choices.hpp"
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

// Issue 36: a run's cuBLASLt algorithms and its benchmark labels travel with it, by merge and in
// an export's tables; the other run's do not. Facts and bytes are FIXTURES (made up).
TEST(ExchangeTables, AlgorithmsAndLabelsTravelWithTheirRun) {
  TempDir dir("gpubench-test");
  const auto source_path = dir.path() / "source.db";
  int64_t run = 0;
  {
    Store source = Store::open(source_path, OpenMode::read_write_create);
    run = source.begin_run(testing::sample_run_info());
    nlohmann::json doc = {
        {"context", {{"date", "2026-12-01T00:00:00+00:00"}}},
        {"benchmarks",
         {{{"name", "gemm/a"},
           {"run_name", "gemm/a"},
           {"run_type", "iteration"},
           {"iterations", 1},
           {"real_time", 10.0},
           {"cpu_time", 1.0},
           {"time_unit", "us"},
           {"label", "compute=32F algo=23 tile=20 stages=15 splitk=1 swizzle=0"}}}}};
    source.ingest_benchmark_json(source.add_suite_run(run, SuiteRunInfo{}), doc, "gemm");
    AlgorithmChoiceRow row;
    row.benchmark = "gemm/a/device:0";
    row.gpu_model = "NVIDIA H200";
    row.driver_version = "560.35.03";
    row.cublas_version = "13.0.2";
    row.algorithm = std::string(128, 'f');
    row.description = "algo=23 tile=20 stages=15 splitk=1 swizzle=0 rank=0 tied=1 timed=8/8";
    row.median_call_ms = 0.5;
    add_algorithm_choices(source, run, {row});
    source.finish_run(run, RunStatus::complete);
    const int64_t other = source.begin_run(testing::sample_run_info());
    row.description = "algo=31";
    add_algorithm_choices(source, other, {row});
    source.finish_run(other, RunStatus::complete);

    std::ostringstream out;
    JsonWriter w(out);
    write_run_tables(source, run, w);
    w.finish();
    const nlohmann::json tables = nlohmann::json::parse(out.str());
    ASSERT_EQ(tables["cublaslt_algorithms"]["rows"].size(), 1u);
    const auto& columns = tables["benchmark_outcomes"]["columns"];
    EXPECT_NE(std::find(columns.begin(), columns.end(), "label"), columns.end());
  }
  Store target = Store::open(dir.path() / "target.db", OpenMode::read_write_create);
  merge_database(target, source_path, MergeOptions{});
  const std::vector<RunRow> runs = target.list_runs();
  ASSERT_EQ(runs.size(), 2u);
  std::vector<std::string> descriptions;
  for (const RunRow& r : runs) {
    for (const AlgorithmChoiceRow& c : algorithm_choices_of_run(target, r.id)) {
      descriptions.push_back(c.description);
      EXPECT_EQ(c.algorithm, std::string(128, 'f'));
      EXPECT_EQ(c.gpu_model, "NVIDIA H200");
    }
  }
  std::sort(descriptions.begin(), descriptions.end());
  EXPECT_EQ(descriptions,
            (std::vector<std::string>{"algo=23 tile=20 stages=15 splitk=1 swizzle=0 rank=0 tied=1 "
                                      "timed=8/8",
                                      "algo=31"}));
  bool labelled = false;
  for (const RunRow& r : runs) {
    for (const ResultRow& row : target.get_results(r.id)) {
      labelled =
          labelled || row.label == "compute=32F algo=23 tile=20 stages=15 splitk=1 swizzle=0";
    }
  }
  EXPECT_TRUE(labelled);
}

}  // namespace
}  // namespace gpubench::results
