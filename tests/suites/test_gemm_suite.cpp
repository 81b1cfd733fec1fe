// Runs the real gpubench-gemm binary. Without a usable GPU every case must be reported skipped
// with the reason (the driver's own message); with one, the GPU tests (tests/gpu) cover it.
#include <gtest/gtest.h>

#include <regex>

#include <sys/wait.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/suites/run_program.hpp"
#include "util/sample_state.hpp"

namespace {

using Result = gpubench::testing::ChildResult;

// gpubench-gemm with `args` (shell words), stderr into the output.
Result run(const std::string& args) {
  return gpubench::testing::run_shell(std::string(GPUBENCH_BIN_DIR) + "/gpubench-gemm " + args +
                                      " 2>&1");
}

nlohmann::json info() {
  const Result r = run("--gpubench_info");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return nlohmann::json::parse(r.out);
}

TEST(GemmSuite, InfoDeclaresMetrics) {
  const auto j = info();
  EXPECT_EQ(j["suite"], "gemm");
  std::set<std::string> names;
  for (const auto& m : j["metrics"]) names.insert(m["name"].get<std::string>());
  for (const char* want : {"TFLOP_per_s", "pct_of_peak", "time_per_call_us", "samples",
                           "samples_off_clock", "noise_pct"}) {
    EXPECT_TRUE(names.count(want)) << want;
  }
  // The sampling counters describe the measurement (issue 36) and are never compared.
  for (const auto& m : j["metrics"]) {
    const std::string n = m["name"];
    if (n == "samples" || n == "samples_off_clock" || n == "noise_pct") {
      EXPECT_EQ(m["role"], "parameter") << n;
    }
  }
  // Sample state is not a metric (issue 11: a declared "throttled" metric never got values and
  // an undeclared-case "sm_clock_MHz" clock became a metric compare could call a regression).
  for (const std::string& n : names) {
    std::string lower = n;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (const auto& k : gpubench::sample_state::k_keys) {
      std::string key(k.name);
      for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      EXPECT_NE(lower, key) << "metric '" << n << "' is the state key '" << k.name << "'";
    }
    // samples_off_clock counts samples; it is no clock value.
    if (n != "samples_off_clock") {
      EXPECT_EQ(lower.find("clock"), std::string::npos) << n;
    }
  }
}

TEST(GemmSuite, WithoutDeviceEveryCaseIsSkippedWithTheReason) {
  const auto j = info();
  if (j["runnable"].get<bool>())
    GTEST_SKIP() << "a CUDA device is present; tests/gpu cover the real run";
  const std::string reason = j["reason"];
  // The cause is named (issue 9): no driver, an old driver, or no visible device.
  EXPECT_TRUE(std::regex_search(
      reason,
      std::regex("(no NVIDIA driver|no usable NVIDIA driver|NVIDIA driver older|no CUDA device)")))
      << reason;
  const Result r = run("--benchmark_format=json --benchmark_out_format=json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto doc = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  ASSERT_TRUE(doc.contains("benchmarks"));
  ASSERT_GT(doc["benchmarks"].size(), 20u);
  for (const auto& b : doc["benchmarks"]) {
    const std::string name = b["name"];
    EXPECT_EQ(name.rfind("gemm/", 0), 0u) << name;
    ASSERT_TRUE(b.value("error_occurred", false)) << name;
    const std::string msg = b["error_message"];
    EXPECT_EQ(msg, "skipped: " + reason) << name;
  }
}

TEST(GemmSuite, BadDeviceValueIsUsageError) {
  const Result r = run("--device nonsense");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--device 'nonsense'"), std::string::npos) << r.out;
}

TEST(GemmSuite, OutOfRangeDeviceIsUsageErrorWhenDevicesExist) {
  const auto j = info();
  if (!j["runnable"].get<bool>()) GTEST_SKIP() << "no CUDA device: an index cannot be out of range";
  const Result r = run("--device 4096");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("out of range"), std::string::npos) << r.out;
}

}  // namespace

namespace {

// `gpubench run --filter` passes one regex to every suite, so a filter that matches nothing in gemm
// must stay a clean, empty run (Google Benchmark's message, exit 0), not a failure.
TEST(GemmSuite, FilterMatchingNothingIsAnEmptyRun) {
  const Result r = run("--benchmark_filter=dtype:fp128");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("Failed to match any benchmarks"), std::string::npos) << r.out;
  const Result ok = run("--benchmark_filter=dtype:bf16/m:1024 --benchmark_list_tests");
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(ok.out.find("gemm/cublaslt/dtype:bf16/m:1024"), std::string::npos) << ok.out;
}

}  // namespace

namespace {

// The plan of a cold case (issue 36): per repetition at least its 256 flushes (50 us each at the
// reference rates), since every sample is one call right after its own L2 flush.
TEST(GemmSuite, PlanCountsAFlushPerColdSample) {
  const auto estimate = [](int repetitions) {
    const Result r = gpubench::testing::run_shell(
        "GPUBENCH_PROFILE=quick " + std::string(GPUBENCH_BIN_DIR) +
        "/gpubench-gemm --gpubench_plan --gpubench_plan_gpus=1 --gpubench_plan_repetitions=" +
        std::to_string(repetitions) + " 2>&1");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_NE(j["assumptions"].get<std::string>().find("256 (L2 flush, call) pairs"),
              std::string::npos)
        << j["assumptions"];
    for (const auto& c : j["cases"]) {
      if (c["name"] ==
          "gemm/cublaslt/dtype:bf16/m:1024/n:1024/k:1024/layout:tn/cache:cold/device:0")
        return c["estimated_s"].get<double>();
    }
    ADD_FAILURE() << "no cold case in the quick plan";
    return 0.0;
  };
  const double per_repetition_s = estimate(2) - estimate(1);
  EXPECT_GE(per_repetition_s, 256 * 50e-6);
}

}  // namespace
