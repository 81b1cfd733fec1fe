// Every built suite's --gpubench_plan, from the real binaries: the JSON it prints, and (on a
// machine without a GPU, where the plan for 0 GPUs and the registered list describe the same
// devices) the same case names as the benchmarks it registers, so the plan cannot drift from them.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "harness/process/process.hpp"
#include "harness/run/run_plan.hpp"
#include "kernels/memory/stream.hpp"
#include "suites/common/plan.hpp"
#include "suites/common/sampled_batches.hpp"
#include "util/fs.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const char* const k_suites[] = {"allreduce", "calibration", "dataloader", "fusion",
                                "gemm",      "launch",      "memory",     "transfer"};

struct Output {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Output run_suite(const std::string& suite, const std::vector<std::string>& args,
                 const std::string& profile, const fs::path& data_dir) {
  TempDir dir("gpubench-test-plan");
  harness::ProcessSpec spec;
  spec.argv = {(fs::path(GPUBENCH_BIN_DIR) / ("gpubench-" + suite)).string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = {{"GPUBENCH_PROFILE", profile}, {"GPUBENCH_DATA_DIR", data_dir.string()}};
  spec.stdout_path = dir.path() / "stdout.txt";
  spec.stderr_tail_bytes = 1 << 16;
  spec.timeout_s = 120;
  const harness::ProcessResult r = harness::run_process(spec);
  return {r.exit_code.value_or(-1), read_file(spec.stdout_path), r.stderr_tail};
}

std::vector<std::string> built_suites() {
  std::vector<std::string> out;
  for (const char* s : k_suites) {
    if (fs::exists(fs::path(GPUBENCH_BIN_DIR) / (std::string("gpubench-") + s))) out.push_back(s);
  }
  return out;
}

TEST(SuitePlans, EverySuiteAnswersWithItsCasesAndTotal) {
  TempDir data("gpubench-test-plan-data");
  const auto suites = built_suites();
  ASSERT_FALSE(suites.empty());
  for (const auto& suite : suites) {
    for (const char* profile : {"quick", "standard"}) {
      const Output r =
          run_suite(suite, {"--gpubench_plan", "--gpubench_plan_gpus=8"}, profile, data.path());
      ASSERT_EQ(r.exit_code, 0) << suite << ": " << r.err;
      const json j = json::parse(r.out);
      EXPECT_EQ(j["suite"], suite);
      EXPECT_EQ(j["gpus"], 8);
      ASSERT_TRUE(j["cases"].is_array());
      EXPECT_FALSE(j["cases"].empty()) << suite;
      double sum = 0;
      std::set<std::string> names;
      for (const auto& c : j["cases"]) {
        const double s = c["estimated_s"].get<double>();
        EXPECT_GT(s, 0) << c["name"];
        sum += s;
        EXPECT_TRUE(names.insert(c["name"].get<std::string>()).second) << c["name"];
      }
      EXPECT_GE(j["estimated_s"].get<double>(), sum) << suite;
      EXPECT_NE(j["assumptions"].get<std::string>().find("model assumptions, not measurements"),
                std::string::npos)
          << suite;
    }
  }
}

TEST(SuitePlans, GpuCountScalesPerDeviceCases) {
  TempDir data("gpubench-test-plan-data");
  if (!fs::exists(fs::path(GPUBENCH_BIN_DIR) / "gpubench-gemm")) GTEST_SKIP() << "no gemm suite";
  const auto count = [&](int gpus) {
    const Output r =
        run_suite("gemm", {"--gpubench_plan", "--gpubench_plan_gpus=" + std::to_string(gpus)},
                  "quick", data.path());
    return json::parse(r.out)["cases"].size();
  };
  EXPECT_EQ(count(8), 8 * count(1));
}

// Google Benchmark's suffixes (/iterations:N, /manual_time, /real_time, /repeats:N) dropped.
std::string registered_name(const std::string& listed) {
  static const std::regex suffix(
      "(/(iterations:[0-9]+|manual_time|real_time|repeats:[0-9]+|"
      "min_time:[^/]+))+$");
  return std::regex_replace(listed, suffix, "");
}

TEST(SuitePlans, PlanForThisMachineListsTheRegisteredBenchmarks) {
  if (harness::detect_gpu_count().first != 0) {
    GTEST_SKIP() << "a GPU is present: the registered list is for its devices";
  }
  TempDir data("gpubench-test-plan-data");
  for (const auto& suite : built_suites()) {
    for (const char* profile : {"quick", "standard"}) {
      const Output plan =
          run_suite(suite, {"--gpubench_plan", "--gpubench_plan_gpus=0"}, profile, data.path());
      ASSERT_EQ(plan.exit_code, 0) << plan.err;
      const json plan_json = json::parse(plan.out);
      std::vector<std::string> planned;
      for (const auto& c : plan_json["cases"]) planned.push_back(c["name"].get<std::string>());
      const Output list = run_suite(suite, {"--benchmark_list_tests=true"}, profile, data.path());
      ASSERT_EQ(list.exit_code, 0) << list.err;
      std::vector<std::string> listed;
      std::string line;
      for (char ch : list.out) {
        if (ch != '\n') {
          line += ch;
        } else if (!line.empty()) {
          listed.push_back(registered_name(line));
          line.clear();
        }
      }
      EXPECT_EQ(planned, listed) << suite << " " << profile;
    }
  }
}

// Issue 36: the memory plan times a device case whose arrays straddle the reference L2 (50 MiB)
// as the suite measures it, (L2 flush, pass) pairs, and the DRAM-sized ones as hot batches.
TEST(SuitePlans, MemoryPlansStraddlingArraysAsFlushedPairs) {
  const fs::path bin = fs::path(GPUBENCH_BIN_DIR) / "gpubench-memory";
  if (!fs::exists(bin)) GTEST_SKIP() << "no memory suite";
  TempDir data("gpubench-test-plan-data");
  const Output r =
      run_suite("memory", {"--gpubench_plan", "--gpubench_plan_gpus=1"}, "standard", data.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json plan = json::parse(r.out);
  std::map<std::string, double> estimated_s;
  for (const auto& c : plan["cases"])
    estimated_s[c["name"].get<std::string>()] = c["estimated_s"].get<double>();
  if (!estimated_s.count("memory/device_triad/array_bytes:16777216/device:0"))
    GTEST_SKIP() << "built without the device cases";
  const suite::ModelRates& rates = suite::reference_rates();
  const int reps = suite::repetitions_for(suite::Profile::standard);
  // memory_plan.cpp's model around the procedure: the arrays' allocation and initialisation, one
  // validation.
  const auto expected = [&](std::uint64_t array_bytes, bool cold) {
    namespace km = kernels::memory;
    const std::uint64_t pass_bytes = km::stream_bytes_per_pass(km::StreamOp::triad, array_bytes);
    const double pass_s =
        suite::transfer_seconds(static_cast<double>(pass_bytes), rates.hbm_bytes_per_s) +
        rates.kernel_launch_s;
    suite::CaseCost cost =
        cold ? suite::planned_flushed_cost(pass_s, 1, 400, suite::Profile::standard, rates)
             : suite::planned_sampling_cost(
                   pass_s, 400, suite::sampling_policy(suite::Profile::standard), rates);
    cost.setup_s =
        3 * rates.per_allocation_s +
        suite::transfer_seconds(3.0 * static_cast<double>(array_bytes), rates.hbm_bytes_per_s);
    cost.validation_s = rates.validation_s;
    return suite::case_seconds(cost, reps, rates);
  };
  // 16 MiB arrays: a 48 MiB triad working set straddles 50 MiB of L2: cold.
  EXPECT_NEAR(estimated_s["memory/device_triad/array_bytes:16777216/device:0"],
              expected(16ull << 20, true), 1e-9);
  EXPECT_GT(std::abs(expected(16ull << 20, true) - expected(16ull << 20, false)), 1e-6);
  // 256 MiB arrays: 768 MiB is DRAM: hot.
  EXPECT_NEAR(estimated_s["memory/device_triad/array_bytes:268435456/device:0"],
              expected(256ull << 20, false), 1e-9);
  EXPECT_NE(plan["assumptions"].get<std::string>().find("(L2 flush, pass) pairs"),
            std::string::npos);
}

}  // namespace
}  // namespace gpubench

// disk_bytes (issue 23 item 19): the dataloader says what it writes before its cases; a plan
// without the key (a suite built by an older gpubench) says nothing, which is not "0 bytes".
TEST(SuitePlans, DiskBytesIsReadWhenGivenAndUnknownWhenNot) {
  using gpubench::harness::parse_suite_plan;
  EXPECT_FALSE(parse_suite_plan(R"({"suite":"x","cases":[],"estimated_s":1})", "").disk_bytes);
  const auto given =
      parse_suite_plan(R"({"suite":"x","cases":[],"estimated_s":1,"disk_bytes":5})", "");
  ASSERT_TRUE(given.disk_bytes);
  EXPECT_EQ(*given.disk_bytes, 5u);
}
