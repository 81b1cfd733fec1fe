// A program of the build (GPUBENCH_BIN_DIR) run as a real child process through the shell, for
// the suite tests: its exit code, stdout and stderr. Shared by tests/suites, tests/fusion and
// tests/compare.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "util/fs.hpp"

namespace gpubench::testing {

struct ChildResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// Runs `command` through the shell: its exit code (128 + the signal when killed) and stdout
// (with whatever the command redirects into it, e.g. "2>&1").
inline ChildResult run_shell(const std::string& command) {
  ChildResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buf[4096];
  size_t got = 0;
  while ((got = fread(buf, 1, sizeof buf, pipe)) > 0) result.out.append(buf, got);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// Runs `program` from the build's bin directory with `env` (NAME=value) added to the environment.
inline ChildResult run_program(const std::string& program, const std::vector<std::string>& args,
                               const std::vector<std::string>& env = {}) {
  TempDir dir("gpubench-test-program");
  const auto err_path = dir.path() / "stderr.txt";
  std::string cmd = "env";
  for (const auto& e : env) cmd += " " + shell_quote(e);
  cmd += " " + shell_quote((std::filesystem::path(GPUBENCH_BIN_DIR) / program).string());
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " 2>" + shell_quote(err_path.string());
  ChildResult result = run_shell(cmd);
  if (std::filesystem::exists(err_path)) result.err = read_file(err_path);
  return result;
}

}  // namespace gpubench::testing
