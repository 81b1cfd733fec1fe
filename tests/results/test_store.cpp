#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "helpers.hpp"
#include "results/schema/schema.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

using testing::load_fixture;
using testing::sample_run_info;
using testing::sample_suite_run;
namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  TempDir m_dir{"gpubench-test-store"};
  fs::path db_path() const { return m_dir.path() / "gpubench.db"; }

  // Expects `f` to throw gpubench::Error with `code` and `needle` in its message.
  template <typename F>
  static Error expect_error(F&& f, ExitCode code, const std::string& needle) {
    try {
      f();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_FALSE(e.fix().empty()) << e.what();
      return e;
    }
    ADD_FAILURE() << "no error; expected one containing: " << needle;
    return Error(ExitCode::ok, "");
  }
};

TEST_F(StoreTest, CreatesSchemaWithVersionsAndWal) {
  Store store = Store::open(db_path(), OpenMode::read_write_create);
  EXPECT_EQ(Store::schema_version(), schema::k_version);
  Database& db = store.database();
  Statement st = db.prepare("SELECT key, value FROM meta ORDER BY key");
  std::map<std::string, std::string> meta;
  while (st.step()) meta[st.column_text(0)] = st.column_text(1);
  EXPECT_EQ(meta["schema_version"], std::to_string(schema::k_version));
  EXPECT_EQ(meta["compatible_version"], std::to_string(schema::k_compatible_version));
  EXPECT_FALSE(meta["created_at"].empty());
  Statement mode = db.prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.column_text(0), "wal");
  Statement fk = db.prepare("PRAGMA foreign_keys");
  ASSERT_TRUE(fk.step());
  EXPECT_EQ(fk.column_int64(0), 1);
  for (const char* table :
       {"hosts", "gpu_devices", "software_envs", "configurations", "runs", "run_tags", "run_gpus",
        "suite_runs", "benchmarks", "benchmark_params", "metrics", "benchmark_outcomes", "samples",
        "telemetry", "baselines", "annotations", "change_points"}) {
    EXPECT_TRUE(db.table_exists(table)) << table;
  }
}

TEST_F(StoreTest, MigrationLadderTakesEveryEarlierVersionForward) {
  const auto& steps = schema::migrations();
  ASSERT_EQ(steps.size(), static_cast<size_t>(schema::k_version));
  for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].to_version, static_cast<int>(i) + 1);
  // Version 0 is an empty SQLite file (e.g. made by `touch`): opening it for writing migrates.
  write_file_atomic(db_path(), "");
  {
    Store store = Store::open(db_path(), OpenMode::read_write);
    EXPECT_EQ(schema::read_versions(store.database()).schema_version, schema::k_version);
    EXPECT_GT(store.begin_run(sample_run_info()), 0);
  }
  // Reopening a current database migrates nothing and keeps the data.
  Store again = Store::open(db_path(), OpenMode::read_write);
  EXPECT_EQ(again.list_runs().size(), 1u);
}

TEST_F(StoreTest, RunRoundTrip) {
  int64_t run_id = 0;
  RunInfo info = sample_run_info();
  {
    Store store = Store::open(db_path(), OpenMode::read_write_create);
    run_id = store.begin_run(info);
    const int64_t suite_run = store.add_suite_run(run_id, sample_suite_run());
    SuiteRunInfo failed = sample_suite_run("gemm");
    failed.status = SuiteStatus::crashed;
    failed.exit_code.reset();
    failed.term_signal = 11;
    failed.reason = "killed by signal 11 (SIGSEGV)";
    failed.stderr_tail = "Segmentation fault";
    store.add_suite_run(run_id, failed);
    store.ingest_benchmark_json(suite_run, load_fixture("gb171_gpubench_context.json"), "memory");
    store.finish_run(run_id, RunStatus::failed);
  }
  Store store = Store::open(db_path(), OpenMode::read_only);
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  const RunRow& row = runs[0];
  EXPECT_EQ(row.id, run_id);
  EXPECT_EQ(row.status, RunStatus::failed);
  EXPECT_FALSE(row.finished_at.empty());
  EXPECT_EQ(row.hostname, "node01");
  EXPECT_EQ(row.gpu_summary, "2x NVIDIA H200");
  EXPECT_EQ(row.profile, "quick");
  EXPECT_EQ(row.tags, info.tags);
  EXPECT_EQ(row.note, "fixture run");
  EXPECT_EQ(row.suites_total, 2);
  EXPECT_EQ(row.suites_failed, 1);
  EXPECT_EQ(row.benchmarks, 4);

  const RunDetail d = store.get_run(run_id);
  EXPECT_EQ(d.run.uuid, row.uuid);
  EXPECT_EQ(d.info.uuid, row.uuid);
  EXPECT_EQ(d.info.user, "tester");
  EXPECT_EQ(d.info.argv, info.argv);
  EXPECT_EQ(d.info.host.cores, 64);
  EXPECT_EQ(d.info.host.memory_bytes, int64_t{1} << 40);
  EXPECT_FALSE(d.info.host.sockets.has_value());
  EXPECT_EQ(d.info.host.os, "unknown");
  ASSERT_EQ(d.info.gpus.size(), 2u);
  EXPECT_EQ(d.info.gpus[1].uuid, info.gpus[1].uuid);
  EXPECT_EQ(d.info.gpus[1].nvml_index, 1);
  EXPECT_EQ(d.info.gpus[0].power_limit_w, 700.0);
  EXPECT_EQ(d.info.software.driver_version, "560.35.03");
  EXPECT_EQ(d.info.config.env, info.config.env);
  ASSERT_EQ(d.suites.size(), 2u);
  ASSERT_EQ(d.suite_run_ids.size(), 2u);
  EXPECT_EQ(d.suites[0].argv, sample_suite_run().argv);
  EXPECT_EQ(d.suites[0].exit_code, 0);
  EXPECT_EQ(d.suites[1].status, SuiteStatus::crashed);
  EXPECT_EQ(d.suites[1].term_signal, 11);
  EXPECT_FALSE(d.suites[1].exit_code.has_value());
  EXPECT_EQ(d.suites[1].stderr_tail, "Segmentation fault");
}

// Issue 35: a run measures each suite in several executions, each its own suite run. `gpubench
// runs` counts suites and benchmarks, not suite runs and their outcomes: 2 suites, memory failed
// (one of its three executions crashed), 4 benchmarks (not 0/5 suites, 12 benchmarks).
TEST_F(StoreTest, RunOfSeveralExecutionsCountsSuitesNotSuiteRuns) {
  Store store = Store::open(db_path(), OpenMode::read_write_create);
  const int64_t run_id = store.begin_run(sample_run_info());
  for (int e = 0; e < 3; ++e) {
    SuiteRunInfo memory = sample_suite_run();
    if (e == 1) {
      memory.status = SuiteStatus::crashed;
      memory.exit_code.reset();
      memory.term_signal = 11;
      memory.reason = "killed by signal 11 (SIGSEGV)";
    }
    const int64_t suite_run = store.add_suite_run(run_id, memory);
    if (e != 1) {
      store.ingest_benchmark_json(suite_run, load_fixture("gb171_gpubench_context.json"), "memory");
    }
  }
  for (int e = 0; e < 2; ++e) store.add_suite_run(run_id, sample_suite_run("gemm"));
  store.finish_run(run_id, RunStatus::failed);
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].suites_total, 2);
  EXPECT_EQ(runs[0].suites_failed, 1);
  EXPECT_EQ(runs[0].benchmarks, 4);
}

TEST_F(StoreTest, EnvironmentRowsAreDeduplicated) {
  Store store = Store::open(db_path(), OpenMode::read_write_create);
  store.begin_run(sample_run_info());
  store.begin_run(sample_run_info());
  RunInfo other = sample_run_info();
  other.software.driver_version = "570.86.10";
  store.begin_run(other);
  auto count = [&](const char* table) {
    Statement st = store.database().prepare(std::string("SELECT count(*) FROM ") + table);
    st.step();
    return st.column_int64(0);
  };
  EXPECT_EQ(count("runs"), 3);
  EXPECT_EQ(count("hosts"), 1);
  EXPECT_EQ(count("gpu_devices"), 2);
  EXPECT_EQ(count("configurations"), 1);
  EXPECT_EQ(count("software_envs"), 2);
}

TEST_F(StoreTest, DuplicateUuidAndUnknownRunsAreBadInput) {
  Store store = Store::open(db_path(), OpenMode::read_write_create);
  RunInfo info = sample_run_info();
  info.uuid = "0b9f1c2e-0000-4000-8000-000000000001";
  store.begin_run(info);
  expect_error([&] { store.begin_run(info); }, ExitCode::bad_input, "already in database");
  expect_error([&] { store.add_suite_run(999, sample_suite_run()); }, ExitCode::bad_input,
               "unknown run id 999");
  expect_error([&] { store.finish_run(999, RunStatus::complete); }, ExitCode::bad_input,
               "unknown run id 999");
  expect_error([&] { store.get_run(999); }, ExitCode::bad_input, "unknown run '999'");
}

TEST_F(StoreTest, ResolveRunSpecs) {
  Store store = Store::open(db_path(), OpenMode::read_write_create);
  expect_error([&] { store.resolve_run("latest"); }, ExitCode::bad_input, "no finished runs yet");
  const char* uuids[] = {"aaaaaaaa-1111-4000-8000-000000000001",
                         "aaaaaaaa-2222-4000-8000-000000000002",
                         "bbbbbbbb-3333-4000-8000-000000000003"};
  std::vector<int64_t> ids;
  for (int i = 0; i < 3; ++i) {
    RunInfo info = sample_run_info();
    info.uuid = uuids[i];
    info.started_at = "2026-12-0" + std::to_string(i + 1) + "T00:00:00.000Z";
    ids.push_back(store.begin_run(info));
    store.finish_run(ids.back(), RunStatus::complete);
  }
  // A run still going is not "latest" (issue 10); it is reachable by id.
  RunInfo going = sample_run_info();
  going.started_at = "2026-12-09T00:00:00.000Z";
  const int64_t running = store.begin_run(going);
  EXPECT_EQ(store.resolve_run(std::to_string(running)), running);
  EXPECT_EQ(store.resolve_run("latest"), ids[2]);
  EXPECT_EQ(store.resolve_run(" latest~1 "), ids[1]);
  EXPECT_EQ(store.resolve_run("latest~2"), ids[0]);
  expect_error([&] { store.resolve_run("latest~3"); }, ExitCode::bad_input,
               "only 3 finished run(s)");
  expect_error([&] { store.resolve_run("latest~x"); }, ExitCode::bad_input, "latest~N");
  EXPECT_EQ(store.resolve_run(std::to_string(ids[1])), ids[1]);
  expect_error([&] { store.resolve_run("42"); }, ExitCode::bad_input, "unknown run '42'");
  EXPECT_EQ(store.resolve_run(uuids[1]), ids[1]);
  EXPECT_EQ(store.resolve_run("AAAAAAAA-2222"), ids[1]);  // prefix, any case
  EXPECT_EQ(store.resolve_run("bbbbbbbb"), ids[2]);
  expect_error([&] { store.resolve_run("aaaaaaaa"); }, ExitCode::bad_input, "ambiguous");
  expect_error([&] { store.resolve_run("bbbb"); }, ExitCode::bad_input, "8 or more");
  expect_error([&] { store.resolve_run("cccccccc"); }, ExitCode::bad_input, "unknown run");
  expect_error([&] { store.resolve_run("yesterday"); }, ExitCode::bad_input, "gpubench runs");

  store.finish_run(running, RunStatus::failed);
  const auto runs = store.list_runs();
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[1].id, ids[2]);  // newest first
  EXPECT_EQ(store.list_runs(2).size(), 2u);
}

TEST_F(StoreTest, NotSqliteIsRefusedUnchanged) {
  const std::string garbage = "this is not a database\n\x01\x02\x03 just some bytes";
  write_file_atomic(db_path(), garbage);
  for (OpenMode mode : {OpenMode::read_write_create, OpenMode::read_write, OpenMode::read_only}) {
    expect_error([&] { Store::open(db_path(), mode); }, ExitCode::infrastructure,
                 "not a gpubench database (file is not SQLite)");
  }
  EXPECT_EQ(read_file(db_path()), garbage);
}

// A v3 database written before issue 10's refusal may hold benchmarks with only aggregate rows:
// the v4 step marks them 'aggregate' from their samples, the others 'repetitions'.
TEST_F(StoreTest, VersionThreeDatabaseGetsItsAggregateOnlyBenchmarksMarked) {
  {
    Store store = Store::open(db_path(), OpenMode::read_write_create);
    const int64_t run = store.begin_run(sample_run_info());
    store.ingest_benchmark_json(store.add_suite_run(run, sample_suite_run()),
                                load_fixture("gb171_aggregates_only.json"), "memory");
    store.ingest_benchmark_json(store.add_suite_run(run, sample_suite_run()),
                                load_fixture("gb171_repetitions.json"), "memory");
  }
  {
    // Back to the v3 layout: the v8 and v7 tables, the v6 table and column, the v5 table and the
    // two v4 columns dropped, versions 3/3.
    Database raw = Database::open(db_path(), Access::read_write, 1000);
    raw.exec("DROP TABLE acceptance_facts");
    raw.exec("DROP TABLE history_exclusions");
    raw.exec("DROP TABLE cublaslt_algorithms");
    raw.exec("ALTER TABLE benchmark_outcomes DROP COLUMN label");
    raw.exec("DROP TABLE change_point_scans");
    raw.exec("ALTER TABLE benchmark_outcomes DROP COLUMN complexity");
    raw.exec("ALTER TABLE benchmark_outcomes DROP COLUMN kind");
    raw.exec("UPDATE meta SET value = '3' WHERE key IN ('schema_version', 'compatible_version')");
  }
  Store store = Store::open(db_path(), OpenMode::read_write);
  EXPECT_EQ(schema::read_versions(store.database()).schema_version, schema::k_version);
  auto count = [&](const std::string& sql) {
    Statement st = store.database().prepare(sql);
    st.step();
    return st.column_int64(0);
  };
  EXPECT_GT(count("SELECT count(*) FROM benchmark_outcomes WHERE suite_run_id = 1 AND kind = "
                  "'aggregate'"),
            0);
  EXPECT_EQ(count("SELECT count(*) FROM benchmark_outcomes WHERE suite_run_id = 1 AND kind <> "
                  "'aggregate'"),
            0);
  EXPECT_GT(count("SELECT count(*) FROM benchmark_outcomes WHERE suite_run_id = 2 AND kind = "
                  "'repetitions'"),
            0);
  EXPECT_EQ(count("SELECT count(*) FROM benchmark_outcomes WHERE suite_run_id = 2 AND kind <> "
                  "'repetitions'"),
            0);
}

TEST_F(StoreTest, VersionOneDatabaseMigratesForwardKeepingItsRows) {
  {
    // A v1 database as the first release wrote it: the v1 step only, versions 1/1, one host.
    Database raw = Database::open(db_path(), Access::read_write_create, 1000);
    schema::migrations().at(0).apply(raw);
    raw.exec("INSERT INTO meta(key, value) VALUES ('schema_version', '1'), "
             "('compatible_version', '1'), ('created_at', '2026-01-01T00:00:00Z')");
    raw.exec("INSERT INTO hosts(fingerprint, hostname, cpu_model, kernel, os, governor, arch) "
             "VALUES ('fp-v1', 'old-host', 'cpu', 'k', 'os', 'g', 'x86_64')");
  }
  Store store = Store::open(db_path(), OpenMode::read_write);
  EXPECT_EQ(schema::read_versions(store.database()).schema_version, schema::k_version);
  Statement st = store.database().prepare("SELECT hostname FROM hosts WHERE fingerprint = 'fp-v1'");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.column_text(0), "old-host");
  EXPECT_GT(store.begin_run(sample_run_info()), 0);
}

TEST_F(StoreTest, NewerDatabaseIsRefusedUnchanged) {
  { Store::open(db_path(), OpenMode::read_write_create).begin_run(sample_run_info()); }
  {
    Database raw = Database::open(db_path(), Access::read_write, 1000);
    raw.exec("UPDATE meta SET value = '999' WHERE key IN ('schema_version', 'compatible_version')");
  }
  const std::string before = read_file(db_path());
  // Read-write first: SQLite removes its -wal file when the last writer closes. (A read-only
  // connection to a WAL database leaves SQLite's -wal/-shm side files; the database is intact.)
  for (OpenMode mode : {OpenMode::read_write_create, OpenMode::read_write, OpenMode::read_only}) {
    if (mode == OpenMode::read_only) {
      EXPECT_FALSE(fs::exists(db_path().string() + "-wal"));
    }
    const Error e = expect_error([&] { Store::open(db_path(), mode); }, ExitCode::infrastructure,
                                 "newer gpubench");
    EXPECT_NE(e.why().find("999"), std::string::npos) << e.why();
    EXPECT_NE(e.why().find("reads version " + std::to_string(schema::k_version)), std::string::npos)
        << e.why();
    EXPECT_NE(e.fix().find("upgrade gpubench"), std::string::npos) << e.fix();
  }
  EXPECT_EQ(read_file(db_path()), before);
}

TEST_F(StoreTest, NewerButCompatibleDatabaseIsUsed) {
  { Store::open(db_path(), OpenMode::read_write_create); }
  {
    Database raw = Database::open(db_path(), Access::read_write, 1000);
    raw.exec("UPDATE meta SET value = '" + std::to_string(schema::k_version + 1) +
             "' WHERE key = 'schema_version'");
  }
  Store store = Store::open(db_path(), OpenMode::read_write);
  EXPECT_GT(store.begin_run(sample_run_info()), 0);
}

TEST_F(StoreTest, ForeignSqliteFileIsRefusedUnchanged) {
  {
    Database raw = Database::open(db_path(), Access::read_write_create, 1000);
    raw.exec("CREATE TABLE people(name TEXT); INSERT INTO people VALUES ('ada')");
  }
  const std::string before = read_file(db_path());
  for (OpenMode mode : {OpenMode::read_write_create, OpenMode::read_only}) {
    expect_error([&] { Store::open(db_path(), mode); }, ExitCode::infrastructure,
                 "not a gpubench database");
  }
  EXPECT_EQ(read_file(db_path()), before);
}

TEST_F(StoreTest, LockedDatabaseFailsCleanlyAndKeepsData) {
  Store first = Store::open(db_path(), OpenMode::read_write_create);
  first.begin_run(sample_run_info());
  Store second = Store::open(db_path(), OpenMode::read_write, 100);
  {
    Transaction hold(first.database());  // another gpubench in the middle of a write
    expect_error([&] { second.begin_run(sample_run_info()); }, ExitCode::infrastructure,
                 "database '" + db_path().string() + "' is locked");
    // Readers are not blocked by a writer (WAL).
    EXPECT_EQ(second.list_runs().size(), 1u);
  }
  EXPECT_GT(second.begin_run(sample_run_info()), 0);
  EXPECT_EQ(first.list_runs().size(), 2u);
}

TEST_F(StoreTest, OpeningWhileAnotherProcessWritesWorks) {
  Store first = Store::open(db_path(), OpenMode::read_write_create);
  first.begin_run(sample_run_info());
  Transaction hold(first.database());
  Store writer = Store::open(db_path(), OpenMode::read_write, 100);
  Store reader = Store::open(db_path(), OpenMode::read_only, 100);
  EXPECT_EQ(writer.list_runs().size(), 1u);
  EXPECT_EQ(reader.list_runs().size(), 1u);
}

TEST_F(StoreTest, MissingPathsAreClearErrors) {
  const fs::path nested = m_dir.path() / "no" / "such" / "dir" / "x.db";
  expect_error([&] { Store::open(nested, OpenMode::read_write_create); }, ExitCode::infrastructure,
               "does not exist");
  EXPECT_FALSE(fs::exists(m_dir.path() / "no"));
  const fs::path absent = m_dir.path() / "absent.db";
  expect_error([&] { Store::open(absent, OpenMode::read_only); }, ExitCode::infrastructure,
               "the file does not exist");
  expect_error([&] { Store::open(absent, OpenMode::read_write); }, ExitCode::infrastructure,
               "the file does not exist");
  EXPECT_FALSE(fs::exists(absent));
  expect_error([&] { Store::open(m_dir.path(), OpenMode::read_write_create); },
               ExitCode::infrastructure, "is a directory");
}

TEST_F(StoreTest, UnreadableFileIsAClearError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root can read any file";
  { Store::open(db_path(), OpenMode::read_write_create); }
  fs::permissions(db_path(), fs::perms::none);
  expect_error([&] { Store::open(db_path(), OpenMode::read_only); }, ExitCode::infrastructure,
               "cannot read it");
  fs::permissions(db_path(), fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(StoreTest, ReadOnlyNeverWrites) {
  const fs::path empty = m_dir.path() / "empty.db";
  write_file_atomic(empty, "");
  expect_error([&] { Store::open(empty, OpenMode::read_only); }, ExitCode::infrastructure,
               "no gpubench data");
  EXPECT_EQ(fs::file_size(empty), 0u);

  { Store::open(db_path(), OpenMode::read_write_create).begin_run(sample_run_info()); }
  const std::string before = read_file(db_path());
  Store store = Store::open(db_path(), OpenMode::read_only);
  EXPECT_THROW(store.begin_run(sample_run_info()), Error);
  EXPECT_EQ(store.list_runs().size(), 1u);
  EXPECT_EQ(read_file(db_path()), before);
}

TEST_F(StoreTest, ViewsAreQueryable) {
  Store store = Store::open(db_path(), OpenMode::read_write_create);
  const int64_t run = store.begin_run(sample_run_info());
  const int64_t sr = store.add_suite_run(run, sample_suite_run());
  store.ingest_benchmark_json(sr, load_fixture("gb171_gpubench_context.json"), "memory");
  store.finish_run(run, RunStatus::complete);
  Database& db = store.database();

  Statement runs = db.prepare(
      "SELECT run_uuid, host, gpu_count, gpu_summary, driver, cuda_runtime, profile, status, "
      "tags FROM v_runs");
  ASSERT_TRUE(runs.step());
  EXPECT_EQ(runs.column_text(1), "node01");
  EXPECT_EQ(runs.column_int64(2), 2);
  EXPECT_EQ(runs.column_text(3), "2x NVIDIA H200");
  EXPECT_EQ(runs.column_text(4), "560.35.03");
  EXPECT_EQ(runs.column_text(5), "13.0");
  EXPECT_EQ(runs.column_text(6), "quick");
  EXPECT_EQ(runs.column_text(7), "complete");
  EXPECT_EQ(runs.column_text(8), "job=nightly,rack=a7");
  EXPECT_FALSE(runs.step());

  // One GPU's bandwidth samples, as a user would query them.
  Statement samples = db.prepare(
      "SELECT gpu_name, gpu_uuid, suite, case_name, json_extract(params, '$.device'), unit, "
      "direction, repetition, value, clock_below_expected, throttled, cuda_ordinal FROM v_samples "
      "WHERE metric = 'GB_per_s' AND "
      "kind = 'iteration' AND device_index = 1 ORDER BY repetition");
  int n = 0;
  while (samples.step()) {
    EXPECT_EQ(samples.column_text(0), "NVIDIA H200");
    EXPECT_EQ(samples.column_text(1), "GPU-66666666-7777-8888-9999-000000000000");
    EXPECT_EQ(samples.column_text(2), "memory");
    EXPECT_EQ(samples.column_text(3), "device_copy");
    EXPECT_EQ(samples.column_double(4), 1.0);
    EXPECT_EQ(samples.column_text(5), "GB/s");
    EXPECT_EQ(samples.column_text(6), "higher");
    EXPECT_EQ(samples.column_int64(7), n);
    EXPECT_GT(samples.column_double(8), 0.0);
    // The fixture's v1 "throttled" counter on device 1 is a clock below expected, not invalid.
    EXPECT_EQ(samples.column_int64(9), 1);
    EXPECT_TRUE(samples.is_null(10));
    EXPECT_EQ(samples.column_int64(11), 1);
    ++n;
  }
  EXPECT_EQ(n, 2);
}

}  // namespace
}  // namespace gpubench::results
