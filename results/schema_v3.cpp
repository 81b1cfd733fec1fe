// Schema v3: one migration step (v2 -> v3) for fleet-size speed (issue 16). Each area adds its
// tables and indexes in its own function below, so the step stays one transaction and one
// version number.
#include "results/schema.hpp"
#include "results/sqlite.hpp"

namespace gpubench::results::schema {
namespace {

// Per-run series medians stored at ingest, so that history reads one row per (run, series)
// instead of every sample (filled by the ingest area).
void v3_series_medians(Database& /*db*/) {}

// Indexes for the read paths (show, export, compare, selections): a run's results are read in
// one ordered pass, its benchmark outcomes in output order joined to each one's samples
// (results/store_results.cpp), with no sort and no scan of other runs. The samples index by
// (suite run, benchmark) replaces the one by suite run alone (it serves every query that one
// did, as its prefix), so ingest keeps maintaining one index on samples for suite runs, not two.
void v3_read_paths(Database& db) {
  db.exec(R"sql(
CREATE INDEX benchmark_outcomes_order ON benchmark_outcomes(suite_run_id, position);
CREATE INDEX samples_suite_run_benchmark ON samples(suite_run_id, benchmark_id);
DROP INDEX samples_suite_run;
)sql");
}

}  // namespace

void apply_v3(Database& db) {
  v3_series_medians(db);
  v3_read_paths(db);
}

}  // namespace gpubench::results::schema
