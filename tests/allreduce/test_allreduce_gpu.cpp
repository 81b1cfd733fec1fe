// GPU test (label gpu): the NCCL allreduce on every GPU count of this machine, one process driving
// all GPUs (non-blocking communicators), at one size per dtype: every case checks its result
// exactly on the device and must report a positive busbw, a clock and a window (sample states);
// ranks:1 in place is skipped with its reason (nothing to time). Skips cleanly without a usable GPU
// or without NCCL in the build.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "harness/process/process.hpp"
#include "util/fs.hpp"

namespace gpubench::allreduce_test {
namespace {

namespace fs = std::filesystem;

TEST(AllreduceGpu, NcclAllreduceIsExactAndMeasuredOnEveryGpuCount) {
  const std::string suite = (fs::path(GPUBENCH_BIN_DIR) / "gpubench-allreduce").string();
  TempDir dir("gpubench-allreduce-gpu");
  harness::ProcessSpec info;
  info.argv = {suite, "--gpubench_info"};
  info.stdout_path = dir.path() / "info.json";
  info.timeout_s = 60;
  ASSERT_TRUE(harness::run_process(info).succeeded());
  const auto notes = nlohmann::json::parse(read_file(info.stdout_path))["notes"];
  for (const auto& n : notes) {
    const std::string note = n;
    if (note.rfind("NCCL cases", 0) == 0 && (note.find("skipped:") != std::string::npos ||
                                             note.find("not built") != std::string::npos)) {
      GTEST_SKIP() << note;
    }
  }
  harness::ProcessSpec spec;
  const fs::path out = dir.path() / "out.json";
  spec.argv = {suite, "--benchmark_out=" + out.string(), "--benchmark_out_format=json",
               "--benchmark_repetitions=1",
               "--benchmark_filter=^allreduce/allreduce/dtype:.*/bytes:(1048576|1048572|1048560)/"};
  spec.env = {{"GPUBENCH_PROFILE", "quick"}};
  spec.stdout_path = dir.path() / "console.txt";
  spec.timeout_s = 300;
  const auto r = harness::run_process(spec);
  ASSERT_TRUE(r.succeeded()) << r.stderr_tail;
  const auto doc = nlohmann::json::parse(read_file(out));
  int measured = 0;
  for (const auto& b : doc["benchmarks"]) {
    const std::string name = b["name"];
    const auto msg_it = b.find("error_message");
    const std::string message =
        msg_it != b.end() && msg_it->is_string() ? msg_it->get<std::string>() : std::string();
    const auto err_it = b.find("error_occurred");
    const bool errored = err_it != b.end() && err_it->is_boolean() && err_it->get<bool>();
    if (name.find("/mode:in_place/") != std::string::npos &&
        name.find("/ranks:1/") != std::string::npos) {
      EXPECT_EQ(message.rfind("skipped: one rank in place", 0), 0u) << name << ": " << message;
      continue;
    }
    ASSERT_FALSE(errored) << name << ": " << message;
    EXPECT_GT(b["algbw_GB_per_s"].get<double>(), 0) << name;
    if (name.find("/ranks:1/") == std::string::npos) {
      EXPECT_GT(b["busbw_GB_per_s"].get<double>(), 0) << name;
    }
    // Sample states (issue 37): the probe's clock and the window the store classifies by.
    EXPECT_GT(b.value("sm_clock_MHz", 0.0), 0) << name;
    EXPECT_GT(b.value("window_end_s", 0.0), b.value("window_start_s", 0.0)) << name;
    ++measured;
  }
  EXPECT_GE(measured, 3);  // 3 dtypes out of place at least (one GPU)
  // Every GPU by slot, and each series' GPUs (suites/allreduce/sample_devices.hpp).
  const auto devices = nlohmann::json::parse(doc["context"]["gpubench.devices"].get<std::string>());
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(devices[0]["index"], 0);
  EXPECT_EQ(devices[0]["uuid"].get<std::string>().rfind("GPU-", 0), 0u);
  const auto sets =
      nlohmann::json::parse(doc["context"]["gpubench.sample_devices"].get<std::string>());
  ASSERT_FALSE(sets.empty());
  EXPECT_EQ(sets[0]["params"]["ranks"], "1");
  EXPECT_EQ(sets[0]["devices"], nlohmann::json({0}));
}

}  // namespace
}  // namespace gpubench::allreduce_test
