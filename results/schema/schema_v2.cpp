// Schema v2: one migration step (v1 -> v2) for the second round of work. Each area adds its
// tables, columns and indexes in its own function below, so the step stays one transaction and
// one version number. Views are recreated last, in v2_views, because several areas add columns
// to them.
#include "results/schema/schema.hpp"
#include "results/sqlite/sqlite.hpp"

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
//   samples.device_index stays the CUDA ordinal the suite named (device:N); the GPU is
//   samples.gpu_device_id, mapped at ingest through the suite's gpubench.devices (UUID, PCI bus
//   id as fallback), never joined by index. The three sample states replace the v1 75% rule:
//   `throttled` now means thermal_or_hw_slowdown (the sample is invalid).
void v2_gpu_identity(Database& db) {
  db.exec(R"sql(
ALTER TABLE gpu_devices ADD COLUMN app_sm_clock_mhz INTEGER;
ALTER TABLE samples ADD COLUMN power_limited INTEGER CHECK (power_limited IN (0, 1));
ALTER TABLE samples ADD COLUMN thermal_or_hw_slowdown INTEGER
  CHECK (thermal_or_hw_slowdown IN (0, 1));
ALTER TABLE samples ADD COLUMN clock_below_expected INTEGER
  CHECK (clock_below_expected IN (0, 1));
ALTER TABLE samples ADD COLUMN window_start_s REAL;  -- CLOCK_MONOTONIC seconds, as the suite saw
ALTER TABLE samples ADD COLUMN window_end_s REAL;
ALTER TABLE telemetry ADD COLUMN power_instant_w REAL;
ALTER TABLE telemetry ADD COLUMN remapped_rows INTEGER;
ALTER TABLE telemetry ADD COLUMN remap_pending INTEGER CHECK (remap_pending IN (0, 1));
ALTER TABLE telemetry ADD COLUMN remap_failure INTEGER CHECK (remap_failure IN (0, 1));
CREATE INDEX telemetry_gpu ON telemetry(suite_run_id, gpu_device_id, t_s);
-- v1 GPU samples named only their CUDA ordinal: tie them to the GPU whose UUID the suite
-- recorded for that ordinal in gpubench.devices. Samples without such a record stay unknown.
UPDATE samples SET gpu_device_id = (
  SELECT g.id
  FROM suite_runs sr
  JOIN json_each(json_extract(sr.context, '$."gpubench.devices"')) d
  JOIN run_gpus rg ON rg.run_id = sr.run_id
  JOIN gpu_devices g ON g.id = rg.gpu_device_id
  WHERE sr.id = samples.suite_run_id
    AND json_extract(d.value, '$.index') = samples.device_index
    AND g.uuid = json_extract(d.value, '$.uuid'))
WHERE gpu_device_id IS NULL AND device_index IS NOT NULL
  AND suite_run_id IN (
    SELECT id FROM suite_runs
    WHERE json_valid(context)
      AND json_type(context, '$."gpubench.devices"') = 'text'
      AND json_valid(json_extract(context, '$."gpubench.devices"')));
)sql");
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

// Readiness checks stored with each run (issue 15): one row per `gpubench doctor` check that
// `gpubench run` ran before starting, in the order run (results/doctor_store.hpp).
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
  // v_samples: the GPU comes from the sample's own gpu_device_id (mapped by UUID at ingest), no
  // longer from run_gpus joined on an index (NVML and CUDA number GPUs differently). New
  // columns: cuda_ordinal, gpu_pci_bus_id and the three sample states.
  db.exec("DROP VIEW v_samples");
  db.exec(std::string("CREATE VIEW v_samples AS\nSELECT ") + k_v_samples_v1_columns + ",\n" +
          R"sql(       s.device_index    AS cuda_ordinal,
       g.pci_bus_id      AS gpu_pci_bus_id,
       s.power_limited          AS power_limited,
       s.thermal_or_hw_slowdown AS thermal_or_hw_slowdown,
       s.clock_below_expected   AS clock_below_expected)sql" +
          "\n" + k_v_samples_joins + "\nLEFT JOIN gpu_devices g ON g.id = s.gpu_device_id");
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
