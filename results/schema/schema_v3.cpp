// Schema v3: one migration step (v2 -> v3) for fleet-size speed (issue 16). Each area adds its
// tables and indexes in its own function below, so the step stays one transaction and one
// version number.
#include "results/schema/schema.hpp"
#include "results/schema/series_medians.hpp"
#include "results/sqlite/sqlite.hpp"

namespace gpubench::results::schema {
namespace {

// Per-run series medians (results/schema/series_medians.hpp): the median of each series' valid
// repetitions per suite run, written with the samples, so that history reads one row per run and
// series instead of every sample. Clustered by suite run (history selects runs, then series).
// Filled here for the runs already stored. samples_series (benchmark_id, metric_id) served only
// history's old scan of samples; dropping it makes every sample insert cheaper.
void v3_series_medians(Database& db) {
  db.exec(R"sql(
CREATE TABLE series_medians (
  suite_run_id INTEGER NOT NULL REFERENCES suite_runs(id) ON DELETE CASCADE,
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  metric_id    INTEGER NOT NULL REFERENCES metrics(id),
  device_index INTEGER NOT NULL,  -- the samples' device_index, -1 when not tied to a device
  n            INTEGER NOT NULL,  -- valid repetitions (iteration samples not throttled)
  median       REAL NOT NULL,
  PRIMARY KEY (suite_run_id, benchmark_id, metric_id, device_index)
) WITHOUT ROWID;
DROP INDEX IF EXISTS samples_series;
)sql");
  detail::refresh_all_series_medians(db);
}

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
