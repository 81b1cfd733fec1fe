// Issue 23, "Data lost in exchange" and "The database file is watched", through the real CLI:
//  - merge and export -> import carry every table of the schema row for row (compared table by
//    table, ids replaced by what they name), baselines with --with-baselines;
//  - a merge of a database a `gpubench run` is writing: both succeed, the running run is left
//    out and named, and the next merge adds it whole (no duplicates);
//  - a merge takes no write lock on its source; a corrupt source exits 2 naming the source;
//  - a database deleted or replaced mid-run: exit 3 saying so.
// Numbers in the fixture rows are made up and labelled FIXTURE.
#include <algorithm>
#include <map>
#include <set>

#include "canonical_tables.hpp"
#include "e2e_faults_support.hpp"
#include "results/exchange/exchange_tables.hpp"
#include "util/strings.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

int64_t scalar_int(const fs::path& db, const std::string& sql) {
  FaultDb raw(db);
  return count_of(raw, sql);
}

// A FIXTURE Google Benchmark file with NaN, infinite and negative times (invalid samples).
fs::path invalid_values_json(const Workspace& ws) {
  const fs::path file = ws.root() / "invalid.json";
  // A name with parameters, so benchmark_params has rows to carry.
  std::string doc = fixture_doc({fixture_row("fixture_fake/case", 0, 100),
                                 fixture_row("fixture_fake/case", 1, -5),
                                 fixture_row("fixture_fake/case", 2, 120),
                                 fixture_row("fixture_fake/sized/bytes:4096/mode:copy", 0, 80)});
  // Google Benchmark's bare tokens, which JSON itself cannot hold.
  const std::string needle = "\"real_time\": 120.0";
  if (const auto at = doc.find(needle); at != std::string::npos) {
    doc.replace(at, needle.size(), "\"real_time\": NaN");
  }
  write_file_atomic(file, doc);
  return file;
}

// A source database with something in every table exchange carries: complete runs with doctor
// checks, a failed suite with its stdout tail, invalid samples, an abandoned run with its
// reason, FIXTURE telemetry and annotations, and a baseline.
void fill_source(const Workspace& ws) {
  // abandoned: gpubench killed mid-run; the next writing command marks it so, with a reason
  ASSERT_TRUE(kill_a_run_mid_suite(ws));
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", "--tag", "ci=nightly", "--tag", "FIXTURE=1",
                    ws.db_arg()})
                .exit_code,
            0);
  const CliResult failed = ws.run({"run", "--suite", "fixture_ok,fixture_fake", ws.db_arg()},
                                  {{"FAKE_STDOUT", "fixture_fake: FIXTURE stdout before failing"},
                                   {"FAKE_EXIT", "1"}});
  ASSERT_EQ(failed.exit_code, 3) << failed.err;
  const CliResult invalid = ws.run({"run", "--suite", "fixture_fake", ws.db_arg()},
                                   {{"FAKE_JSON", invalid_values_json(ws).string()}});
  ASSERT_EQ(invalid.exit_code, 0) << invalid.err;
  ASSERT_EQ(ws.run({"baseline", "set", "gold", "2", ws.db_arg()}).exit_code, 0);
  // A run left out of history on purpose (issue 38), carried with its run.
  ASSERT_EQ(ws.run({"history", "exclude", "3", "--reason", "FIXTURE: excluded", ws.db_arg()})
                .exit_code,
            0);
  FaultDb raw(ws.db());
  raw.exec(
      "INSERT INTO telemetry(run_id, suite_run_id, device_index, t_s, sm_clock_mhz, power_w) "
      "SELECT 2, id, 0, 0.5, 1980, 650.5 FROM suite_runs WHERE run_id = 2;"  // FIXTURE values
      "INSERT INTO suite_run_metric_roles(suite_run_id, metric, role) "
      "SELECT id, 'items_per_s', 'primary' FROM suite_runs WHERE run_id = 2;"
      "INSERT INTO annotations(run_id, benchmark_id, metric_id, hardware_class, text, "
      "created_at) VALUES (2, 1, 1, 'FIXTURE GPU', 'FIXTURE: driver update', "
      "'2026-12-02T16:00:00Z');"
      "INSERT INTO annotations(run_id, benchmark_id, metric_id, hardware_class, text, "
      "created_at) VALUES (NULL, 1, 1, 'FIXTURE GPU', 'FIXTURE: series note', "
      "'2026-12-02T16:00:01Z');"
      // No GPU on the fixture host: a FIXTURE one, as NVML would have recorded it for run 2.
      "INSERT INTO gpu_devices(host_id, uuid, name, pci_bus_id, compute_capability, ecc, "
      "memory_bytes, fingerprint) SELECT host_id, 'GPU-FIXTURE-0', 'FIXTURE GPU', "
      "'00000000:19:00.0', '9.0', 'enabled', 150000000000, 'FIXTURE-gpu-fingerprint' FROM runs "
      "WHERE id = 2;"
      "INSERT INTO run_gpus(run_id, device_index, gpu_device_id) SELECT 2, 0, id FROM "
      "gpu_devices WHERE uuid = 'GPU-FIXTURE-0';"
      // A FIXTURE dcgmi diag fact kept with run 2 (issue 40), as `gpubench import` keeps them.
      "INSERT INTO acceptance_facts(run_id, position, source, test, gpu_index, gpu_uuid, result, "
      "info) VALUES (2, 0, 'dcgmi diag', 'memory', 0, '', 'fail', 'FIXTURE: dcgmi words');"
      // A FIXTURE cuBLASLt choice kept with run 2 (issue 36), as `gpubench run` keeps gemm's.
      "INSERT INTO cublaslt_algorithms(run_id, benchmark, gpu_model, driver_version, "
      "cublas_version, algorithm, description, median_call_ms) VALUES (2, "
      "'gemm/cublaslt/dtype:bf16/device:0', 'FIXTURE GPU', 'FIXTURE driver', 'FIXTURE cublas', "
      "'" + std::string(128, 'a') + "', 'algo=23 tile=20 stages=15 splitk=1 (FIXTURE)', 0.25)");
  // Every table exchange carries has rows, so a merge or import that skipped one fails the
  // comparison (series_medians and the baseline included).
  for (const results::ExchangedTable& t : results::exchanged_tables()) {
    if (t.how == results::Carried::not_carried) continue;
    EXPECT_GT(count_of(raw, "SELECT count(*) FROM " + t.name), 0) << t.name;
  }
  EXPECT_EQ(raw.scalar("SELECT status FROM runs WHERE id = 1"), "abandoned");
  EXPECT_NE(raw.scalar("SELECT status_reason FROM runs WHERE id = 1"), "");
  EXPECT_TRUE(contains(raw.scalar("SELECT group_concat(stdout_tail) FROM suite_runs"),
                       "FIXTURE stdout before failing"));
}

TEST(E2eExchange, MergeCarriesEveryTableRowForRow) {
  Workspace ws;
  fill_source(ws);
  const fs::path target = ws.root() / "target.db";
  const CliResult merge =
      ws.run({"import", ws.db().string(), "--with-baselines", "--db", target.string()});
  ASSERT_EQ(merge.exit_code, 0) << merge.out << merge.err;
  EXPECT_TRUE(contains(merge.out, "4 run(s) added")) << merge.out;
  EXPECT_TRUE(contains(merge.out, "baseline gold")) << merge.out;
  expect_same_tables(ws.db(), target);
  // Twice: nothing added, nothing doubled (series annotations included).
  const CliResult again =
      ws.run({"import", ws.db().string(), "--with-baselines", "--db", target.string()});
  EXPECT_TRUE(contains(again.out, "0 run(s) added, 4 already present")) << again.out;
  EXPECT_TRUE(contains(again.out, "baseline not changed: gold (already here)")) << again.out;
  expect_same_tables(ws.db(), target);
  // Without --with-baselines the target's baselines are its own.
  const fs::path plain = ws.root() / "plain.db";
  ASSERT_EQ(ws.run({"import", ws.db().string(), "--db", plain.string()}).exit_code, 0);
  EXPECT_EQ(scalar_int(plain, "SELECT count(*) FROM baselines"), 0);
}

TEST(E2eExchange, ExportImportCarriesEveryTableRowForRow) {
  Workspace ws;
  fill_source(ws);
  const fs::path target = ws.root() / "target.db";
  for (int run = 1; run <= 4; ++run) {
    SCOPED_TRACE(run);
    const fs::path file = ws.root() / ("run" + std::to_string(run) + ".json");
    const CliResult exp = ws.run({"export", std::to_string(run), "--format", "json", "-o",
                                  file.string(), ws.db_arg()});
    ASSERT_EQ(exp.exit_code, 0) << exp.err;
    const CliResult imp =
        ws.run({"import", file.string(), "--with-baselines", "--db", target.string()});
    ASSERT_EQ(imp.exit_code, 0) << imp.out << imp.err;
    EXPECT_TRUE(contains(imp.out, "1 run(s) added")) << imp.out;
  }
  // The series annotation (no run) belongs to no export: everything else is carried.
  FaultDb(ws.db()).exec("DELETE FROM annotations WHERE run_id IS NULL");
  expect_same_tables(ws.db(), target);

  // An export written before "tables" existed still imports, from its results.
  json old = json::parse(read_file(ws.root() / "run2.json"));
  old.erase("tables");
  const fs::path old_file = ws.root() / "old.json";
  write_file_atomic(old_file, old.dump(1));
  const fs::path older = ws.root() / "older.db";
  const CliResult imp = ws.run({"import", old_file.string(), "--db", older.string()});
  ASSERT_EQ(imp.exit_code, 0) << imp.out << imp.err;
  EXPECT_EQ(scalar_int(older, "SELECT count(*) FROM samples"),
            scalar_int(ws.db(),
                       "SELECT count(*) FROM samples s JOIN suite_runs sr ON "
                       "sr.id = s.suite_run_id WHERE sr.run_id = 2"));
}

// Issue 43, defect 2: an annotation made on the source after its run was merged (or imported
// from an export) reaches the target when it is merged (imported) again; once, however often.
TEST(E2eExchange, AnnotationsMadeAfterAMergeReachTheTargetOnce) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  const fs::path fleet = ws.root() / "fleet.db";
  ASSERT_EQ(ws.run({"import", ws.db().string(), "--db", fleet.string()}).exit_code, 0);
  const fs::path exported = ws.root() / "run2.json";
  ASSERT_EQ(ws.run({"export", "2", "--format", "json", "-o", exported.string(), ws.db_arg()})
                .exit_code,
            0);
  const fs::path other = ws.root() / "other.db";
  ASSERT_EQ(ws.run({"import", exported.string(), "--db", other.string()}).exit_code, 0);

  ASSERT_EQ(ws.run({"annotate", "2", "FIXTURE: driver 575 upgrade", ws.db_arg()}).exit_code, 0);
  for (int pass = 0; pass < 2; ++pass) {
    SCOPED_TRACE(pass);
    const CliResult merge = ws.run({"import", ws.db().string(), "--db", fleet.string()});
    ASSERT_EQ(merge.exit_code, 0) << merge.out << merge.err;
    EXPECT_TRUE(contains(merge.out, "0 run(s) added, 2 already present")) << merge.out;
    EXPECT_EQ(contains(merge.out, "1 annotation(s) added to runs already present"), pass == 0)
        << merge.out;
    expect_same_tables(ws.db(), fleet);
  }
  const CliResult compared = ws.run({"compare", "1", "2", "--db", fleet.string()});
  EXPECT_TRUE(contains(compared.out, "FIXTURE: driver 575 upgrade")) << compared.out;

  // The same through an export of the annotated run into the database that imported it before.
  ASSERT_EQ(ws.run({"export", "2", "--format", "json", "-o", exported.string(), ws.db_arg()})
                .exit_code,
            0);
  for (int pass = 0; pass < 2; ++pass) {
    SCOPED_TRACE(pass);
    const CliResult imp = ws.run({"import", exported.string(), "--db", other.string()});
    ASSERT_EQ(imp.exit_code, 0) << imp.out << imp.err;
    EXPECT_TRUE(contains(imp.out, "0 run(s) added, 1 already present")) << imp.out;
    EXPECT_EQ(scalar_int(other, "SELECT count(*) FROM annotations WHERE text = 'FIXTURE: driver "
                                "575 upgrade' AND run_id = 1"),
              1);
  }
}

// Item 9 and 10: the source machine keeps running while it is merged.
TEST(E2eExchange, MergeOfALiveDatabaseLeavesTheRunningRunForLater) {
  Workspace ws;
  const fs::path go = ws.root() / "go";
  const fs::path rows = ws.root() / "rows.json";
  write_file_atomic(rows, fixture_doc({fixture_row("fixture_fake/case", 0, 100)}));
  Background run(ws, {"run", "--suite", "fixture_ok,fixture_fake", "--executions", "2",
                      ws.db_arg()},
                 {{"FAKE_WAIT_FILE", go.string()}, {"FAKE_JSON", rows.string()}},
                 ws.root() / "run.err");
  // The first suite is stored; the second waits for `go`.
  ASSERT_TRUE(wait_for([&] {
    return fs::exists(ws.db()) && scalar_int(ws.db(), "SELECT count(*) FROM suite_runs") == 1;
  }));
  const fs::path target = ws.root() / "target.db";
  const CliResult first = ws.run({"import", ws.db().string(), "--db", target.string()});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_TRUE(contains(first.out, "0 run(s) added")) << first.out;
  EXPECT_TRUE(contains(first.out, "still running in " + ws.db().string())) << first.out;
  {
    // A writer holds the source's write lock (as the run does while it stores a suite): the
    // merge only reads, so it does not wait for it.
    FaultDb writer(ws.db());
    writer.exec("BEGIN IMMEDIATE");
    const CliResult locked = ws.run({"import", ws.db().string(), "--db", target.string()},
                                    {{"GPUBENCH_BUSY_TIMEOUT_MS", "200"}});
    EXPECT_EQ(locked.exit_code, 0) << locked.out << locked.err;
    writer.exec("ROLLBACK");
  }
  write_file_atomic(go, "");
  EXPECT_EQ(run.wait(), 0) << run.err();
  const CliResult second = ws.run({"import", ws.db().string(), "--db", target.string()});
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_TRUE(contains(second.out, "1 run(s) added")) << second.out;
  EXPECT_EQ(scalar_int(target, "SELECT count(*) FROM suite_runs"), 4);  // 2 suites x 2 executions
  EXPECT_EQ(scalar_int(target, "SELECT count(*) FROM runs WHERE status = 'complete'"), 1);
  const CliResult third = ws.run({"import", ws.db().string(), "--db", target.string()});
  EXPECT_TRUE(contains(third.out, "0 run(s) added, 1 already present")) << third.out;
  EXPECT_EQ(scalar_int(target, "SELECT count(*) FROM runs"), 1);
}

// Item 11: a corrupt source is the source's fault (exit 2), the healthy target is not named.
TEST(E2eExchange, CorruptMergeSourceExits2NamingTheSource) {
  Workspace ws;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  }
  const fs::path target = ws.root() / "target.db";
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", "--db", target.string()}).exit_code, 0);
  // Every page after the first four overwritten: SQLite's header and schema stay readable.
  std::string bytes = read_file(ws.db());
  ASSERT_GT(bytes.size(), 4u * 4096u);
  for (std::size_t i = 4 * 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0xA5);
  write_file_atomic(ws.db(), bytes);
  const CliResult r = ws.run({"import", ws.db().string(), "--db", target.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "cannot merge '" + ws.db().string() + "'")) << r.err;
  EXPECT_TRUE(contains(r.err, "corrupt")) << r.err;
  EXPECT_FALSE(contains(r.err, "database '" + target.string() + "' is corrupt")) << r.err;
  EXPECT_EQ(scalar_int(target, "SELECT count(*) FROM runs"), 1);
  // Into a database that did not exist: refused the same, and no file is left behind (issue 43).
  const fs::path fresh = ws.root() / "new.db";
  const CliResult into_new = ws.run({"import", ws.db().string(), "--db", fresh.string()});
  EXPECT_EQ(into_new.exit_code, 2) << into_new.out << into_new.err;
  EXPECT_TRUE(contains(into_new.err, "was not changed")) << into_new.err;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    EXPECT_FALSE(fs::exists(fresh.string() + suffix)) << suffix;
  }
}

// Item 13: the database deleted or replaced while a run writes it.
TEST(E2eExchange, DatabaseDeletedOrReplacedMidRunExits3) {
  for (const bool replace : {false, true}) {
    SCOPED_TRACE(replace ? "replaced" : "deleted");
    Workspace ws;
    const fs::path other = ws.root() / "other.db";
    ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", "--db", other.string()}).exit_code, 0);
    ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", "--db", other.string()}).exit_code, 0);
    const std::string other_uuid = FaultDb(other).scalar("SELECT uuid FROM runs WHERE id = 1");
    const fs::path go = ws.root() / "go";
    Background run(ws, {"run", "--suite", "fixture_ok,fixture_fake", ws.db_arg()},
                   {{"FAKE_WAIT_FILE", go.string()}}, ws.root() / "run.err");
    ASSERT_TRUE(wait_for([&] {
      return fs::exists(ws.db()) && scalar_int(ws.db(), "SELECT count(*) FROM suite_runs") == 1;
    }));
    if (replace) {
      fs::rename(other, ws.db());
    } else {
      fs::remove(ws.db());
    }
    write_file_atomic(go, "");
    EXPECT_EQ(run.wait(), 3) << run.err();
    EXPECT_TRUE(contains(run.err(), replace ? "was replaced by another file" : "was deleted"))
        << run.err();
    // The dead run's -wal/-shm and its run lock file are not left beside the path: the WAL held
    // the old file's pages, and the next open applied them to the renamed-in file (its runs
    // replaced by the dead run's, "Rowid out of order").
    for (const auto& e : fs::directory_iterator(ws.root())) {
      const std::string name = e.path().filename().string();
      EXPECT_EQ(name.rfind(ws.db().filename().string() + ".run-", 0), std::string::npos) << name;
      if (!replace) {
        EXPECT_NE(name, ws.db().filename().string() + "-wal");
      }
    }
    if (replace) {
      FaultDb after(ws.db());
      EXPECT_EQ(after.scalar("PRAGMA integrity_check"), "ok");
      EXPECT_EQ(after.scalar("SELECT count(*) FROM runs"), "2");
      EXPECT_EQ(after.scalar("SELECT uuid FROM runs WHERE id = 1"), other_uuid);
      EXPECT_EQ(after.scalar("SELECT count(*) FROM runs WHERE status <> 'complete'"), "0");
    }
  }
}

// Item 12: a read-only copy of a database with its -wal (a snapshot taken while runs were only in
// the WAL) shows those runs, and `latest` is the newest. Run as another user when this is root
// (root may write any file, so the copy would not be read-only to it).
TEST(E2eExchange, ReadOnlyCopyWithItsWalShowsTheWalRuns) {
  Workspace ws;
  const bool root = geteuid() == 0;
  if (root && !fs::exists("/usr/bin/setpriv")) GTEST_SKIP() << "needs setpriv to drop root";
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  FaultDb holder(ws.db());  // an open connection: the WAL is not folded in when gpubench exits
  EXPECT_EQ(holder.scalar("SELECT count(*) FROM runs"), "1");
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  const std::string newest = holder.scalar("SELECT uuid FROM runs WHERE id = 2");
  const fs::path ro = ws.root() / "ro";
  fs::create_directories(ro);
  fs::copy_file(ws.db(), ro / "w.db");
  fs::copy_file(ws.db().string() + "-wal", ro / "w.db-wal");
  chmod((ro / "w.db").c_str(), 0444);
  chmod((ro / "w.db-wal").c_str(), 0444);
  chmod(ro.c_str(), 0555);
  chmod(ws.root().c_str(), 0755);
  const fs::path out = ws.root() / "latest.txt";
  const std::string cmd = std::string(root ? "/usr/bin/setpriv --reuid=65534 --regid=65534 "
                                             "--clear-groups "
                                           : "") +
                          gpubench_binary().string() + " runs --db " + (ro / "w.db").string() +
                          " > " + out.string() + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << read_file(out);
  EXPECT_TRUE(contains(read_file(out), newest.substr(0, 8))) << read_file(out);
}

}  // namespace
}  // namespace gpubench::e2e
