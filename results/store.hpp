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
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "results/doctor_store.hpp"
#include "results/model.hpp"

namespace gpubench::results {

class Database;  // results/sqlite/sqlite.hpp
class RunLock;   // results/liveness.hpp

enum class OpenMode {
  read_write_create,  // `gpubench run`, `import`: create the file if missing, migrate forward
  read_write,         // must exist; migrate forward
  read_only,          // must exist; never written, never migrated (a stale schema is an error)
};
// Writing opens (read_write_create, read_write) mark runs whose gpubench died `abandoned`
// (detail::mark_abandoned_runs); read-only opens only report them (RunRow::owner_gone). A
// read-only open of a file whose directory or file is not writable (read-only media) uses
// SQLite's immutable mode.

class EntryWork;      // results/ingest/ingest_stream.hpp
class StreamedEntry;  // results/ingest/ingest_stream.hpp

// What one ingest stored.
struct IngestSummary {
  int64_t benchmarks = 0;  // distinct benchmark names seen
  int64_t samples = 0;     // sample rows stored (iterations + aggregates, every metric)
  int64_t invalid = 0;     // values kept in invalid_samples instead (NaN, infinite, negative time)
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
  // Distinct suites (however many executions each had), those with a failed execution, and
  // distinct benchmarks.
  int64_t suites_total = 0;
  int64_t suites_failed = 0;
  int64_t benchmarks = 0;
  std::string status_reason;  // why it ended so, when recorded (abandoned: the evidence)
  // `history exclude`'s reason when the run is left out of every history, else empty
  // (results/history_exclusions.hpp).
  std::string history_excluded;
  // Only for status running: its owner is gone (judged without writing; the next writing
  // command marks it abandoned). Shown as `abandoned?`.
  bool owner_gone = false;
};

// A value a suite reported that could not be a sample (NaN, infinite, a negative time).
struct InvalidSample {
  std::string suite;
  std::string benchmark;
  std::string metric;
  std::string kind;  // "iteration" or the aggregate's name
  std::optional<int64_t> repetition;
  std::optional<int64_t> device_index;
  std::string raw;  // as reported: "NaN", "-Infinity", "-5500000"
  std::string reason;
};

// What Store::store_suite stored.
struct StoredSuite {
  int64_t suite_run_id = 0;
  IngestSummary summary;
  bool ingested = false;  // the document's benchmarks were stored
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
  // The CUDA ordinal the suite named (`device:N`), as the suite saw it: under the suite's
  // CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER. Not an NVML index (GpuInfo::nvml_index): the
  // GPU is `gpu_uuid`, mapped at ingest through the suite's gpubench.devices.
  std::optional<int> device_index;
  std::string gpu_uuid;              // empty when not tied to a GPU
  std::string gpu_pci_bus_id;        // of that GPU; empty or "unknown" when not known
  BenchmarkStatus status = BenchmarkStatus::ok;
  std::string message;               // error or skip message
  std::vector<double> values;        // iteration samples, in repetition order
  // Per value: 1 thermal or HW slowdown (the sample is invalid), 0 not, -1 unknown.
  std::vector<int> throttled;
  std::vector<int> power_limited;            // per value: 1 the power cap held the clock, 0, -1
  std::vector<int> clock_below_expected;     // per value: 1 below the expected SM clock, 0, -1
  std::map<std::string, double> aggregates;  // Google Benchmark aggregates ("mean", "median", ...)
  // The benchmark has only aggregate rows in this suite run (results/schema/aggregates.hpp);
  // complexity: the big_o of its complexity fit ("N"), empty when it has none.
  bool aggregate_only = false;
  std::string complexity;
  // The suite's Google Benchmark label of the benchmark in this suite run (its first labelled
  // row; benchmark_outcomes.label, schema v6): what it ran, e.g. gemm's cuBLASLt algorithm
  // ("algo=23 tile=20 stages=15 splitk=1 ..."). Empty when it had none or was stored before v6.
  std::string label;
  // What the harness's NVML telemetry saw during this row's suite run, on the row's device (or on
  // any GPU when the row has no device): true = a thermal/HW slowdown reason was set in at
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
  std::vector<DoctorCheck> doctor;    // readiness checks run before the run (may be empty)
  std::vector<TelemetrySummary> telemetry;  // per GPU, what NVML saw during the run
  std::vector<std::string> annotations;     // `gpubench annotate` (issue 25), oldest first
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
  // The run's liveness lock (results/liveness.hpp) is taken first and held by this Store until
  // finish_run; a Store destroyed before that (crash, exception) leaves a run that the next
  // writing open marks `abandoned`.
  int64_t begin_run(const RunInfo& info);
  // Records a suite run (after the child finished). Returns the suite run id.
  int64_t add_suite_run(int64_t run_id, const SuiteRunInfo& suite);
  // Keeps how busy the machine was while the suite ran in its suite run's context JSON (key
  // "gpubench.machine_load", beside the Google Benchmark context; exported and merged with it),
  // read back as SuiteRunInfo::load. No schema change.
  void record_machine_load(int64_t suite_run_id, const MachineLoad& load);
  // Stores a Google Benchmark JSON document's benchmarks as samples of `suite_run_id`.
  // `default_suite` names benchmarks without a suite prefix. Metrics come from the context key
  // "gpubench.metrics" (a JSON array, or a string holding one) or get direction unknown;
  // real_time/cpu_time are stored as metrics "real_time"/"cpu_time" in the file's time unit
  // converted to ns, direction lower. Throws Error(bad_input) when the document is not Google
  // Benchmark output (no "benchmarks" array), naming what was found instead. All or nothing.
  // Parse the text with parse_benchmark_json() (results/ingest/ingest.hpp): Google Benchmark writes
  // bare NaN/Infinity tokens that plain JSON parsers reject.
  IngestSummary ingest_benchmark_json(int64_t suite_run_id, const nlohmann::json& doc,
                                      const std::string& default_suite);
  void finish_run(int64_t run_id, RunStatus status);
  // After finish_run: what the run's own checks found once its suites were stored (a GPU missing
  // from `--expect-gpus`, issue 38) becomes its status and status_reason, so `latest`, `show` and
  // `compare` see the run the exit code described. Error(bad_input) for an unknown run.
  void record_run_outcome(int64_t run_id, RunStatus status, const std::string& reason);

  // A finished suite in ONE transaction: its row, the document's benchmarks (when `doc` is not
  // null) and its telemetry commit together or not at all. Throws Error(bad_input) when the
  // document cannot be stored (nothing is written then; record the suite again without it) and
  // Error(infrastructure) when the database fails (locked past the busy timeout, disk full).
  StoredSuite store_suite(int64_t run_id, const SuiteRunInfo& suite, const nlohmann::json* doc,
                          const std::string& default_suite,
                          const std::vector<TelemetrySample>& telemetry);
  // A whole run from one Google Benchmark document (`gpubench import`) in ONE transaction: the
  // run (status complete), its one suite and every sample, or nothing at all.
  StoredSuite import_run(const RunInfo& info, const SuiteRunInfo& suite, const nlohmann::json& doc,
                         const std::string& default_suite, int64_t& run_id);
  // The same, entry by entry, for documents read as a stream (results/ingest/ingest_stream.hpp):
  // the transaction opens here with the run, its suite and the document's `context`; add() each
  // entry of "benchmarks"; finish() stores the outcomes and commits. Destroyed unfinished (an
  // exception, a parse error half-way), it rolls everything back. Keep the Store alive meanwhile.
  class RunImport {
   public:
    ~RunImport();
    RunImport(const RunImport&) = delete;
    RunImport& operator=(const RunImport&) = delete;
    int64_t run_id() const;
    // Reads an entry without the database; safe on another thread while add() stores earlier
    // entries (EntrySink::prepare). Never throws for the entry's content: add() does.
    std::unique_ptr<EntryWork> prepare(const StreamedEntry& entry, std::size_t index) const;
    // `prepared`: what prepare() made of this entry, or null (it is read here then).
    void add(const StreamedEntry& entry, std::size_t index, EntryWork* prepared = nullptr);
    StoredSuite finish();

   private:
    friend class Store;
    struct State;
    explicit RunImport(std::unique_ptr<State> state);
    std::unique_ptr<State> m;
  };
  std::unique_ptr<RunImport> begin_import(const RunInfo& info, const SuiteRunInfo& suite,
                                          const nlohmann::json& context,
                                          const std::string& default_suite);
  // Stores NVML telemetry samples of one suite run (suite_run_id nullopt: sampled outside any
  // suite) in one transaction. Each sample is linked to the run's GPU of its device index when
  // the run recorded one. Throws Error(bad_input) for an unknown run or a suite run of another run.
  void add_telemetry(int64_t run_id, std::optional<int64_t> suite_run_id,
                     const std::vector<TelemetrySample>& samples);
  // Decides the three sample states (results/sample_states.hpp) of every iteration sample of a
  // suite run tied to a GPU, from `telemetry` (that suite run's NVML samples; their t_s plus
  // `telemetry_origin_s` is CLOCK_MONOTONIC seconds, the suites' window base) and the run's
  // expected clocks. States the rule cannot decide keep what the suite reported. `slack_s`: one
  // telemetry interval. Returns the samples with a decided state.
  int64_t classify_samples(int64_t suite_run_id, const std::vector<TelemetrySample>& telemetry,
                           double telemetry_origin_s, double slack_s);

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
  // The same rows, streamed: `fn` gets each row of get_results once, in the same order, and may
  // move from it; the row is not valid after `fn` returns (its buffers are reused). One ordered
  // pass over the run's samples, benchmark by benchmark, so memory holds one benchmark's samples
  // and the run's benchmark names (each read once), whatever the run's size. `select` (when set)
  // is asked once per benchmark outcome with the row's suite, benchmark, case_name, params,
  // status and message filled: only the benchmarks it accepts are read. Throws
  // Error(bad_input) for an unknown id; exceptions from `fn` propagate.
  using ResultVisitor = std::function<void(ResultRow&)>;
  using ResultFilter = std::function<bool(const ResultRow&)>;
  void for_each_result(int64_t run_id, const ResultVisitor& fn, const ResultFilter& select = {});
  // Telemetry samples of a run (of one suite run when given), by device index, then time.
  std::vector<TelemetrySample> get_telemetry(int64_t run_id,
                                             std::optional<int64_t> suite_run_id = std::nullopt);
  // Values of the run kept aside as invalid samples, in the order they were reported.
  std::vector<InvalidSample> get_invalid_samples(int64_t run_id);
  // One summary per GPU that has telemetry in the run, by device index; empty when none.
  std::vector<TelemetrySummary> get_telemetry_summary(int64_t run_id);

  Database& database();  // for modules that add their own tables (compare, telemetry)

  // Throws Error(infrastructure) saying what happened when the database file is no longer the
  // one this Store opened (deleted, or replaced by another file: device and inode differ) or
  // run `run_id` is no longer in it. Writes of a run check this first (store_suite,
  // finish_run), so a run whose database vanished under it never reports success.
  void check_database_file(int64_t run_id);

 private:
  explicit Store(std::unique_ptr<Database> db);
  std::unique_ptr<Database> m_db;
  // Device and inode of the file a writing open opened; none for read-only and memory ones.
  std::optional<std::pair<uint64_t, uint64_t>> m_file_id;
  // The same for its -wal and -shm files, and whether check_database_file found the database
  // deleted or replaced: SQLite then neither checkpoints nor removes the WAL at close, and the
  // next open of the file now at the path would apply this run's WAL to it. The destructor
  // removes them when they are still ours (same device and inode), and the run lock files.
  std::optional<std::pair<uint64_t, uint64_t>> m_wal_id;
  std::optional<std::pair<uint64_t, uint64_t>> m_shm_id;
  bool m_file_gone = false;
  // Liveness locks of the runs this Store began and has not finished (results/liveness.hpp).
  std::map<int64_t, std::unique_ptr<RunLock>> m_run_locks;
};

}  // namespace gpubench::results
