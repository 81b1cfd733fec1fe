// Schema v4: benchmarks stored as aggregates only (issue 23, results/schema/aggregates.hpp). A file
// whose benchmark has only aggregate rows (--benchmark_report_aggregates_only, complexity fits)
// is imported, not refused; its outcome says so, so that show, export and compare never read its
// statistics as repetitions. Databases written before the aggregates rule may hold such
// benchmarks already: the migration marks them from their samples.
#include "results/schema/aggregates.hpp"
#include "results/schema/schema.hpp"
#include "results/sqlite/sqlite.hpp"

namespace gpubench::results::schema {

void apply_v4(Database& db) {
  db.exec(R"sql(
ALTER TABLE benchmark_outcomes ADD COLUMN kind TEXT NOT NULL DEFAULT 'repetitions'
  CHECK (kind IN ('repetitions', 'aggregate'));
ALTER TABLE benchmark_outcomes ADD COLUMN complexity TEXT;  -- big_o of a complexity fit ('N')
)sql");
  mark_aggregate_only(db, 0);
}

}  // namespace gpubench::results::schema
