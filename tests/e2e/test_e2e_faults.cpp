// Issue 10's fault matrix against the real CLI with fixture suites: for each numbered fault the
// run's status row, the exit code and the sample counts are asserted, and a later
// `compare latest~1 latest` still works.
#include "e2e_faults_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

constexpr const char* k_ok_suite = "fixture_ok";

// A finished run to compare against, so `compare latest~1 latest` has two sides.
void baseline_run(const Workspace& ws) {
  const CliResult r = ws.run(
      {"run", "--suite", k_ok_suite, "--profile", "quick", "--executions", "3", ws.db_arg()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
}

// compare answers (0 or 1), it does not fail (2 or 3).
void expect_compare_works(const Workspace& ws) {
  const CliResult c = ws.run({"compare", "latest~1", "latest", "--history", "0", ws.db_arg()});
  EXPECT_TRUE(c.exit_code == 0 || c.exit_code == 1) << c.exit_code << c.out << c.err;
}

fs::path write_fixture(const Workspace& ws, const std::string& name, const std::string& text) {
  const fs::path p = ws.root() / name;
  write_file_atomic(p, text);
  return p;
}

std::string statuses(FaultDb& db) {
  return db.scalar("SELECT group_concat(status, ',') FROM (SELECT status FROM runs ORDER BY id)");
}

// 1. A lock held past the busy timeout while a suite's results are stored: the suite is
// recorded failed with the reason (once the lock is free), the next suite still runs and is
// stored, the run ends `failed`, never `running`.
TEST(E2eFaults, LockTimeoutDuringRunLeavesNoRunningRun) {
  Workspace ws;
  baseline_run(ws);
  const fs::path json_file = write_fixture(
      ws, "fake.json",
      fixture_doc({fixture_row("fixture_fake/a", 0, 5), fixture_row("fixture_fake/a", 1, 6)}));
  const fs::path go = ws.root() / "go";
  const fs::path pidfile = ws.root() / "suite.pid";
  // A FIXTURE suite that starts 4 s later than fixture_ok would and then is fixture_ok: its
  // results come after the lock is free again.
  const fs::path later = ws.suites() / "gpubench-fixture_later";
  write_file_atomic(later,
                    "#!/bin/sh\n# FIXTURE: fixture_ok, 4 s later\nsleep 4\nexec \"$(dirname "
                    "\"$0\")/gpubench-fixture_ok\" \"$@\"\n");
  fs::permissions(later, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
  FaultDb db(ws.db());
  Background run(ws, {"run", "--suite", "fixture_fake,fixture_later", "--executions", "2"},
                 {{"GPUBENCH_BUSY_TIMEOUT_MS", "300"},
                  {"FAKE_WAIT_FILE", go.string()},
                  {"FAKE_JSON", json_file.string()},
                  {"FAKE_PIDFILE", pidfile.string()}},
                 ws.root() / "run.err");
  ASSERT_TRUE(wait_for([&] { return fs::exists(pidfile) && fs::file_size(pidfile) > 0; }));
  const pid_t suite_pid = std::atoi(read_file(pidfile).c_str());
  ASSERT_TRUE(db.exec("BEGIN IMMEDIATE"));
  write_file_atomic(go, "go");  // the suite finishes while the lock is held
  ASSERT_TRUE(wait_for([&] { return process_gone(suite_pid); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));  // store and record both time out
  db.exec("COMMIT");
  EXPECT_EQ(run.wait(), 3) << run.err();
  EXPECT_TRUE(contains(run.err(), "could not all be stored")) << run.err();
  EXPECT_TRUE(contains(run.err(), "locked")) << run.err();
  EXPECT_EQ(statuses(db), "complete,failed");
  EXPECT_EQ(db.scalar("SELECT status FROM suite_runs WHERE run_id = 2 AND suite = "
                      "'fixture_fake'"),
            "failed");
  EXPECT_TRUE(contains(db.scalar("SELECT reason FROM suite_runs WHERE run_id = 2 AND suite = "
                                 "'fixture_fake'"),
                       "locked"));
  EXPECT_EQ(db.scalar("SELECT status FROM suite_runs WHERE run_id = 2 AND suite = "
                      "'fixture_later'"),
            "ok");
  EXPECT_EQ(count_of(db,
                     "SELECT count(*) FROM samples s JOIN suite_runs sr ON sr.id = "
                     "s.suite_run_id WHERE sr.run_id = 2 AND sr.suite = 'fixture_later'"),
            18);  // 2 executions x 3 repetitions x (real_time, cpu_time, items_per_s)
  EXPECT_EQ(count_of(db,
                     "SELECT count(*) FROM samples s JOIN suite_runs sr ON sr.id = "
                     "s.suite_run_id WHERE sr.run_id = 2 AND sr.suite = 'fixture_fake'"),
            0);
  expect_compare_works(ws);
}

// 2. gpubench killed by SIGKILL: its suite dies with it, the next writer marks the run
// `abandoned` (readers show `abandoned?`), its scratch directory is removed, `latest` skips it.
TEST(E2eFaults, KilledGpubenchIsAbandonedAndItsSuiteDies) {
  Workspace ws;
  baseline_run(ws);
  const fs::path tmp = ws.root() / "tmp";
  fs::create_directories(tmp);
  const fs::path pidfile = ws.root() / "suite.pid";
  Background run(
      ws, {"run", "--suite", "fixture_fake"},
      {{"FAKE_SLEEP", "60"}, {"FAKE_PIDFILE", pidfile.string()}, {"TMPDIR", tmp.string()}},
      ws.root() / "run.err");
  ASSERT_TRUE(wait_for([&] { return fs::exists(pidfile) && fs::file_size(pidfile) > 0; }));
  const pid_t suite_pid = std::atoi(read_file(pidfile).c_str());
  kill(run.pid(), SIGKILL);
  EXPECT_EQ(run.wait(), 128 + SIGKILL);
  EXPECT_TRUE(wait_for([&] { return process_gone(suite_pid); }, 5)) << "suite outlived gpubench";

  const CliResult runs = ws.run({"runs", "--format", "json", ws.db_arg()});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  const json rj = json::parse(runs.out);
  ASSERT_EQ(rj.size(), 2u);
  EXPECT_EQ(rj[0]["status"], "running");  // a reader does not write...
  EXPECT_EQ(rj[0]["owner_gone"], true);   // ...but says its owner is gone
  EXPECT_TRUE(contains(ws.run({"runs", ws.db_arg()}).out, "abandoned?"));
  bool left_behind = false;
  for (const auto& e : fs::directory_iterator(tmp)) {
    left_behind |= e.path().filename().string().rfind("gpubench-run.", 0) == 0;
  }
  EXPECT_TRUE(left_behind);  // SIGKILL leaves it; the next run removes it

  const CliResult next =
      ws.run({"run", "--suite", k_ok_suite, ws.db_arg()}, {{"TMPDIR", tmp.string()}});
  EXPECT_EQ(next.exit_code, 0) << next.err;
  FaultDb db(ws.db());
  EXPECT_EQ(statuses(db), "complete,abandoned,complete");
  EXPECT_TRUE(contains(db.scalar("SELECT status_reason FROM runs WHERE id = 2"), "no longer"));
  for (const auto& e : fs::directory_iterator(tmp)) {
    EXPECT_NE(e.path().filename().string().rfind("gpubench-run.", 0), 0u) << e.path();
  }
  EXPECT_EQ(fs::exists(ws.db().string() + ".run-" +
                       db.scalar("SELECT uuid FROM runs WHERE id = 2") + ".lock"),
            false);
  // latest is run 3, latest~1 run 1: the abandoned run is not "latest".
  const CliResult show = ws.run({"show", "latest~1", "--format", "json", ws.db_arg()});
  EXPECT_EQ(json::parse(show.out)["run"]["id"], 1);
  expect_compare_works(ws);
}

// 2. SIGHUP (a dropped SSH session) stops the run like SIGTERM: exit 129, run `interrupted`.
TEST(E2eFaults, SighupInterruptsTheRun) {
  Workspace ws;
  baseline_run(ws);
  const fs::path pidfile = ws.root() / "suite.pid";
  Background run(ws, {"run", "--suite", std::string(k_ok_suite) + ",fixture_fake"},
                 {{"FAKE_SLEEP", "60"}, {"FAKE_PIDFILE", pidfile.string()}}, ws.root() / "run.err");
  ASSERT_TRUE(wait_for([&] { return fs::exists(pidfile) && fs::file_size(pidfile) > 0; }));
  const pid_t suite_pid = std::atoi(read_file(pidfile).c_str());
  kill(run.pid(), SIGHUP);
  EXPECT_EQ(run.wait(), 129) << run.err();
  EXPECT_TRUE(wait_for([&] { return process_gone(suite_pid); }, 10));
  FaultDb db(ws.db());
  EXPECT_EQ(statuses(db), "complete,interrupted");
  EXPECT_EQ(db.scalar("SELECT group_concat(suite || ':' || status) FROM suite_runs WHERE "
                      "run_id = 2"),
            "fixture_ok:ok,fixture_fake:interrupted");
  expect_compare_works(ws);
}

// 3. A suite's row never exists without its samples: SIGKILL during a large ingest leaves either
// no row for the suite or the row with every sample.
TEST(E2eFaults, KilledDuringIngestLeavesNoEmptyOkSuite) {
  Workspace ws;
  json rows = json::array();
  for (int i = 0; i < 60000; ++i)
    rows.push_back(fixture_row("fixture_fake/b:" + std::to_string(i), 0, 7));
  const fs::path json_file = write_fixture(ws, "big.json", fixture_doc(rows));
  const fs::path pidfile = ws.root() / "suite.pid";
  Background run(ws, {"run", "--suite", "fixture_fake"},
                 {{"FAKE_JSON", json_file.string()}, {"FAKE_PIDFILE", pidfile.string()}},
                 ws.root() / "run.err");
  ASSERT_TRUE(wait_for([&] { return fs::exists(pidfile) && fs::file_size(pidfile) > 0; }));
  const pid_t suite_pid = std::atoi(read_file(pidfile).c_str());
  ASSERT_TRUE(wait_for([&] { return process_gone(suite_pid); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // ingest under way
  kill(run.pid(), SIGKILL);
  run.wait();
  FaultDb db(ws.db());
  const int64_t suites = count_of(db, "SELECT count(*) FROM suite_runs");
  const int64_t samples = count_of(db, "SELECT count(*) FROM samples");
  EXPECT_TRUE((suites == 0 && samples == 0) || (suites == 1 && samples == 120000))
      << suites << " suite rows, " << samples << " samples";
}

// 4. Output that cannot be written exits 3 with a message, never 0, and never 1: a compare that
// found a regression but could not write its report must not read as a verdict.
TEST(E2eFaults, WriteErrorsOnStdoutExit3) {
  Workspace ws;
  baseline_run(ws);
  baseline_run(ws);
  // Runs 3 and 4 (FIXTURE): the candidate twice as slow, a regression (compare exits 1).
  for (double scale : {1.0, 2.0}) {
    std::vector<nlohmann::json> rows;
    for (int rep = 0; rep < 3; ++rep) {
      rows.push_back(fixture_row("fixture_ok/constant/n:1", rep, scale * (100 + rep)));
    }
    const fs::path f = write_fixture(ws, "scaled.json", fixture_doc(rows));
    ASSERT_EQ(ws.run({"import", f.string(), ws.db_arg()}).exit_code, 0);
  }
  ASSERT_EQ(ws.run({"compare", "3", "4", "--history", "0", ws.db_arg()}).exit_code, 1);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"export", "1", "--format", "json"},
        {"show", "1"},
        {"show", "1", "--format", "json"},
        {"runs"},
        {"report", "1"},
        {"compare", "1", "2", "--history", "0"},
        {"compare", "3", "4", "--history", "0"},
        {"compare", "3", "4", "--history", "0", "--format", "json"},
        {"accept", "4", "--against", "3"}}) {
    SCOPED_TRACE(args[0]);
    harness::ProcessSpec spec;
    spec.argv = {gpubench_binary().string()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.argv.push_back(ws.db_arg());
    spec.env = {{"CI", "1"}, {"GPUBENCH_DB", ws.db().string()}};
    spec.stdout_path = "/dev/full";
    spec.timeout_s = 60;
    const harness::ProcessResult r = harness::run_process(spec);
    EXPECT_EQ(r.exit_code, 3) << r.stderr_tail;
    EXPECT_TRUE(contains(r.stderr_tail, "cannot write the output")) << r.stderr_tail;
    // Said once, with a cause (never "Success" from a stale errno).
    const std::size_t first = r.stderr_tail.find("cannot write the output");
    EXPECT_EQ(r.stderr_tail.find("cannot write the output", first + 1), std::string::npos)
        << r.stderr_tail;
    EXPECT_FALSE(contains(r.stderr_tail, "Success")) << r.stderr_tail;
  }
}

// 5. An import that fails during ingest changes nothing (exit 2, no run).
TEST(E2eFaults, FailedImportStoresNothing) {
  Workspace ws;
  baseline_run(ws);
  json parsec = fixture_row("imported/x", 0, 5);
  parsec["time_unit"] = "parsec";
  for (const std::string& text : {fixture_doc({fixture_row("imported/x", 0, 5), parsec}),
                                  std::string(R"({"benchmarks": [[{"name": "x"}]]})")}) {
    const fs::path f = write_fixture(ws, "bad.json", text);
    const CliResult r = ws.run({"import", f.string(), ws.db_arg()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "the database was not changed")) << r.err;
  }
  FaultDb db(ws.db());
  EXPECT_EQ(count_of(db, "SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(count_of(db, "SELECT count(*) FROM suite_runs"), 3);  // the baseline's 3 executions
}

// 7. A bad --filter is refused before anything is stored.
TEST(E2eFaults, InvalidFilterIsBadInput) {
  Workspace ws;
  baseline_run(ws);
  for (const char* filter : {"(", "[z-a]"}) {
    const CliResult r = ws.run({"run", "--suite", k_ok_suite, "--filter", filter, ws.db_arg()});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, "--filter")) << r.err;
    EXPECT_TRUE(contains(r.err, "regular expression")) << r.err;
  }
  FaultDb db(ws.db());
  EXPECT_EQ(count_of(db, "SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(ws.run({"run", "--suite", k_ok_suite, "--filter", "-constant", ws.db_arg()}).exit_code,
            0);
}

// 8. SIGINT while waiting for the lock at the start: 130 at once, nothing stored.
TEST(E2eFaults, SigintWhileWaitingForTheLockAtStart) {
  Workspace ws;
  baseline_run(ws);
  FaultDb db(ws.db());
  ASSERT_TRUE(db.exec("BEGIN IMMEDIATE"));
  Background run(ws, {"run", "--suite", k_ok_suite}, {{"GPUBENCH_BUSY_TIMEOUT_MS", "30000"}},
                 ws.root() / "run.err");
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  const auto sent = std::chrono::steady_clock::now();
  kill(run.pid(), SIGINT);
  EXPECT_EQ(run.wait(), 130) << run.err();
  const double waited_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  EXPECT_LT(waited_s, 10);  // not the 30 s busy timeout
  EXPECT_TRUE(contains(run.err(), "nothing was stored")) << run.err();
  db.exec("COMMIT");
  EXPECT_EQ(statuses(db), "complete");
}

// 8. SIGINT while a finished suite waits for the lock: the suite is kept, the run ends
// `interrupted`, the remaining suites do not start, exit 130.
TEST(E2eFaults, SigintWhileStoringKeepsTheFinishedSuite) {
  Workspace ws;
  baseline_run(ws);
  FaultDb db(ws.db());
  const fs::path pidfile = ws.root() / "suite.pid";
  const fs::path json_file = write_fixture(ws, "fake.json", fixture_doc(ok_rows()));
  Background run(ws, {"run", "--suite", "fixture_fake," + std::string(k_ok_suite)},
                 {{"GPUBENCH_BUSY_TIMEOUT_MS", "30000"},
                  {"FAKE_SLEEP", "1"},
                  {"FAKE_JSON", json_file.string()},
                  {"FAKE_PIDFILE", pidfile.string()}},
                 ws.root() / "run.err");
  ASSERT_TRUE(wait_for([&] { return fs::exists(pidfile) && fs::file_size(pidfile) > 0; }));
  ASSERT_TRUE(db.exec("BEGIN IMMEDIATE"));
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));  // the suite has finished
  kill(run.pid(), SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  db.exec("COMMIT");
  EXPECT_EQ(run.wait(), 130) << run.err();
  EXPECT_EQ(statuses(db), "complete,interrupted");
  EXPECT_EQ(
      db.scalar("SELECT group_concat(suite || ':' || status) FROM suite_runs WHERE run_id = 2"),
      "fixture_fake:ok");
  EXPECT_EQ(count_of(db,
                     "SELECT count(*) FROM samples s JOIN suite_runs sr ON sr.id = "
                     "s.suite_run_id WHERE sr.run_id = 2"),
            6);  // 3 repetitions x (real_time, cpu_time)
  expect_compare_works(ws);
}

// 9. NaN, infinite and negative times are kept aside as invalid with the reason; the rest of
// the suite is stored. Numbers too large to convert are errors, never dropped.
TEST(E2eFaults, NonFiniteAndNegativeValues) {
  Workspace ws;
  baseline_run(ws);
  std::vector<json> rows = ok_rows();
  for (const json& r : {fixture_row("fixture_fake/v", 0, 5), fixture_row("fixture_fake/v", 1, -5.5),
                        fixture_row("fixture_fake/v", 2, 11111)}) {
    rows.push_back(r);
  }
  std::string text = fixture_doc(rows);
  // Google Benchmark writes bare NaN / Infinity tokens.
  const auto at = text.find("11111.0");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 7, "NaN");
  const auto cpu = text.rfind("11111.0");
  ASSERT_NE(cpu, std::string::npos);
  text.replace(cpu, 7, "Infinity");
  const fs::path f = write_fixture(ws, "nan.json", text);
  const CliResult r =
      ws.run({"run", "--suite", "fixture_fake", "--executions", "2", ws.db_arg()},
             {{"FAKE_JSON", f.string()}});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  FaultDb db(ws.db());
  EXPECT_EQ(db.scalar("SELECT status FROM suite_runs WHERE run_id = 2"), "ok");
  EXPECT_EQ(count_of(db,
                     "SELECT count(*) FROM samples s JOIN suite_runs sr ON sr.id = "
                     "s.suite_run_id WHERE sr.run_id = 2"),
            2 * (6 + 2));  // per execution: fixture_ok rows; v's repetition 0 (1 is negative,
                           // 2 NaN/Infinity)
  EXPECT_EQ(count_of(db, "SELECT count(*) FROM invalid_samples"), 2 * 4);
  EXPECT_EQ(count_of(db, "SELECT count(*) FROM samples WHERE value < 0"), 0);
  const CliResult show = ws.run({"show", "latest", ws.db_arg()});
  EXPECT_TRUE(contains(show.out, "kept aside as invalid")) << show.out;
  EXPECT_TRUE(contains(show.out, "cpu_time is NaN")) << show.out;
  EXPECT_TRUE(contains(show.out, "real_time is Infinity")) << show.out;
  EXPECT_TRUE(contains(show.out, "real_time is negative")) << show.out;

  json big = fixture_row("imported/y", 0, 5);
  big["iterations"] = 1e30;
  const fs::path g = write_fixture(ws, "big.json", fixture_doc({big}));
  const CliResult imp = ws.run({"import", g.string(), ws.db_arg()});
  EXPECT_EQ(imp.exit_code, 2) << imp.err;
  EXPECT_TRUE(contains(imp.err, "iterations")) << imp.err;
  const fs::path h = write_fixture(ws, "huge.json", fixture_doc({fixture_row("imported/z", 0, 5)}));
  std::string huge = read_file(h);
  huge.replace(huge.find("\"real_time\": 5.0"), 16, "\"real_time\": 1e400");
  write_file_atomic(h, huge);
  const CliResult imp2 = ws.run({"import", h.string(), ws.db_arg()});
  EXPECT_EQ(imp2.exit_code, 2) << imp2.err;
  EXPECT_TRUE(contains(imp2.err, "too large")) << imp2.err;
  expect_compare_works(ws);
}

// 11. Aggregates-only files are imported as aggregates (issue 23 reversed issue 10's refusal:
// one such benchmark locked a user's whole file out); compare says they need repetitions.
TEST(E2eFaults, AggregatesOnlyFileIsImportedAsAggregates) {
  Workspace ws;
  json mean = fixture_row("imported/agg", 0, 5);
  mean["run_type"] = "aggregate";
  mean["aggregate_name"] = "mean";
  mean["name"] = "imported/agg_mean";
  const fs::path f = write_fixture(ws, "agg.json", fixture_doc({mean}));
  const CliResult r = ws.run({"import", f.string(), ws.db_arg()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  FaultDb db(ws.db());
  EXPECT_EQ(db.scalar("SELECT kind FROM benchmark_outcomes"), "aggregate");
  EXPECT_EQ(count_of(db, "SELECT count(*) FROM samples WHERE kind = 'iteration'"), 0);
  const CliResult show = ws.run({"show", "latest", ws.db_arg()});
  EXPECT_TRUE(contains(show.out, "aggregates only (mean")) << show.out;
  EXPECT_TRUE(contains(show.out, "rerun with repetitions")) << show.out;
}

// 12. Inputs that used to fall back silently are refused.
TEST(E2eFaults, SilentFallbacksAreRefused) {
  Workspace ws;
  baseline_run(ws);
  EXPECT_EQ(ws.run({"run", "--suite", k_ok_suite, "--repetitions", "0", ws.db_arg()}).exit_code, 2);
  EXPECT_EQ(ws.run({"run", "--suite", "", ws.db_arg()}).exit_code, 2);
  EXPECT_EQ(ws.run({"runs", "--db", ""}).exit_code, 2);
  {
    harness::ProcessSpec spec;  // GPUBENCH_DB set but empty, no --db
    spec.argv = {gpubench_binary().string(), "runs"};
    spec.env = {{"CI", "1"}, {"GPUBENCH_DB", ""}};
    spec.timeout_s = 60;
    const harness::ProcessResult r = harness::run_process(spec);
    EXPECT_EQ(r.exit_code, 2) << r.stderr_tail;
    EXPECT_TRUE(contains(r.stderr_tail, "GPUBENCH_DB is set but empty")) << r.stderr_tail;
  }
  fs::create_directories(ws.root() / "thr.d");
  const CliResult dir =
      ws.run({"compare", "1", "1", "--thresholds", (ws.root() / "thr.d").string(), ws.db_arg()});
  EXPECT_EQ(dir.exit_code, 2) << dir.err;
  const fs::path thr = write_fixture(ws, "thr.txt", "* 500%\n");
  const CliResult big = ws.run({"compare", "1", "1", "--thresholds", thr.string(), ws.db_arg()});
  EXPECT_EQ(big.exit_code, 2) << big.err;
  FaultDb db(ws.db());
  EXPECT_EQ(statuses(db), "complete");
}

// 13. A failed suite keeps the end of its stdout as well as its stderr.
TEST(E2eFaults, FailedSuiteKeepsItsStdout) {
  Workspace ws;
  const CliResult r = ws.run({"run", "--suite", "fixture_fake", ws.db_arg()},
                             {{"FAKE_STDOUT", "FIXTURE: generating dataset failed at step 3"}});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  FaultDb db(ws.db());
  EXPECT_EQ(db.scalar("SELECT reason FROM suite_runs"), "wrote no benchmark JSON");
  EXPECT_TRUE(contains(db.scalar("SELECT stdout_tail FROM suite_runs"), "failed at step 3"));
  EXPECT_TRUE(contains(ws.run({"show", "1", ws.db_arg()}).out, "stdout of fixture_fake"));
}

// Four writers at once with a 50 ms busy timeout: every run ends complete, failed or
// abandoned, never `running`; the file stays intact.
TEST(E2eFaults, FourConcurrentWritersNeverLeaveRunning) {
  Workspace ws;
  baseline_run(ws);
  std::vector<std::unique_ptr<Background>> runs;
  for (int i = 0; i < 4; ++i) {
    runs.push_back(std::make_unique<Background>(
        ws, std::vector<std::string>{"run", "--suite", k_ok_suite},
        std::vector<std::pair<std::string, std::string>>{{"GPUBENCH_BUSY_TIMEOUT_MS", "50"}},
        ws.root() / ("run" + std::to_string(i) + ".err")));
  }
  for (auto& r : runs) {
    const int rc = r->wait();
    EXPECT_TRUE(rc == 0 || rc == 3) << rc << r->err();
  }
  // A writing command afterwards settles anything left by a writer that lost every wait.
  ws.run({"run", "--suite", k_ok_suite, ws.db_arg()});
  FaultDb db(ws.db());
  EXPECT_EQ(count_of(db, "SELECT count(*) FROM runs WHERE status = 'running'"), 0) << statuses(db);
  EXPECT_EQ(count_of(db,
                     "SELECT count(*) FROM runs WHERE status NOT IN ('complete', 'failed', "
                     "'abandoned')"),
            0)
      << statuses(db);
  EXPECT_EQ(db.scalar("PRAGMA integrity_check"), "ok");
  EXPECT_EQ(count_of(db,
                     "SELECT count(*) FROM suite_runs sr WHERE sr.status = 'ok' AND NOT "
                     "EXISTS (SELECT 1 FROM samples s WHERE s.suite_run_id = sr.id)"),
            0);
  expect_compare_works(ws);
}

}  // namespace
}  // namespace gpubench::e2e
