// Schema v2: one migration step (v1 -> v2) for the second round of work. Each area adds its
// tables, columns and indexes in its own function below, so the step stays one transaction and
// one version number. Views are recreated last, in v2_views, because several areas add columns
// to them.
#include "results/schema.hpp"
#include "results/sqlite.hpp"

#include <cstdint>
#include <string>

namespace gpubench::results::schema {
namespace {

// Run states: liveness, abandoned runs, atomic suite results (issue 10).
//  - runs.status gains 'abandoned' (a run whose gpubench died without closing it). SQLite cannot
//    ALTER a CHECK constraint; widening one is the documented writable_schema edit (existing
//    rows satisfy the wider check), with schema_version bumped so every connection reloads.
//  - runs.status_reason: why a run ended as it did when that is not obvious (abandoned: who
//    found it dead and how).
//  - run_liveness: who is running a `running` run (host, boot id, pid, lock file); the lock file
//    holds an flock for the run's lifetime (results/liveness.hpp).
//  - suite_runs.stdout_tail: the last 8 KiB of a failed suite's stdout, next to stderr_tail.
//  - invalid_samples: values a suite reported that cannot be samples (NaN, infinite or negative
//    times), kept with the reason instead of being dropped; they never enter statistics.
void v2_run_states(Database& db) {
  int64_t cookie = 0;
  {
    Statement st = db.prepare("PRAGMA schema_version");
    if (st.step()) cookie = st.column_int64(0);
  }
  db.exec("PRAGMA writable_schema = ON");
  db.exec(
      "UPDATE sqlite_master SET sql = replace(sql, "
      "'CHECK (status IN (''running'', ''complete'', ''interrupted'', ''failed''))', "
      "'CHECK (status IN (''running'', ''complete'', ''interrupted'', ''failed'', "
      "''abandoned''))') WHERE type = 'table' AND name = 'runs'");
  db.exec("PRAGMA schema_version = " + std::to_string(cookie + 1));
  db.exec("PRAGMA writable_schema = OFF");
  db.exec(R"sql(
ALTER TABLE runs ADD COLUMN status_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE suite_runs ADD COLUMN stdout_tail TEXT NOT NULL DEFAULT '';
CREATE TABLE run_liveness (
  run_id     INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  hostname   TEXT NOT NULL,
  boot_id    TEXT NOT NULL,   -- /proc/sys/kernel/random/boot_id, '' when unknown
  pid        INTEGER NOT NULL,
  lock_path  TEXT NOT NULL,   -- flock held by the running gpubench
  started_at TEXT NOT NULL
);
CREATE TABLE invalid_samples (
  id           INTEGER PRIMARY KEY,
  suite_run_id INTEGER NOT NULL REFERENCES suite_runs(id) ON DELETE CASCADE,
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  metric       TEXT NOT NULL,
  kind         TEXT NOT NULL,  -- 'iteration' or the aggregate's name
  repetition   INTEGER,
  device_index INTEGER,
  raw          TEXT NOT NULL,  -- the value as reported ('NaN', '-Infinity', '-5500000')
  reason       TEXT NOT NULL
);
CREATE INDEX invalid_samples_suite_run ON invalid_samples(suite_run_id);
)sql");
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
