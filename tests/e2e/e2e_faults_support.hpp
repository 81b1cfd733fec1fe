// Helpers for the fault tests (test_e2e_faults*.cpp): gpubench started in the background with a
// pid the test can signal, a raw SQLite connection to hold locks and read rows, and fixture JSON
// files written on the fly (every number in them is made up and labelled FIXTURE).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "e2e_support.hpp"

namespace gpubench::e2e {

// A raw SQLite connection for holding locks and reading rows behind gpubench's back.
class FaultDb {
 public:
  explicit FaultDb(const fs::path& path) {
    if (sqlite3_open(path.c_str(), &m_db) != SQLITE_OK) ADD_FAILURE() << "cannot open " << path;
    sqlite3_busy_timeout(m_db, 20000);
  }
  ~FaultDb() { sqlite3_close(m_db); }
  FaultDb(const FaultDb&) = delete;
  FaultDb& operator=(const FaultDb&) = delete;
  bool exec(const std::string& sql) {
    char* msg = nullptr;
    const int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &msg);
    if (rc != SQLITE_OK) {
      ADD_FAILURE() << sql << ": " << (msg ? msg : "?");
      sqlite3_free(msg);
    }
    return rc == SQLITE_OK;
  }
  std::string scalar(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    std::string out;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(st, 0);
      out = t ? reinterpret_cast<const char*>(t) : "";
    }
    sqlite3_finalize(st);
    return out;
  }

 private:
  sqlite3* m_db = nullptr;
};

// gpubench running in the background: its pid for signals, wait() for the exit code.
class Background {
 public:
  Background(const Workspace& ws, const std::vector<std::string>& args,
             const std::vector<std::pair<std::string, std::string>>& env,
             const fs::path& stderr_path)
      : m_stderr(stderr_path) {
    std::vector<std::string> argv = {gpubench_binary().string()};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> envs = {"GPUBENCH_SUITE_PATH=" + ws.suites().string(), "CI=1",
                                     "GPUBENCH_DB=" + ws.db().string(), "PATH=/usr/bin:/bin"};
    for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
    std::vector<char*> a, e;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    for (auto& s : envs) e.push_back(s.data());
    e.push_back(nullptr);
    m_pid = fork();
    if (m_pid == 0) {
      const int out = open("/dev/null", O_WRONLY);
      const int err = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, 1);
      dup2(err, 2);
      setpgid(0, 0);
      execve(a[0], a.data(), e.data());
      _exit(127);
    }
  }
  ~Background() {
    if (m_pid > 0 && !m_reaped) {
      kill(m_pid, SIGKILL);
      wait();
    }
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  pid_t pid() const { return m_pid; }
  // Exit code, or 128 + signal.
  int wait() {
    int status = 0;
    waitpid(m_pid, &status, 0);
    m_reaped = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  std::string err() const { return read_file(m_stderr); }

 private:
  pid_t m_pid = -1;
  bool m_reaped = false;
  fs::path m_stderr;
};

// Polls `done` every 20 ms for up to `timeout_s`.
template <typename F>
bool wait_for(F&& done, double timeout_s = 20) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

// True when `pid` is gone or a zombie (no process runs under it any more).
inline bool process_gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

// A FIXTURE Google Benchmark document: `rows` as its benchmarks, a labelled context.
inline std::string fixture_doc(const std::vector<nlohmann::json>& rows) {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const auto& r : rows) benchmarks.push_back(r);
  nlohmann::json doc = {{"context",
                         {{"date", "2026-12-02T16:00:00+00:00"},
                          {"host_name", "fixture-host"},
                          {"gpubench.suite", "fixture_fake"},
                          {"note", "FIXTURE: made-up numbers for fault tests"}}},
                        {"benchmarks", benchmarks}};
  return doc.dump(1);
}

// One FIXTURE iteration row.
inline nlohmann::json fixture_row(const std::string& name, int rep, double real_time_ns) {
  return testing::iteration_entry({.name = name,
                                   .repetition = rep,
                                   .repetitions = 3,
                                   .iterations = 10,
                                   .real_time = real_time_ns,
                                   .cpu_time = real_time_ns,
                                   .with_threads = true});
}

// FIXTURE rows under fixture_ok's benchmark name, so a run of the fake suite has results in
// common with a run of fixture_ok and `compare` has something to compare.
inline std::vector<nlohmann::json> ok_rows() {
  return {fixture_row("fixture_ok/constant/n:1", 0, 100),
          fixture_row("fixture_ok/constant/n:1", 1, 110),
          fixture_row("fixture_ok/constant/n:1", 2, 120)};
}

inline int64_t count_of(FaultDb& db, const std::string& sql) {
  return std::atoll(db.scalar(sql).c_str());
}

// A run left `running`: gpubench and its suite (fixture_fake, waiting on a file that never
// appears) killed with SIGKILL mid-suite. False when the suite never started.
inline bool kill_a_run_mid_suite(const Workspace& ws) {
  const fs::path pidfile = ws.root() / "suite.pid";
  Background run(ws, {"run", "--suite", "fixture_fake", ws.db_arg()},
                 {{"FAKE_PIDFILE", pidfile.string()},
                  {"FAKE_WAIT_FILE", (ws.root() / "never").string()}},
                 ws.root() / "killed.err");
  if (!wait_for([&] { return fs::exists(pidfile) && !read_file(pidfile).empty(); })) return false;
  kill(run.pid(), SIGKILL);
  run.wait();
  kill(std::atoi(read_file(pidfile).c_str()), SIGKILL);
  return true;
}

}  // namespace gpubench::e2e
