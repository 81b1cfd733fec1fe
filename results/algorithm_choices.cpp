// The cuBLASLt algorithms stored with runs (algorithm_choices.hpp; table cublaslt_algorithms).
#include "results/algorithm_choices.hpp"

#include "results/model.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "util/error.hpp"

namespace gpubench::results {

namespace {

constexpr const char* k_columns =
    "a.benchmark, a.gpu_model, a.driver_version, a.cublas_version, a.algorithm, a.description, "
    "a.median_call_ms, a.origin_run_uuid, r.id, r.uuid, r.started_at";

AlgorithmChoiceRow read_row(const Statement& st) {
  AlgorithmChoiceRow row;
  row.benchmark = st.column_text(0);
  row.gpu_model = st.column_text(1);
  row.driver_version = st.column_text(2);
  row.cublas_version = st.column_text(3);
  row.algorithm = st.column_text(4);
  row.description = st.column_text(5);
  row.median_call_ms = st.column_optional_double(6);
  row.origin_run_uuid = st.column_text(7);
  row.run_id = st.column_int64(8);
  row.run_uuid = st.column_text(9);
  row.run_started_at = st.column_text(10);
  return row;
}

bool known(const std::string& fact) {
  return !fact.empty() && fact != k_unknown;
}

}  // namespace

void add_algorithm_choices(Store& store, int64_t run_id,
                           const std::vector<AlgorithmChoiceRow>& rows) {
  Database& db = store.database();
  Transaction tx(db);
  {
    Statement q = db.prepare("SELECT 1 FROM runs WHERE id = ?1");
    q.bind(1, run_id);
    if (!q.step()) {
      throw bad_input("no run " + std::to_string(run_id) + " to store cuBLASLt algorithms for", "",
                      "store the run first");
    }
  }
  Statement ins = db.prepare(
      "INSERT OR REPLACE INTO cublaslt_algorithms(run_id, benchmark, gpu_model, driver_version, "
      "cublas_version, algorithm, description, median_call_ms, origin_run_uuid) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  for (const AlgorithmChoiceRow& r : rows) {
    ins.bind(1, run_id).bind(2, r.benchmark).bind(3, r.gpu_model).bind(4, r.driver_version);
    ins.bind(5, r.cublas_version).bind(6, r.algorithm).bind(7, r.description);
    ins.bind(8, r.median_call_ms).bind(9, r.origin_run_uuid).run();
  }
  tx.commit();
}

std::vector<AlgorithmChoiceRow> algorithm_choices_of_run(Store& store, int64_t run_id) {
  Database& db = store.database();
  std::vector<AlgorithmChoiceRow> out;
  if (!db.table_exists("cublaslt_algorithms")) return out;
  Statement st = db.prepare(std::string("SELECT ") + k_columns +
                            " FROM cublaslt_algorithms a JOIN runs r ON r.id = a.run_id "
                            "WHERE a.run_id = ?1 ORDER BY a.benchmark");
  st.bind(1, run_id);
  while (st.step()) out.push_back(read_row(st));
  return out;
}

std::vector<std::string> benchmarks_ok_in_run(Store& store, int64_t run_id) {
  Statement st = store.database().prepare(
      "SELECT DISTINCT b.name FROM suite_runs sr JOIN benchmark_outcomes o ON o.suite_run_id = "
      "sr.id JOIN benchmarks b ON b.id = o.benchmark_id WHERE sr.run_id = ?1 AND o.status = 'ok' "
      "ORDER BY b.name");
  st.bind(1, run_id);
  std::vector<std::string> out;
  while (st.step()) out.push_back(st.column_text(0));
  return out;
}

std::vector<AlgorithmChoiceRow> algorithm_choices_with(Store& store,
                                                       const std::string& driver_version,
                                                       const std::string& cublas_version,
                                                       int64_t except_run) {
  Database& db = store.database();
  std::vector<AlgorithmChoiceRow> out;
  if (!known(driver_version) || !known(cublas_version) || !db.table_exists("cublaslt_algorithms")) {
    return out;
  }
  Statement st = db.prepare(std::string("SELECT ") + k_columns +
                            " FROM cublaslt_algorithms a JOIN runs r ON r.id = a.run_id "
                            "WHERE a.driver_version = ?1 AND a.cublas_version = ?2 AND r.id <> ?3 "
                            "ORDER BY r.started_at DESC, r.id DESC, a.benchmark");
  st.bind(1, driver_version).bind(2, cublas_version).bind(3, except_run);
  while (st.step()) out.push_back(read_row(st));
  return out;
}

}  // namespace gpubench::results
