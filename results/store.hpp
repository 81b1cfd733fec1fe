// The results store: one SQLite file, the system of record (DESIGN.md "Results store").
//
// Contract:
//  - WAL mode, foreign keys on, busy timeout (default 10 s; a second writer waits, then fails
//    cleanly with Error(infrastructure) naming the lock), every write in a transaction.
//  - Schema version + compatible version in table `meta`; migrations as a ladder of steps, one
//    transaction each. A database written by a newer gpubench is refused unchanged
//    (Error(infrastructure), message names both versions and says to upgrade gpubench).
//  - A file that is not SQLite, a missing directory, an unreadable file: Error with the cause and
//    the fix; the file is never modified.
//  - Views `v_samples` and `v_runs` are a public interface (documented in results/README.md).
//
// Not thread-safe: one Store per thread. Several processes may share the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "results/model.hpp"

namespace gpubench::results {

class Database;  // results/sqlite.hpp

enum class OpenMode {
  read_write_create,  // `gpubench run`, `import`: create the file if missing, migrate forward
  read_write,         // must exist; migrate forward
  read_only,          // must exist; never written, never migrated (a stale schema is an error)
};

// What one ingest stored.
struct IngestSummary {
  int64_t benchmarks = 0;  // distinct benchmark names seen
  int64_t samples = 0;     // sample rows stored (iterations + aggregates, every metric)
  int64_t errors = 0;      // benchmarks that reported an error
  int64_t skipped = 0;     // benchmarks that reported a skip
};

// One row of `gpubench runs`.
struct RunRow {
  int64_t id = 0;
  std::string uuid;
  std::string started_at;
  std::string finished_at;  // empty while running
  RunStatus status = RunStatus::running;
  std::string hostname;
  std::string gpu_summary;  // "8x NVIDIA H200" / "none"
  std::string profile;
  std::vector<std::pair<std::string, std::string>> tags;
  std::string note;
  int64_t suites_total = 0;
  int64_t suites_failed = 0;
  int64_t benchmarks = 0;
};

// One (benchmark, metric, device) of a run with its samples, for show/export/compare.
struct ResultRow {
  int64_t suite_run_id = 0;
  std::string suite;
  std::string benchmark;  // full name
  std::string case_name;
  std::vector<Param> params;
  std::string metric;
  std::string unit;
  Direction direction = Direction::unknown;
  MetricRole role = MetricRole::unknown;  // from the suite's declaration (metric_roles.hpp)
  std::optional<int> device_index;
  std::string gpu_uuid;              // empty when not tied to a GPU
  BenchmarkStatus status = BenchmarkStatus::ok;
  std::string message;               // error or skip message
  std::vector<double> values;        // iteration samples, in repetition order
  std::vector<int> throttled;        // per value: 1 throttled/clock below 75%, 0 ok, -1 unknown
  std::map<std::string, double> aggregates;  // Google Benchmark aggregates ("mean", "median", ...)
  // What the harness's NVML telemetry saw during this row's suite run, on the row's device (or on
  // any GPU when the row has no device): true = a power/thermal throttle reason was set in at
  // least one sample, false = samples with readable reasons and none set, nullopt = no telemetry.
  // Telemetry samples carry run-relative times, not per-benchmark ones, so the overlap is judged
  // per suite run: a flag means "throttling happened while this suite ran", not proof that this
  // benchmark's own repetitions were slowed (`throttled` above is the per-sample check).
  std::optional<bool> telemetry_throttled;
};

struct RunDetail {
  RunRow run;
  RunInfo info;                       // environment as recorded
  std::vector<SuiteRunInfo> suites;   // with their ids in suite_run_ids
  std::vector<int64_t> suite_run_ids;
};

class Store {
 public:
  // Opens (and creates/migrates per mode) the database at `path`. Throws gpubench::Error.
  static Store open(const std::filesystem::path& path, OpenMode mode,
                    int busy_timeout_ms = 10000);
  ~Store();
  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;

  static int schema_version();  // what this build writes

  // --- writing a run -----------------------------------------------------------------------
  // Inserts the run (status running) with host, GPUs, environment, config, tags. Returns run id.
  int64_t begin_run(const RunInfo& info);
  // Records a suite run (after the child finished). Returns the suite run id.
  int64_t add_suite_run(int64_t run_id, const SuiteRunInfo& suite);
  // Stores a Google Benchmark JSON document's benchmarks as samples of `suite_run_id`.
  // `default_suite` names benchmarks without a suite prefix. Metrics come from the context key
  // "gpubench.metrics" (a JSON array, or a string holding one) or get direction unknown;
  // real_time/cpu_time are stored as metrics "real_time"/"cpu_time" in the file's time unit
  // converted to ns, direction lower. Throws Error(bad_input) when the document is not Google
  // Benchmark output (no "benchmarks" array), naming what was found instead. All or nothing.
  // Parse the text with parse_benchmark_json() (results/ingest.hpp): Google Benchmark writes
  // bare NaN/Infinity tokens that plain JSON parsers reject.
  IngestSummary ingest_benchmark_json(int64_t suite_run_id, const nlohmann::json& doc,
                                      const std::string& default_suite);
  void finish_run(int64_t run_id, RunStatus status);
  // Stores NVML telemetry samples of one suite run (suite_run_id nullopt: sampled outside any
  // suite) in one transaction. Each sample is linked to the run's GPU of its device index when
  // the run recorded one. Throws Error(bad_input) for an unknown run or a suite run of another run.
  void add_telemetry(int64_t run_id, std::optional<int64_t> suite_run_id,
                     const std::vector<TelemetrySample>& samples);

  // --- reading -----------------------------------------------------------------------------
  // Runs newest first (by started_at, then id); limit 0 = all.
  std::vector<RunRow> list_runs(int64_t limit = 0);
  // "latest", "latest~N", a numeric id, or a UUID (or unique UUID prefix of >= 8 chars).
  // Throws Error(bad_input) for unknown ids, naming the id and how to list runs.
  int64_t resolve_run(const std::string& spec);
  // Throws Error(bad_input) for an unknown id.
  RunDetail get_run(int64_t run_id);
  // Rows in suite-run order, then the order benchmarks appeared in the suite's output, then
  // metric order (real_time, cpu_time, declared metrics, other counters). A benchmark that was
  // skipped or failed without samples is one row with an empty `metric` and no values, so its
  // status and message are shown too. Throws Error(bad_input) for an unknown id.
  std::vector<ResultRow> get_results(int64_t run_id);
  // Telemetry samples of a run (of one suite run when given), by device index, then time.
  std::vector<TelemetrySample> get_telemetry(int64_t run_id,
                                             std::optional<int64_t> suite_run_id = std::nullopt);
  // One summary per GPU that has telemetry in the run, by device index; empty when none.
  std::vector<TelemetrySummary> get_telemetry_summary(int64_t run_id);

  Database& database();  // for modules that add their own tables (compare, telemetry)

 private:
  explicit Store(std::unique_ptr<Database> db);
  std::unique_ptr<Database> m_db;
};

}  // namespace gpubench::results
