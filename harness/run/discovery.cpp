#include "harness/run/discovery.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>

#include "harness/process/process.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/suggest.hpp"

namespace fs = std::filesystem;

namespace gpubench::harness {

namespace {
constexpr std::string_view k_prefix = "gpubench-";

fs::path self_directory() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

std::string first_line(const std::string& text) {
  const std::string t(trim(text));
  const auto nl = t.find('\n');
  return nl == std::string::npos ? t : t.substr(0, nl);
}
}  // namespace

std::vector<fs::path> suite_search_dirs(const fs::path& self_dir) {
  std::vector<fs::path> dirs;
  if (const char* path = std::getenv("GPUBENCH_SUITE_PATH")) {
    for (const std::string& d : split(path, ':')) {
      if (!d.empty()) dirs.emplace_back(d);
    }
  }
  const fs::path self = self_dir.empty() ? self_directory() : self_dir;
  if (!self.empty()) dirs.push_back(self);
  return dirs;
}

std::vector<SuiteExecutable> discover_suites(const std::vector<fs::path>& dirs) {
  std::map<std::string, fs::path> found;
  for (const fs::path& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string file = entry.path().filename().string();
      if (file.size() <= k_prefix.size() || file.rfind(k_prefix, 0) != 0) continue;
      std::error_code ec2;
      if (!entry.is_regular_file(ec2)) continue;
      if (access(entry.path().c_str(), X_OK) != 0) continue;
      const std::string name = file.substr(k_prefix.size());
      found.emplace(name, fs::absolute(entry.path()));  // emplace keeps the first hit
    }
  }
  std::vector<SuiteExecutable> out;
  for (auto& [name, path] : found) out.push_back({name, path});
  return out;
}

std::vector<SuiteExecutable> discover_suites() {
  return discover_suites(suite_search_dirs());
}

std::vector<SuiteExecutable> select_suites(const std::vector<SuiteExecutable>& found,
                                           const std::vector<std::string>& names) {
  if (names.empty()) return found;
  std::vector<SuiteExecutable> out;
  for (const std::string& name : names) {
    auto it = std::find_if(found.begin(), found.end(),
                           [&](const SuiteExecutable& s) { return s.name == name; });
    if (it == found.end()) {
      std::vector<std::string> known;
      for (const auto& s : found) known.push_back(s.name);
      const std::string hint = did_you_mean(name, known, "--suite ");  // issue 26
      throw bad_input("unknown suite '" + name + "'",
                      known.empty() ? "no suite executables (gpubench-<suite>) were found"
                                    : "known suites: " + join(known, ", "),
                      (hint.empty() ? std::string() : hint + " ") +
                          "pick one of those with --suite, or add the directory holding "
                          "gpubench-" +
                          name + " to GPUBENCH_SUITE_PATH");
    }
    if (std::none_of(out.begin(), out.end(), [&](const auto& s) { return s.name == name; })) {
      out.push_back(*it);
    }
  }
  return out;
}

namespace {

// Runs `suite` with `flag` under the profile, its stdout into `out`.
ProcessResult ask_suite(const SuiteExecutable& suite, const char* flag, const std::string& profile,
                        const fs::path& out, double timeout_s) {
  ProcessSpec spec;
  spec.argv = {suite.path.string(), flag};
  spec.env = {{"GPUBENCH_PROFILE", profile}};
  spec.stdout_path = out;
  spec.timeout_s = timeout_s;
  spec.kill_grace_s = 2;
  return run_process(spec);
}

}  // namespace

SuiteDescription ask_suite_info(const SuiteExecutable& suite, const std::string& profile,
                                double timeout_s) {
  SuiteDescription d;
  d.suite = suite;
  TempDir tmp("gpubench-describe");
  const fs::path info_json = tmp.path() / "info.json";
  const ProcessResult r = ask_suite(suite, "--gpubench_info", profile, info_json, timeout_s);
  if (!r.succeeded()) {
    d.reason =
        r.spawn_error.empty()
            ? "does not answer --gpubench_info (" +
                  (r.timed_out     ? std::string("timed out")
                   : r.term_signal ? "killed by " + signal_name(*r.term_signal)
                                   : "exit code " + std::to_string(r.exit_code.value_or(-1))) +
                  (r.stderr_tail.empty() ? "" : ": " + first_line(r.stderr_tail)) + ")"
            : r.spawn_error;
  } else {
    try {
      const auto j = nlohmann::json::parse(read_file(info_json));
      d.answered = true;
      d.description = j.value("description", "");
      d.runnable = j.value("runnable", false);
      d.reason = j.value("reason", "");
      if (j.contains("notes") && j["notes"].is_array()) {
        for (const auto& n : j["notes"]) {
          if (n.is_string()) d.notes.push_back(n.get<std::string>());
        }
      }
      if (j.contains("metrics")) d.metrics_json = j["metrics"].dump();
      if (const auto mpi = j.find("mpi"); mpi != j.end() && mpi->is_boolean()) {
        d.mpi = mpi->get<bool>();
      }
    } catch (const std::exception&) {
      d.reason = "answered --gpubench_info with something that is not JSON";
    }
  }
  return d;
}

SuiteDescription describe_suite(const SuiteExecutable& suite, const std::string& profile,
                                double timeout_s) {
  SuiteDescription d = ask_suite_info(suite, profile, timeout_s);
  TempDir tmp("gpubench-describe");
  const fs::path list_txt = tmp.path() / "list.txt";
  const ProcessResult lr =
      ask_suite(suite, "--benchmark_list_tests=true", profile, list_txt, timeout_s);
  if (lr.succeeded()) {
    try {
      for (const std::string& line : split(read_file(list_txt), '\n')) {
        const std::string name(trim(line));
        if (!name.empty()) d.benchmarks.push_back(name);
      }
    } catch (const Error&) {
    }
  } else if (d.answered && d.reason.empty()) {
    d.reason = "cannot list its benchmarks (--benchmark_list_tests failed)";
  }
  return d;
}

std::string launcher_refusal(const SuiteDescription& suite, const std::string& launcher_text) {
  if (!suite.mpi.has_value() || *suite.mpi) return "";
  return suite.suite.path.filename().string() + " (" + suite.suite.path.string() +
         ") was built without MPI, so under --launcher '" + launcher_text +
         "' every task the launcher starts would be a world of one rank driving every GPU of its "
         "node, all writing the same results";
}

}  // namespace gpubench::harness
