// Every row of README's exit-code table, through the real CLI.
#include "e2e_faults_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

TEST(E2eExitCodes, OkRegressionAndUsage) {
  Workspace ws;
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);  // 0
  // 1: an acceptance failure (a FIXTURE spec the fixture's 1000-1200 items/s cannot meet).
  const fs::path spec = ws.root() / "spec.txt";
  write_file_atomic(spec, "fixture_ok/* items_per_s >= 1e12 items/s\n");
  const CliResult fail = ws.run({"accept", "latest", "--spec", spec.string(), ws.db_arg()});
  EXPECT_EQ(fail.exit_code, 1) << fail.out << fail.err;
  // 2: unknown option, suite, profile, format, run id; bad import file.
  EXPECT_EQ(ws.run({"run", "--bogus", ws.db_arg()}).exit_code, 2);
  EXPECT_EQ(ws.run({"run", "--suite", "no_such_suite", ws.db_arg()}).exit_code, 2);
  EXPECT_EQ(ws.run({"run", "--profile", "fast", ws.db_arg()}).exit_code, 2);
  EXPECT_EQ(ws.run({"runs", "--format", "xml", ws.db_arg()}).exit_code, 2);
  EXPECT_EQ(ws.run({"show", "999", ws.db_arg()}).exit_code, 2);
  const fs::path bad = ws.root() / "bad.json";
  write_file_atomic(bad, "{\"benchmarks\": [");
  EXPECT_EQ(ws.run({"import", bad.string(), ws.db_arg()}).exit_code, 2);
}

// 3: a suite failed/crashed/timed out; the database missing, locked, newer, or unusable.
TEST(E2eExitCodes, InfrastructureIs3) {
  Workspace ws;
  EXPECT_EQ(ws.run({"run", "--suite", "fixture_fail", ws.db_arg()}).exit_code, 3);
  EXPECT_EQ(ws.run({"run", "--suite", "fixture_segv", ws.db_arg()}).exit_code, 3);
  EXPECT_EQ(ws.run({"run", "--suite", "fixture_hang", "--timeout-per-suite", "0.5", ws.db_arg()})
                .exit_code,
            3);
  const fs::path missing = ws.root() / "missing.db";
  for (const char* cmd : {"runs", "show", "export", "report", "compare"}) {
    SCOPED_TRACE(cmd);
    std::vector<std::string> args = {cmd};
    if (std::string(cmd) == "show" || std::string(cmd) == "report") args.push_back("latest");
    if (std::string(cmd) == "export") args = {"export", "latest", "--format", "json"};
    if (std::string(cmd) == "compare") args = {"compare", "1", "2"};
    args.push_back("--db=" + missing.string());
    const CliResult r = ws.run(args);
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_TRUE(contains(r.err, "does not exist")) << r.err;
  }
  EXPECT_EQ(ws.run({"run", "--suite", "fixture_ok", "--db", (ws.root() / "no/dir/x.db").string()})
                .exit_code,
            3);
  fs::create_directories(ws.root() / "dir.db");
  EXPECT_EQ(ws.run({"runs", "--db", (ws.root() / "dir.db").string()}).exit_code, 3);
  const fs::path text = ws.root() / "text.db";
  write_file_atomic(text, "not a database\n");
  EXPECT_EQ(ws.run({"runs", "--db", text.string()}).exit_code, 3);
  const fs::path other = ws.root() / "other.db";
  {
    FaultDb raw(other);
    raw.exec("CREATE TABLE unrelated(x)");
  }
  const CliResult r = ws.run({"run", "--suite", "fixture_ok", "--db", other.string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(contains(r.err, "not a gpubench database")) << r.err;
  // locked
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}).exit_code, 0);
  FaultDb holder(ws.db());
  holder.exec("BEGIN EXCLUSIVE");
  EXPECT_EQ(
      ws.run({"run", "--suite", "fixture_ok", ws.db_arg()}, {{"GPUBENCH_BUSY_TIMEOUT_MS", "100"}})
          .exit_code,
      3);
  holder.exec("ROLLBACK");
}

// 130 / 143 / 129: run interrupted by SIGINT / SIGTERM / SIGHUP, finished suites stored.
TEST(E2eExitCodes, InterruptedRunExits128PlusSignal) {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    SCOPED_TRACE(sig);
    Workspace ws;
    const fs::path pidfile = ws.root() / "suite.pid";
    Background run(ws, {"run", "--suite", "fixture_ok,fixture_fake"},
                   {{"FAKE_SLEEP", "60"}, {"FAKE_PIDFILE", pidfile.string()}},
                   ws.root() / "run.err");
    ASSERT_TRUE(wait_for([&] { return fs::exists(pidfile) && fs::file_size(pidfile) > 0; }));
    kill(run.pid(), sig);
    EXPECT_EQ(run.wait(), 128 + sig) << run.err();
    FaultDb db(ws.db());
    EXPECT_EQ(db.scalar("SELECT status FROM runs"), "interrupted");
    EXPECT_EQ(db.scalar("SELECT group_concat(suite || ':' || status) FROM suite_runs"),
              "fixture_ok:ok,fixture_fake:interrupted");
  }
}

// Read commands work on a database they cannot write (read-only media, a directory of another
// user): they open it read-only, immutable when needed.
TEST(E2eExitCodes, ReadCommandsWorkWithoutWriteAccess) {
  Workspace ws;
  const fs::path dir = ws.root() / "ro";
  fs::create_directories(dir);
  const fs::path db = dir / "results.db";
  ASSERT_EQ(ws.run({"run", "--suite", "fixture_ok", "--db", db.string()}).exit_code, 0);
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(db, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                          fs::perms::others_read);
  fs::permissions(ws.root(), fs::perms::others_read | fs::perms::others_exec,
                  fs::perm_options::add);
  fs::permissions(dir, fs::perms::owner_write, fs::perm_options::remove);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"runs"}, {"show", "latest"}, {"report", "latest"}}) {
    SCOPED_TRACE(args[0]);
    // Root writes anywhere: run the command as nobody then, for whom the directory is read-only.
    std::vector<std::string> argv = {gpubench_binary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--db=" + db.string());
    std::vector<char*> a;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      const int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 1);
      dup2(devnull, 2);
      if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(99);
      char ci[] = "CI=1";
      char* env[] = {ci, nullptr};
      execve(a[0], a.data(), env);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    if (WEXITSTATUS(status) == 127 || WEXITSTATUS(status) == 99) {
      GTEST_SKIP() << "cannot run the binary as another user here";
    }
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  fs::permissions(dir, fs::perms::owner_write, fs::perm_options::add);
}

}  // namespace
}  // namespace gpubench::e2e
