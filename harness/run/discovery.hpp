// Finding suite executables and asking them what they are.
//
// A suite is an executable file named `gpubench-<suite>`. Search order (first hit per name wins):
//   1. each directory of GPUBENCH_SUITE_PATH (colon-separated), in order: lets a user or a test
//      add suites or override a built-in one;
//   2. the directory of the running gpubench executable (build/bin after a build).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::harness {

struct SuiteExecutable {
  std::string name;            // "memory"
  std::filesystem::path path;  // absolute path to gpubench-memory
};

// Directories in search order (see above). `self_dir` empty: the running executable's directory.
std::vector<std::filesystem::path> suite_search_dirs(const std::filesystem::path& self_dir = {});
// Suites found in `dirs`, sorted by name.
std::vector<SuiteExecutable> discover_suites(const std::vector<std::filesystem::path>& dirs);
std::vector<SuiteExecutable> discover_suites();
// Picks `names` (in the order given) from `found`; empty `names` selects all. Throws
// Error(bad_input) naming an unknown suite and listing the known ones.
std::vector<SuiteExecutable> select_suites(const std::vector<SuiteExecutable>& found,
                                           const std::vector<std::string>& names);

// What `gpubench-<suite> --gpubench_info` and `--benchmark_list_tests=true` say.
struct SuiteDescription {
  SuiteExecutable suite;
  bool answered = false;  // gave valid --gpubench_info JSON
  std::string description;
  bool runnable = false;
  std::string reason;  // why it cannot run (or why we could not ask it)
  std::vector<std::string> notes;
  std::string metrics_json = "[]";  // the suite's metric declarations (JSON array text)
  // A multi-rank suite's "mpi": whether it was built with MPI; unset when it does not say (a
  // one-process suite, or one built before it said).
  std::optional<bool> mpi;
  std::vector<std::string> benchmarks;
};
SuiteDescription describe_suite(const SuiteExecutable& suite, const std::string& profile,
                                double timeout_s = 60);
// Only what --gpubench_info says (no benchmark list): one process start.
SuiteDescription ask_suite_info(const SuiteExecutable& suite, const std::string& profile,
                                double timeout_s = 60);

// Why `suite` cannot run under the launcher `launcher_text` (`gpubench run --launcher`), or ""
// when it can: a suite that says it was built without MPI would run as one world of one rank per
// task the launcher starts, each driving every GPU of its node and writing the same results.
std::string launcher_refusal(const SuiteDescription& suite, const std::string& launcher_text);

}  // namespace gpubench::harness
