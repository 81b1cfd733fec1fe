// Issue 23 item 21: host cases never run more threads or workers than the CPUs the suite may use.
// The real suite binaries (the processes `gpubench run` starts) list their cases under `taskset`
// to one CPU: every threads:/workers: parameter must be 1. Before, the dataloader's default sweep
// went to 2 x std::thread::hardware_concurrency() whatever the affinity mask said.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <utility>

#include "tests/suites/run_program.hpp"
#include "util/fs.hpp"

namespace fs = std::filesystem;

namespace {

// stdout of `cmd` (a shell command line).
std::string output_of(const std::string& cmd, int& exit_code) {
  gpubench::testing::ChildResult r = gpubench::testing::run_shell(cmd);
  exit_code = r.exit_code;
  return std::move(r.out);
}

// The largest threads:/workers: value in `suite`'s quick case list, run on one CPU; -1 when the
// suite or taskset is missing.
int widest_case_on_one_cpu(const std::string& suite, std::string& listing) {
  const fs::path bin = fs::path(GPUBENCH_BIN_DIR) / ("gpubench-" + suite);
  int exit_code = -1;
  output_of("command -v taskset >/dev/null", exit_code);
  if (!fs::exists(bin) || exit_code != 0) return -1;
  const gpubench::TempDir data("gpubench-e2e-host-threads");  // the dataloader's data directory
  listing = output_of("GPUBENCH_PROFILE=quick GPUBENCH_DATA_DIR='" + data.path().string() +
                          "' taskset -c \"$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')\" '" +
                          bin.string() + "' --benchmark_list_tests 2>&1",
                      exit_code);
  EXPECT_EQ(exit_code, 0) << listing;
  int widest = 0;
  const std::regex param("(threads|workers):([0-9]+)");
  for (auto it = std::sregex_iterator(listing.begin(), listing.end(), param);
       it != std::sregex_iterator(); ++it) {
    widest = std::max(widest, std::stoi((*it)[2].str()));
  }
  return widest;
}

}  // namespace

TEST(HostThreads, FusionAndDataloaderCasesFitOneAllowedCpu) {
  for (const char* suite : {"fusion", "dataloader", "memory"}) {
    std::string listing;
    const int widest = widest_case_on_one_cpu(suite, listing);
    if (widest < 0) continue;  // not built here, or no taskset
    EXPECT_EQ(widest, 1) << suite << ":\n" << listing;
  }
}
