// The cuBLASLt algorithms stored with runs (results/algorithm_choices.hpp, schema v6) and the
// benchmark labels kept with each outcome: stored, read back newest first, matched only on known
// facts, and added to an older database by its migration step. Environment facts and algorithm
// bytes are FIXTURES (made up), not measurements.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "results/algorithm_choices.hpp"
#include "results/schema/schema.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

using testing::sample_run_info;
using testing::sample_suite_run;

AlgorithmChoiceRow choice(const std::string& benchmark, const std::string& description,
                          const std::string& driver = "560.35.03") {
  AlgorithmChoiceRow r;
  r.benchmark = benchmark;
  r.gpu_model = "NVIDIA H200";
  r.driver_version = driver;
  r.cublas_version = "13.0.2";
  r.algorithm = std::string(127, '0') + "7";
  r.description = description;
  r.median_call_ms = 0.25;
  return r;
}

RunInfo run_started(const std::string& started_at) {
  RunInfo info = sample_run_info();
  info.started_at = started_at;
  return info;
}

// A Google Benchmark document of one benchmark whose repetitions carry `labels`.
nlohmann::json labelled_doc(const std::string& name, const std::vector<std::string>& labels) {
  nlohmann::json doc = {{"context", {{"date", "2026-12-01T00:00:00+00:00"}}},
                        {"benchmarks", nlohmann::json::array()}};
  for (std::size_t i = 0; i < labels.size(); ++i) {
    nlohmann::json e = {{"name", name},
                        {"run_name", name},
                        {"run_type", "iteration"},
                        {"repetitions", labels.size()},
                        {"repetition_index", i},
                        {"iterations", 1},
                        {"real_time", 100.0 + i},
                        {"cpu_time", 1.0},
                        {"time_unit", "us"}};
    if (!labels[i].empty()) e["label"] = labels[i];
    doc["benchmarks"].push_back(e);
  }
  return doc;
}

class AlgorithmChoices : public ::testing::Test {
 protected:
  TempDir m_dir{"gpubench-test-algos"};
  Store m_store = Store::open(m_dir.path() / "gpubench.db", OpenMode::read_write_create);
};

TEST_F(AlgorithmChoices, StoredWithTheirRunAndReadNewestFirst) {
  const int64_t old_run = m_store.begin_run(run_started("2026-11-01T00:00:00Z"));
  const int64_t new_run = m_store.begin_run(run_started("2026-11-02T00:00:00Z"));
  const int64_t other_driver = m_store.begin_run(run_started("2026-11-03T00:00:00Z"));
  add_algorithm_choices(m_store, old_run, {choice("gemm/a/device:0", "algo=1")});
  add_algorithm_choices(m_store, new_run, {choice("gemm/a/device:0", "algo=2")});
  add_algorithm_choices(m_store, other_driver, {choice("gemm/a/device:0", "algo=3", "570.00.01")});
  // Stored again for the same run and case: replaced, not doubled.
  AlgorithmChoiceRow again = choice("gemm/a/device:0", "algo=2 again");
  again.origin_run_uuid = "00000000-0000-4000-8000-000000000001";
  add_algorithm_choices(m_store, new_run, {again});

  const auto of_new = algorithm_choices_of_run(m_store, new_run);
  ASSERT_EQ(of_new.size(), 1u);
  EXPECT_EQ(of_new[0].description, "algo=2 again");
  EXPECT_EQ(of_new[0].origin_run_uuid, "00000000-0000-4000-8000-000000000001");
  EXPECT_EQ(of_new[0].run_id, new_run);
  EXPECT_EQ(of_new[0].median_call_ms, std::optional<double>(0.25));

  const auto matching = algorithm_choices_with(m_store, "560.35.03", "13.0.2", 0);
  ASSERT_EQ(matching.size(), 2u);  // the other driver's is not there
  EXPECT_EQ(matching[0].run_id, new_run);
  EXPECT_EQ(matching[1].run_id, old_run);
  EXPECT_EQ(matching[0].run_uuid, m_store.get_run(new_run).run.uuid);
  // The run being seeded never seeds itself.
  const auto without_new = algorithm_choices_with(m_store, "560.35.03", "13.0.2", new_run);
  ASSERT_EQ(without_new.size(), 1u);
  EXPECT_EQ(without_new[0].run_id, old_run);
  // An unknown fact matches nothing, even rows stored with "unknown".
  const int64_t unknown_run = m_store.begin_run(run_started("2026-11-04T00:00:00Z"));
  add_algorithm_choices(m_store, unknown_run, {choice("gemm/a/device:0", "algo=4", "unknown")});
  EXPECT_TRUE(algorithm_choices_with(m_store, "unknown", "13.0.2", 0).empty());
  EXPECT_TRUE(algorithm_choices_with(m_store, "560.35.03", "", 0).empty());
  // Only a stored run can have choices.
  EXPECT_THROW(add_algorithm_choices(m_store, 999, {choice("gemm/a", "algo=1")}), Error);
}

TEST_F(AlgorithmChoices, BenchmarksOkInARunAreThoseWithAnOkOutcome) {
  const int64_t run = m_store.begin_run(sample_run_info());
  const int64_t sr = m_store.add_suite_run(run, sample_suite_run("gemm"));
  nlohmann::json doc = labelled_doc("gemm/ok/iterations:2/manual_time", {"", ""});
  doc["benchmarks"].push_back({{"name", "gemm/skipped/iterations:2/manual_time"},
                               {"run_name", "gemm/skipped/iterations:2/manual_time"},
                               {"run_type", "iteration"},
                               {"iterations", 0},
                               {"real_time", 0},
                               {"cpu_time", 0},
                               {"time_unit", "us"},
                               {"error_occurred", true},
                               {"error_message", "skipped: FP8 needs sm_89 (fixture)"}});
  m_store.ingest_benchmark_json(sr, doc, "gemm");
  EXPECT_EQ(benchmarks_ok_in_run(m_store, run),
            std::vector<std::string>{"gemm/ok/iterations:2/manual_time"});
}

// A benchmark's label is kept with its outcome (its first labelled row); ResultRow carries it.
TEST_F(AlgorithmChoices, TheFirstLabelOfABenchmarkIsKeptWithItsOutcome) {
  const int64_t run = m_store.begin_run(sample_run_info());
  const int64_t sr = m_store.add_suite_run(run, sample_suite_run("gemm"));
  const std::string label = "compute=32F algo=23 tile=20 stages=15 splitk=1 swizzle=0 rank=0";
  m_store.ingest_benchmark_json(sr, labelled_doc("gemm/a", {"", label, label + " x"}), "gemm");
  const int64_t sr2 = m_store.add_suite_run(run, sample_suite_run("gemm"));
  m_store.ingest_benchmark_json(sr2, labelled_doc("gemm/a", {"", ""}), "gemm");
  const std::vector<ResultRow> rows = m_store.get_results(run);
  ASSERT_FALSE(rows.empty());
  for (const ResultRow& r : rows) {
    EXPECT_EQ(r.label, r.suite_run_id == sr ? label : "") << r.metric << " " << r.suite_run_id;
  }
  // A label longer than k_max_text_bytes is cut there, at a character boundary (here a 2-byte
  // character would straddle it).
  const std::string long_label = std::string(k_max_text_bytes - 1, 'a') + "\xC3\xA9" + "tail";
  const int64_t sr3 = m_store.add_suite_run(run, sample_suite_run("gemm"));
  m_store.ingest_benchmark_json(sr3, labelled_doc("gemm/long", {long_label}), "gemm");
  for (const ResultRow& r : m_store.get_results(run)) {
    if (r.benchmark == "gemm/long") {
      EXPECT_EQ(r.label, std::string(k_max_text_bytes - 1, 'a'));
    }
  }
}

// A v5 database gains the table and the label column (outcomes stored before read '').
TEST(AlgorithmChoicesMigration, AVersionFiveDatabaseGetsTheTableAndLabels) {
  TempDir dir("gpubench-test-algos");
  const auto path = dir.path() / "v5.db";
  {
    Store store = Store::open(path, OpenMode::read_write_create);
    const int64_t run = store.begin_run(sample_run_info());
    store.ingest_benchmark_json(store.add_suite_run(run, sample_suite_run("gemm")),
                                labelled_doc("gemm/a", {"algo=1"}), "gemm");
  }
  {
    Database raw = Database::open(path, Access::read_write, 1000);
    raw.exec("DROP TABLE acceptance_facts");    // v8's
    raw.exec("DROP TABLE history_exclusions");  // v7's
    raw.exec("DROP TABLE cublaslt_algorithms");
    raw.exec("ALTER TABLE benchmark_outcomes DROP COLUMN label");
    raw.exec("UPDATE meta SET value = '5' WHERE key = 'schema_version'");
    EXPECT_FALSE(raw.table_exists("cublaslt_algorithms"));
  }
  Store store = Store::open(path, OpenMode::read_write);
  EXPECT_EQ(schema::read_versions(store.database()).schema_version, schema::k_version);
  EXPECT_TRUE(store.database().table_exists("cublaslt_algorithms"));
  const std::vector<RunRow> runs = store.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  for (const ResultRow& r : store.get_results(runs[0].id)) EXPECT_EQ(r.label, "");
  add_algorithm_choices(store, runs[0].id, {choice("gemm/a/device:0", "algo=1")});
  EXPECT_EQ(algorithm_choices_of_run(store, runs[0].id).size(), 1u);
}

}  // namespace
}  // namespace gpubench::results
