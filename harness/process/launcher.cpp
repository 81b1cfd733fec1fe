#include "harness/process/launcher.hpp"

#include <unistd.h>

#include <cstdlib>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

bool runs_under_launcher(const std::string& suite) {
  return suite == "allreduce";
}

std::vector<std::string> split_launcher(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote) {
    throw bad_input("--launcher '" + line + "' has an unclosed quote",
                    std::string("a ") + quote + " is never closed",
                    "close the quote, e.g. --launcher \"mpirun -np 2\"");
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) {
    throw bad_input("--launcher is empty", "it needs a launcher command",
                    "give one, e.g. --launcher \"mpirun -np 2\", or omit the option");
  }
  return words;
}

std::optional<std::string> find_program(const std::string& program, const std::string& path_list) {
  if (program.empty()) return std::nullopt;
  if (program.find('/') != std::string::npos) {
    return access(program.c_str(), X_OK) == 0 ? std::optional<std::string>(program) : std::nullopt;
  }
  for (const std::string& dir : split(path_list, ':')) {
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

LaunchCommand launch_command(const std::vector<std::string>& launcher,
                             const std::vector<std::string>& suite_argv) {
  LaunchCommand out;
  if (launcher.empty()) {
    out.argv = suite_argv;
    return out;
  }
  const char* path = std::getenv("PATH");
  const auto program = find_program(launcher.front(), path ? path : "");
  out.argv = launcher;
  if (program) {
    out.argv.front() = *program;
  } else {
    out.problem = "launcher '" + launcher.front() +
                  "' was not found on PATH (install it, e.g. Debian's openmpi-bin, or give its "
                  "full path in --launcher)";
  }
  out.argv.insert(out.argv.end(), suite_argv.begin(), suite_argv.end());
  return out;
}

}  // namespace gpubench::harness
