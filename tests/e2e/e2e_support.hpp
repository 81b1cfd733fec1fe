// Helpers for the end-to-end tests: run the REAL gpubench binary (from GPUBENCH_BIN_DIR) as a
// child process against a database in a temp directory, with the fixture suites on
// GPUBENCH_SUITE_PATH.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <algorithm>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "harness/process/process.hpp"
#include "tests/e2e/gbench_fixture.hpp"
#include "util/fs.hpp"

namespace gpubench::e2e {

namespace fs = std::filesystem;
using testing::iteration_entry;

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline fs::path gpubench_binary() {
  return fs::path(GPUBENCH_BIN_DIR) / "gpubench";
}
inline fs::path fixture_dir() {
  return fs::path(GPUBENCH_SOURCE_DIR) / "tests/e2e/fixtures";
}

// A temp directory with a copy of the fixture suites (made executable, so a checkout that lost
// the mode bits still works) and a database path inside it.
class Workspace {
 public:
  Workspace() : m_dir("gpubench-e2e") {
    fs::create_directories(suites());
    for (const auto& entry : fs::directory_iterator(fixture_dir())) {
      const fs::path target = suites() / entry.path().filename();
      fs::copy_file(entry.path(), target);
      if (entry.path().filename().string().rfind("gpubench-", 0) == 0) {
        chmod(target.c_str(), 0755);
      }
    }
  }
  fs::path root() const { return m_dir.path(); }
  fs::path suites() const { return m_dir.path() / "suites"; }
  fs::path db() const { return m_dir.path() / "results.db"; }
  std::string db_arg() const { return "--db=" + db().string(); }

  // Runs gpubench with `args`; extra environment on top of GPUBENCH_SUITE_PATH and CI=1.
  CliResult run(const std::vector<std::string>& args,
                const std::vector<std::pair<std::string, std::string>>& env = {},
                double timeout_s = 60) const {
    harness::ProcessSpec spec;
    spec.argv = {gpubench_binary().string()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = {
        {"GPUBENCH_SUITE_PATH", suites().string()}, {"CI", "1"}, {"GPUBENCH_DB", db().string()}};
    spec.env.insert(spec.env.end(), env.begin(), env.end());
    // Text output fits $COLUMNS (issue 26); these tests match whole names and reasons in it, so
    // they run at 1000 columns unless a test sets COLUMNS itself (test_e2e_reports.cpp).
    if (std::none_of(env.begin(), env.end(),
                     [](const auto& kv) { return kv.first == "COLUMNS"; })) {
      spec.env.emplace_back("COLUMNS", "1000");
    }
    spec.stdout_path = m_dir.path() / "stdout.txt";
    spec.stderr_tail_bytes = 1 << 20;
    spec.timeout_s = timeout_s;
    const harness::ProcessResult r = harness::run_process(spec);
    CliResult out;
    out.exit_code = r.exit_code.value_or(r.term_signal ? 128 + *r.term_signal : -1);
    out.out = read_file(spec.stdout_path);
    out.err = r.stderr_tail;
    return out;
  }

 private:
  TempDir m_dir;
};

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The widest line of `text` in terminal columns (UTF-8 characters, not bytes).
inline std::size_t longest_line(const std::string& text) {
  std::size_t longest = 0, cols = 0;
  for (char c : text) {
    if (c == '\n') {
      longest = std::max(longest, cols);
      cols = 0;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++cols;
    }
  }
  return std::max(longest, cols);
}

}  // namespace gpubench::e2e
