// Schema v1 of the results store. Conventions: timestamps are ISO 8601 UTC text; JSON columns
// hold compact JSON text; "unknown" (text) or NULL (numbers) mean a fact was not available.
// The views v_samples and v_runs are a public interface (results/README.md): add columns to
// them freely, never rename or remove one.
#include "results/schema/schema.hpp"

#include "results/sqlite/sqlite.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::results::schema {

namespace {

constexpr const char* k_schema_v1 = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- Environment entities, deduplicated: `fingerprint` is the canonical JSON of the row's content.
CREATE TABLE hosts (
  id           INTEGER PRIMARY KEY,
  fingerprint  TEXT NOT NULL UNIQUE,
  hostname     TEXT NOT NULL,
  cpu_model    TEXT NOT NULL,
  sockets      INTEGER,
  cores        INTEGER,
  threads      INTEGER,
  memory_bytes INTEGER,
  kernel       TEXT NOT NULL,
  os           TEXT NOT NULL,
  governor     TEXT NOT NULL,
  arch         TEXT NOT NULL
);

-- One row per distinct state of a physical GPU (a changed power limit or ECC mode is a new row).
CREATE TABLE gpu_devices (
  id                   INTEGER PRIMARY KEY,
  fingerprint          TEXT NOT NULL UNIQUE,
  uuid                 TEXT NOT NULL,
  host_id              INTEGER REFERENCES hosts(id),
  name                 TEXT NOT NULL,
  pci_bus_id           TEXT NOT NULL,
  memory_bytes         INTEGER,
  sm_count             INTEGER,
  compute_capability   TEXT NOT NULL,
  max_sm_clock_mhz     INTEGER,
  max_mem_clock_mhz    INTEGER,
  default_sm_clock_mhz INTEGER,
  power_limit_w        REAL,
  ecc                  TEXT NOT NULL,
  pcie_gen             INTEGER,
  pcie_width           INTEGER,
  numa_node            INTEGER
);
CREATE INDEX gpu_devices_uuid ON gpu_devices(uuid);

CREATE TABLE software_envs (
  id                   INTEGER PRIMARY KEY,
  fingerprint          TEXT NOT NULL UNIQUE,
  driver_version       TEXT NOT NULL,
  cuda_driver_version  TEXT NOT NULL,
  cuda_runtime_version TEXT NOT NULL,
  cublas_version       TEXT NOT NULL,
  nccl_version         TEXT NOT NULL,
  kernel               TEXT NOT NULL,
  compiler             TEXT NOT NULL,
  gpubench_version     TEXT NOT NULL,
  git_sha              TEXT NOT NULL,
  git_dirty            TEXT NOT NULL
);

CREATE TABLE configurations (
  id            INTEGER PRIMARY KEY,
  fingerprint   TEXT NOT NULL UNIQUE,
  profile       TEXT NOT NULL,
  env           TEXT NOT NULL,  -- JSON object of CUDA_*, NCCL_*, OMP_*, GPUBENCH_* variables
  clocks_locked TEXT NOT NULL
);

CREATE TABLE runs (
  id               INTEGER PRIMARY KEY,
  uuid             TEXT NOT NULL UNIQUE,
  status           TEXT NOT NULL CHECK (status IN ('running', 'complete', 'interrupted', 'failed')),
  started_at       TEXT NOT NULL,
  finished_at      TEXT,
  user             TEXT NOT NULL,
  argv             TEXT NOT NULL,  -- JSON array
  note             TEXT NOT NULL DEFAULT '',
  host_id          INTEGER NOT NULL REFERENCES hosts(id),
  software_env_id  INTEGER NOT NULL REFERENCES software_envs(id),
  configuration_id INTEGER NOT NULL REFERENCES configurations(id)
);
CREATE INDEX runs_started_at ON runs(started_at);

CREATE TABLE run_tags (
  run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,  -- order given on the command line
  key      TEXT NOT NULL,
  value    TEXT NOT NULL,
  PRIMARY KEY (run_id, position)
);
CREATE INDEX run_tags_key_value ON run_tags(key, value);

CREATE TABLE run_gpus (
  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  device_index  INTEGER NOT NULL,  -- CUDA/NVML index during the run
  gpu_device_id INTEGER NOT NULL REFERENCES gpu_devices(id),
  PRIMARY KEY (run_id, device_index)
);
CREATE INDEX run_gpus_gpu ON run_gpus(gpu_device_id);

CREATE TABLE suite_runs (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  suite       TEXT NOT NULL,
  executable  TEXT NOT NULL,
  argv        TEXT NOT NULL,  -- JSON array
  started_at  TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  duration_s  REAL NOT NULL,
  exit_code   INTEGER,
  term_signal INTEGER,
  status      TEXT NOT NULL
              CHECK (status IN ('ok', 'failed', 'timeout', 'crashed', 'interrupted', 'skipped')),
  reason      TEXT NOT NULL DEFAULT '',
  stderr_tail TEXT NOT NULL DEFAULT '',
  context     TEXT  -- Google Benchmark "context" object of the ingested JSON
);
CREATE INDEX suite_runs_run ON suite_runs(run_id);

-- A benchmark is identified by its full name ("memory/triad/bytes:268435456/threads:2").
CREATE TABLE benchmarks (
  id        INTEGER PRIMARY KEY,
  name      TEXT NOT NULL UNIQUE,
  suite     TEXT NOT NULL,
  case_name TEXT NOT NULL,
  params    TEXT NOT NULL  -- JSON object {key: number or text}
);
CREATE INDEX benchmarks_suite_case ON benchmarks(suite, case_name);

CREATE TABLE benchmark_params (
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id) ON DELETE CASCADE,
  position     INTEGER NOT NULL,
  key          TEXT NOT NULL,
  text         TEXT NOT NULL,  -- as written in the name
  number       REAL,           -- when the text is a number
  PRIMARY KEY (benchmark_id, position)
);
CREATE INDEX benchmark_params_key ON benchmark_params(key, number);

CREATE TABLE metrics (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  unit        TEXT NOT NULL,
  direction   TEXT NOT NULL CHECK (direction IN ('higher', 'lower', 'unknown')),
  description TEXT NOT NULL DEFAULT '',
  UNIQUE (name, unit)
);

CREATE TABLE benchmark_outcomes (
  suite_run_id INTEGER NOT NULL REFERENCES suite_runs(id) ON DELETE CASCADE,
  benchmark_id INTEGER NOT NULL REFERENCES benchmarks(id),
  position     INTEGER NOT NULL,  -- order of first appearance in the suite's output
  status       TEXT NOT NULL CHECK (status IN ('ok', 'skipped', 'error')),
  message      TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (suite_run_id, benchmark_id)
);
CREATE INDEX benchmark_outcomes_benchmark ON benchmark_outcomes(benchmark_id);

-- One row per (repetition or aggregate, metric, device). kind = 'iteration' for a repetition,
-- else Google Benchmark's aggregate name ('mean', 'median', 'stddev', 'cv', custom); repetition
-- is NULL for aggregates. cv values are ratios (0.05 = 5%) whatever the metric's unit.
CREATE TABLE samples (
  id               INTEGER PRIMARY KEY,
  suite_run_id     INTEGER NOT NULL REFERENCES suite_runs(id) ON DELETE CASCADE,
  benchmark_id     INTEGER NOT NULL REFERENCES benchmarks(id),
  metric_id        INTEGER NOT NULL REFERENCES metrics(id),
  device_index     INTEGER,
  gpu_device_id    INTEGER REFERENCES gpu_devices(id),
  repetition       INTEGER,
  kind             TEXT NOT NULL,
  value            REAL NOT NULL,
  iterations       INTEGER,
  threads          INTEGER,
  throttled        INTEGER CHECK (throttled IN (0, 1)),  -- NULL: not known
  sm_clock_mhz     REAL,
  temperature_c    REAL,
  power_w          REAL,
  throttle_reasons INTEGER  -- NVML clocks-event reason bit mask
);
CREATE INDEX samples_suite_run ON samples(suite_run_id);
CREATE INDEX samples_series ON samples(benchmark_id, metric_id);

-- NVML time series sampled during a run (harness telemetry sampler).
CREATE TABLE telemetry (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  suite_run_id        INTEGER REFERENCES suite_runs(id) ON DELETE CASCADE,
  gpu_device_id       INTEGER REFERENCES gpu_devices(id),
  device_index        INTEGER,
  t_s                 REAL NOT NULL,  -- seconds since the run started
  sm_clock_mhz        REAL,
  mem_clock_mhz       REAL,
  temperature_c       REAL,
  power_w             REAL,
  util_gpu_pct        REAL,
  util_mem_pct        REAL,
  throttle_reasons    INTEGER,
  ecc_sbe             INTEGER,  -- volatile single-bit ECC errors
  ecc_dbe             INTEGER,  -- volatile double-bit ECC errors
  retired_pages       INTEGER,
  pcie_replay_counter INTEGER
);
CREATE INDEX telemetry_run ON telemetry(run_id, device_index, t_s);
CREATE INDEX telemetry_suite_run ON telemetry(suite_run_id);

-- Named pointers to runs. Deleting a baseline never deletes its run; a run with a baseline
-- cannot be deleted until the baseline is.
CREATE TABLE baselines (
  name       TEXT PRIMARY KEY,
  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE RESTRICT,
  created_at TEXT NOT NULL,
  note       TEXT NOT NULL DEFAULT ''
);

-- Series identity (DESIGN.md): benchmark + metric + hardware class + configuration.
-- hardware_class is the GPU model ("NVIDIA H200") or the CPU model for host-only benchmarks.
CREATE TABLE annotations (
  id               INTEGER PRIMARY KEY,
  run_id           INTEGER REFERENCES runs(id) ON DELETE CASCADE,
  benchmark_id     INTEGER REFERENCES benchmarks(id),
  metric_id        INTEGER REFERENCES metrics(id),
  hardware_class   TEXT,
  configuration_id INTEGER REFERENCES configurations(id),
  text             TEXT NOT NULL,
  created_at       TEXT NOT NULL,
  CHECK (run_id IS NOT NULL OR benchmark_id IS NOT NULL)
);
CREATE INDEX annotations_run ON annotations(run_id);
CREATE INDEX annotations_series ON annotations(benchmark_id, metric_id);

CREATE TABLE change_points (
  id               INTEGER PRIMARY KEY,
  benchmark_id     INTEGER NOT NULL REFERENCES benchmarks(id),
  metric_id        INTEGER NOT NULL REFERENCES metrics(id),
  hardware_class   TEXT NOT NULL,
  configuration_id INTEGER REFERENCES configurations(id),
  run_id           INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,  -- first run after it
  magnitude        REAL NOT NULL,  -- median after / median before
  p_value          REAL NOT NULL,
  created_at       TEXT NOT NULL,
  detail           TEXT  -- JSON: runs and environment differences around the change
);
CREATE INDEX change_points_series ON change_points(benchmark_id, metric_id, hardware_class);
)sql";

}  // namespace

// v_samples as v1 documented it: its columns and its joins up to the GPU (every later version
// keeps them, adding its own; schema_v2.cpp recreates the view from these).
const char* const k_v_samples_v1_columns = R"sql(s.id              AS sample_id,
       r.id              AS run_id,
       r.uuid            AS run_uuid,
       r.started_at      AS run_started_at,
       h.hostname        AS host,
       g.name            AS gpu_name,
       g.uuid            AS gpu_uuid,
       s.device_index    AS device_index,
       sr.id             AS suite_run_id,
       b.suite           AS suite,
       b.name            AS benchmark,
       b.case_name       AS case_name,
       b.params          AS params,
       m.name            AS metric,
       m.unit            AS unit,
       m.direction       AS direction,
       s.kind            AS kind,
       s.repetition      AS repetition,
       s.value           AS value,
       s.iterations      AS iterations,
       s.threads         AS threads,
       s.throttled       AS throttled,
       s.sm_clock_mhz    AS sm_clock_mhz,
       s.temperature_c   AS temperature_c,
       s.power_w         AS power_w)sql";
const char* const k_v_samples_joins = R"sql(FROM samples s
JOIN suite_runs sr ON sr.id = s.suite_run_id
JOIN runs r ON r.id = sr.run_id
JOIN hosts h ON h.id = r.host_id
JOIN benchmarks b ON b.id = s.benchmark_id
JOIN metrics m ON m.id = s.metric_id)sql";

namespace {

// v1's v_samples: the GPU from run_gpus by device index, or the sample's own GPU.
constexpr const char* k_v_samples_v1_gpu_join = R"sql(
LEFT JOIN run_gpus rg ON rg.run_id = r.id AND rg.device_index = s.device_index
LEFT JOIN gpu_devices g ON g.id = COALESCE(s.gpu_device_id, rg.gpu_device_id);)sql";

// Public view: one row per run with its environment.
constexpr const char* k_v_runs_v1 = R"sql(
CREATE VIEW v_runs AS
SELECT r.id               AS run_id,
       r.uuid             AS run_uuid,
       r.started_at       AS started_at,
       r.finished_at      AS finished_at,
       r.status           AS status,
       r.user             AS user,
       r.note             AS note,
       h.hostname         AS host,
       h.cpu_model        AS cpu_model,
       (SELECT count(*) FROM run_gpus rg WHERE rg.run_id = r.id) AS gpu_count,
       COALESCE((SELECT group_concat(n || 'x ' || name, ', ')
                 FROM (SELECT g.name AS name, count(*) AS n
                       FROM run_gpus rg JOIN gpu_devices g ON g.id = rg.gpu_device_id
                       WHERE rg.run_id = r.id
                       GROUP BY g.name ORDER BY min(rg.device_index))), 'none') AS gpu_summary,
       e.driver_version       AS driver,
       e.cuda_driver_version  AS cuda_driver,
       e.cuda_runtime_version AS cuda_runtime,
       e.cublas_version       AS cublas,
       e.nccl_version         AS nccl,
       e.gpubench_version     AS gpubench_version,
       e.git_sha              AS git_sha,
       e.git_dirty            AS git_dirty,
       c.profile              AS profile,
       c.clocks_locked        AS clocks_locked,
       COALESCE((SELECT group_concat(key || '=' || value, ',')
                 FROM (SELECT key, value FROM run_tags t
                       WHERE t.run_id = r.id ORDER BY position)), '') AS tags
FROM runs r
JOIN hosts h ON h.id = r.host_id
JOIN software_envs e ON e.id = r.software_env_id
JOIN configurations c ON c.id = r.configuration_id;
)sql";

void create_v1(Database& db) {
  db.exec(k_schema_v1);
  // Public view: one row per sample with everything needed to read it.
  db.exec(std::string("CREATE VIEW v_samples AS\nSELECT ") + k_v_samples_v1_columns + "\n" +
          k_v_samples_joins + "\n" + k_v_samples_v1_gpu_join);
  db.exec(k_v_runs_v1);
}

void write_versions(Database& db, int version, int compatible) {
  Statement st = db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)");
  st.bind(1, "schema_version").bind(2, std::to_string(version)).run();
  st.bind(1, "compatible_version").bind(2, std::to_string(compatible)).run();
}

int parse_version(Database& db, const std::string& key, const std::string& text) {
  const auto value = parse_int(trim(text));
  if (!value || *value < 0) {
    throw infrastructure("database '" + db.path().string() + "' is damaged",
                         "meta." + key + " is '" + text + "', not a version number",
                         "restore it from a copy, or use another --db");
  }
  return static_cast<int>(*value);
}

}  // namespace

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> steps = {
      {1, "create the v1 schema", &create_v1},
      {2, "second round: run states, GPU identity, exchange, statistics", &apply_v2},
      {3, "fleet-size speed: per-run series medians, read-path indexes", &apply_v3},
      {4, "aggregate-only benchmarks and complexity fits", &apply_v4},
      {5, "change-point scans: incremental history --record", &apply_v5},
      {6, "cuBLASLt algorithms kept with runs, benchmark labels", &apply_v6},
      {7, "runs excluded from history on purpose", &apply_v7},
      {8, "acceptance facts of other tools (dcgmi diag) kept with runs", &apply_v8},
  };
  return steps;
}

Versions read_versions(Database& db) {
  Versions v;
  if (!db.table_exists("meta")) return v;
  Statement st = db.prepare(
      "SELECT key, value FROM meta WHERE key IN "
      "('schema_version', 'compatible_version')");
  while (st.step()) {
    const std::string key = st.column_text(0);
    const int value = parse_version(db, key, st.column_text(1));
    if (key == "schema_version") {
      v.schema_version = value;
    } else {
      v.compatible_version = value;
    }
  }
  if (v.compatible_version == 0) v.compatible_version = v.schema_version;
  return v;
}

void migrate(Database& db) {
  const auto& steps = migrations();
  for (;;) {
    Transaction tx(db, TransactionKind::immediate);
    const Versions v = read_versions(db);       // under the write lock: no one else migrates now
    if (v.schema_version >= k_version) return;  // rolls back an empty transaction
    const Migration& step = steps.at(static_cast<size_t>(v.schema_version));
    step.apply(db);
    if (v.schema_version == 0) {
      Statement st = db.prepare("INSERT INTO meta(key, value) VALUES ('created_at', ?1)");
      st.bind(1, now_iso8601_utc()).run();
    }
    write_versions(db, step.to_version,
                   step.to_version == k_version ? k_compatible_version : step.to_version);
    tx.commit();
  }
}

}  // namespace gpubench::results::schema
