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
  (void)db;
}

// Statistics: what compare and history read (issue 8).
void v2_statistics(Database& db) {
  (void)db;
}

// Readiness checks stored with each run (issue 15): one row per `gpubench doctor` check that
// `gpubench run` ran before starting, in the order run (results/doctor.hpp).
void v2_doctor(Database& db) {
  db.exec(R"sql(
CREATE TABLE doctor_checks (
  run_id   INTEGER NOT NULL REFERENCES runs(id),
  position INTEGER NOT NULL,
  name     TEXT NOT NULL,
  area     TEXT NOT NULL,
  status   TEXT NOT NULL CHECK (status IN ('pass', 'warn', 'fail', 'unknown')),
  value    TEXT NOT NULL,
  expected TEXT NOT NULL,
  fix      TEXT NOT NULL,
  PRIMARY KEY (run_id, position)
);
)sql");
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
