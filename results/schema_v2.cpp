// Schema v2: one migration step (v1 -> v2) for the second round of work. Each area adds its
// tables, columns and indexes in its own function below, so the step stays one transaction and
// one version number. Views are recreated last, in v2_views, because several areas add columns
// to them.
#include "results/schema.hpp"
#include "results/sqlite.hpp"

namespace gpubench::results::schema {
namespace {

// Run states: liveness, abandoned runs, atomic suite results (issue 10).
void v2_run_states(Database& db) {
  (void)db;
}

// GPU identity: results tied to a GPU by UUID, per-sample states (issue 11).
void v2_gpu_identity(Database& db) {
  (void)db;
}

// Exchange and metric roles: lossless import/merge, primary metrics, parameters (issue 9).
void v2_exchange(Database& db) {
  // Role of each metric in one suite run, as the suite declared it in gpubench.metrics.
  db.exec(R"sql(
CREATE TABLE suite_run_metric_roles (
  suite_run_id INTEGER NOT NULL REFERENCES suite_runs(id) ON DELETE CASCADE,
  metric       TEXT NOT NULL,  -- metrics.name
  role         TEXT NOT NULL CHECK (role IN ('primary', 'secondary', 'parameter')),
  PRIMARY KEY (suite_run_id, metric)
);
)sql");
}

// Statistics: what compare and history read (issue 8).
void v2_statistics(Database& db) {
  (void)db;
}

// Readiness checks stored with each run (issue 15).
void v2_doctor(Database& db) {
  (void)db;
}

// Public views (v_samples, v_runs): dropped and recreated here when an area adds columns. They
// keep every column they documented in v1.
void v2_views(Database& db) {
  (void)db;
}

}  // namespace

void apply_v2(Database& db) {
  v2_run_states(db);
  v2_gpu_identity(db);
  v2_exchange(db);
  v2_statistics(db);
  v2_doctor(db);
  v2_views(db);
}

}  // namespace gpubench::results::schema
