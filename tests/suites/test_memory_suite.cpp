// End-to-end checks of gpubench-memory: the real binary runs as a child process.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/suites/run_program.hpp"

namespace {

using gpubench::testing::ChildResult;

ChildResult run_suite(const std::string& program, const std::vector<std::string>& args,
                      const std::vector<std::string>& env = {}) {
  return gpubench::testing::run_program(program, args, env);
}

std::vector<std::string> list_benchmarks(const std::string& profile) {
  const ChildResult r = run_suite("gpubench-memory", {"--benchmark_list_tests=true"},
                                  {"GPUBENCH_PROFILE=" + profile});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> names;
  std::string line;
  for (char ch : r.out) {
    if (ch == '\n') {
      if (!line.empty()) names.push_back(line);
      line.clear();
    } else {
      line += ch;
    }
  }
  return names;
}

// <suite>/<case>/<k>:<v>/... once Google Benchmark's own "/manual_time" suffix is set aside (its
// "/iterations:N" is already k:v).
const std::regex k_host_name(
    R"(memory/host_(copy|scale|add|triad|memcpy)/array_bytes:[0-9]+/threads:[0-9]+/iterations:[0-9]+/manual_time)");
const std::regex k_device_name(
    R"(memory/device_(copy|scale|add|triad)/array_bytes:[0-9]+/device:[0-9]+/iterations:[0-9]+/manual_time)");
const std::regex k_generic_name(R"([a-z]+/[a-z_]+(/[a-z_]+:[0-9A-Za-z_.]+)+)");

TEST(MemorySuite, EveryNameParsesInEveryProfile) {
  for (const std::string profile : {"quick", "standard", "full"}) {
    const auto names = list_benchmarks(profile);
    ASSERT_FALSE(names.empty()) << profile;
    int host = 0;
    for (const auto& name : names) {
      const bool is_host = std::regex_match(name, k_host_name);
      const bool is_device = std::regex_match(name, k_device_name);
      EXPECT_TRUE(is_host || is_device) << name;
      const std::string stem = name.substr(0, name.rfind("/manual_time"));
      EXPECT_TRUE(std::regex_match(stem, k_generic_name)) << stem;
      host += is_host ? 1 : 0;
    }
    // 5 host cases x sizes x thread counts, each name once.
    EXPECT_EQ(host % 5, 0) << profile;
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << profile;
  }
}

TEST(MemorySuite, HostTriadRunsAndReportsValidatedBandwidth) {
  // A small in-cache case of the full profile: a quarter of a second of work at most.
  const ChildResult r =
      run_suite("gpubench-memory",
                {"--benchmark_filter=^memory/host_(triad|memcpy)/array_bytes:1048576/threads:1/",
                 "--benchmark_format=json"},
                {"GPUBENCH_PROFILE=full"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_TRUE(doc.contains("context"));
  const auto& context = doc["context"];
  ASSERT_TRUE(context.contains("gpubench.metrics"));
  const auto metrics = nlohmann::json::parse(context["gpubench.metrics"].get<std::string>());
  ASSERT_EQ(metrics.size(), 6u);
  EXPECT_EQ(metrics[0]["name"], "GB_per_s");
  EXPECT_EQ(metrics[1]["name"], "pct_of_peak");
  EXPECT_EQ(metrics[1]["direction"], "higher");
  EXPECT_EQ(metrics[0]["unit"], "GB/s");
  EXPECT_EQ(metrics[0]["direction"], "higher");
  // The device cases' description of their measurement: parameters, never compared.
  std::set<std::string> parameters;
  for (const auto& m : metrics)
    if (m["role"] == "parameter") parameters.insert(m["name"].get<std::string>());
  EXPECT_EQ(parameters,
            (std::set<std::string>{"samples", "samples_off_clock", "noise_pct", "l2_resident"}));
  EXPECT_EQ(context["gpubench.suite"], "memory");
  ASSERT_EQ(doc["benchmarks"].size(), 2u);
  for (const auto& b : doc["benchmarks"]) {
    EXPECT_FALSE(b.contains("error_occurred") && b["error_occurred"].get<bool>()) << b.dump();
    ASSERT_TRUE(b.contains("GB_per_s")) << b.dump();
    // Real, positive and below anything a 2024 CPU core can do from L2 (~1 TB/s).
    EXPECT_GT(b["GB_per_s"].get<double>(), 0.1);
    EXPECT_LT(b["GB_per_s"].get<double>(), 1000.0);
    EXPECT_EQ(b["iterations"].get<long long>(), 512);
  }
}

TEST(MemorySuite, DeviceCasesSkipWithTheReasonOrRunValidated) {
  const ChildResult r = run_suite(
      "gpubench-memory",
      {"--benchmark_filter=^memory/device_triad/array_bytes:4194304/", "--benchmark_format=json"},
      {"GPUBENCH_PROFILE=full"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
#if GPUBENCH_TEST_HAVE_CUDA
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_GE(doc["benchmarks"].size(), 1u);
  for (const auto& b : doc["benchmarks"]) {
    if (b.contains("error_occurred") && b["error_occurred"].get<bool>()) {
      // No device here: a skip naming the cause, never a failure.
      const std::string message = b["error_message"].get<std::string>();
      EXPECT_EQ(message.rfind("skipped: ", 0), 0u) << message;
      EXPECT_TRUE(std::regex_search(
          message,
          std::regex(
              "(no NVIDIA driver|no usable NVIDIA driver|NVIDIA driver older|no CUDA device)")))
          << message;
    } else {
      ASSERT_TRUE(b.contains("GB_per_s")) << b.dump();
      EXPECT_GT(b["GB_per_s"].get<double>(), 1.0);
      // One iteration per repetition holding the sampled measurement, which the label and the
      // counters describe; 3 arrays of 4 MiB are no DRAM figure on a GPU of >= 24 MiB of L2.
      EXPECT_EQ(b["iterations"].get<long long>(), 1);
      EXPECT_GE(b["samples"].get<double>(), 1.0);
      const std::string label = b["label"].get<std::string>();
      EXPECT_NE(label.find("stop="), std::string::npos) << label;
      if (b["l2_resident"].get<double>() == 1.0) {
        EXPECT_FALSE(b.contains("pct_of_peak")) << b.dump();
        EXPECT_EQ(label.rfind("l2_resident", 0), 0u) << label;
      }
    }
  }
#else
  // Built without CUDA: no device case exists, so nothing matches and nothing runs.
  EXPECT_EQ(r.out.find("memory/device_"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("Failed to match any benchmarks"), std::string::npos) << r.err;
#endif
}

#if GPUBENCH_TEST_HAVE_CUDA
TEST(MemorySuite, BadDeviceRequestExitsTwo) {
  const ChildResult r = run_suite("gpubench-memory", {"--device", "first"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gpubench-memory: error: "), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}
#endif

TEST(MemorySuite, InfoDeclaresTheMetric) {
  const ChildResult r = run_suite("gpubench-memory", {"--gpubench_info"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto info = nlohmann::json::parse(r.out);
  EXPECT_EQ(info["suite"], "memory");
  EXPECT_TRUE(info["runnable"].get<bool>());
  EXPECT_EQ(info["metrics"][0]["name"], "GB_per_s");
}

}  // namespace
