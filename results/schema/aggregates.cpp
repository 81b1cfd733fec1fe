// Aggregate-only benchmarks (results/schema/aggregates.hpp).
#include "results/schema/aggregates.hpp"

#include "results/sqlite/sqlite.hpp"
#include "util/strings.hpp"

namespace gpubench::results {

bool is_complexity_statistic(std::string_view kind) {
  return kind == "BigO" || kind == "RMS";
}

std::string complexity_text(std::string_view big_o) {
  if (big_o.empty()) return "O(?)";
  // Google Benchmark writes "(1)" for constant time and "N", "NlgN", "N^2" for the others.
  if (big_o.front() == '(') return "O" + std::string(big_o);
  return "O(" + std::string(big_o) + ")";
}

void mark_aggregate_only(Database& db, int64_t suite_run_id) {
  Statement st = db.prepare(R"sql(
UPDATE benchmark_outcomes AS o SET kind = CASE
  WHEN o.status = 'ok'
   AND EXISTS (SELECT 1 FROM samples s WHERE s.suite_run_id = o.suite_run_id
               AND s.benchmark_id = o.benchmark_id AND s.kind <> 'iteration')
   AND NOT EXISTS (SELECT 1 FROM samples s WHERE s.suite_run_id = o.suite_run_id
                   AND s.benchmark_id = o.benchmark_id AND s.kind = 'iteration')
  THEN 'aggregate' ELSE 'repetitions' END
WHERE ?1 = 0 OR o.suite_run_id = ?1)sql");
  st.bind(1, suite_run_id).run();
}

void record_complexity(Database& db, int64_t suite_run_id, int64_t benchmark_id,
                       const std::string& big_o) {
  Statement st = db.prepare(
      "UPDATE benchmark_outcomes SET complexity = ?3 WHERE suite_run_id = ?1 AND benchmark_id = ?2");
  st.bind(1, suite_run_id).bind(2, benchmark_id).bind(3, big_o).run();
}

}  // namespace gpubench::results
