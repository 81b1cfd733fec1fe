// `gpubench run --plan` through the real CLI and the real suites: the figures the issue asks for
// (8 GPUs: quick <= 600 s, standard <= 2700 s), the JSON interface other tools read, and that a
// plan stores nothing (no database file appears).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "harness/process/process.hpp"
#include "util/fs.hpp"

namespace gpubench {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct Output {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// The real gpubench, finding the real suites next to it (GPUBENCH_SUITE_PATH empty).
Output run_gpubench(const std::vector<std::string>& args, const fs::path& dir) {
  harness::ProcessSpec spec;
  spec.argv = {(fs::path(GPUBENCH_BIN_DIR) / "gpubench").string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = {
      {"GPUBENCH_SUITE_PATH", ""}, {"CI", "1"}, {"GPUBENCH_DATA_DIR", (dir / "data").string()}};
  spec.stdout_path = dir / "stdout.txt";
  spec.stderr_tail_bytes = 1 << 16;
  spec.timeout_s = 300;
  const harness::ProcessResult r = harness::run_process(spec);
  return {r.exit_code.value_or(-1), read_file(spec.stdout_path), r.stderr_tail};
}

json plan_of(const std::string& profile, const fs::path& dir, const fs::path& db) {
  const Output r = run_gpubench({"run", "--plan", "--gpus", "8", "--profile", profile, "--format",
                                 "json", "--db", db.string()},
                                dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

TEST(E2ePlan, EightGpuQuickAndStandardFitTheirBudgetsAndStoreNothing) {
  TempDir dir("gpubench-e2e-plan");
  fs::create_directories(dir.path() / "data");
  const fs::path db = dir.path() / "plan.db";
  for (const auto& [profile, budget_s] :
       std::vector<std::pair<std::string, double>>{{"quick", 600}, {"standard", 2700}}) {
    const json j = plan_of(profile, dir.path(), db);
    std::set<std::string> keys;
    for (const auto& [k, v] : j.items()) keys.insert(k);
    EXPECT_EQ(keys,
              (std::set<std::string>{"profile", "executions", "repetitions", "gpus", "gpus_source",
                                     "suites", "settle", "total_cases", "total_estimated_s"}));
    // Issue 35: the profile's executions, its repetitions spread over them.
    EXPECT_EQ(j["executions"], profile == "quick" ? 3 : 5);
    EXPECT_EQ(j["repetitions"], 1);
    EXPECT_EQ(j["profile"], profile);
    EXPECT_EQ(j["gpus"], 8);
    EXPECT_EQ(j["gpus_source"], "flag");
    ASSERT_FALSE(j["suites"].empty());
    double sum = 0;
    int cases = 0;
    for (const auto& s : j["suites"]) {
      std::set<std::string> suite_keys;
      for (const auto& [k, v] : s.items()) suite_keys.insert(k);
      EXPECT_EQ(suite_keys, (std::set<std::string>{"suite", "kind", "cases", "estimated_s",
                                                   "executions", "execution_s", "process_start_s",
                                                   "reused_s", "assumptions"}));
      // Every execution counted, less what the later ones reuse from the first; a cheap suite
      // gets more than the profile's, as many as fit in 10 s, up to 10.
      const double e = s["executions"].get<double>();
      EXPECT_GE(e, j["executions"].get<double>());
      EXPECT_LE(e, std::max(10.0, j["executions"].get<double>()));
      if (e > j["executions"].get<double>()) {
        EXPECT_LE(e * s["execution_s"].get<double>(), 10.0 + 1e-6) << s["suite"];
      }
      EXPECT_NEAR(s["estimated_s"].get<double>(),
                  e * s["execution_s"].get<double>() - (e - 1) * s["reused_s"].get<double>(),
                  0.01)
          << s["suite"];
      sum += s["estimated_s"].get<double>();
      cases += s["cases"].get<int>();
    }
    // Issue 36: the settle steps after gemm are part of the total (0 s when the host suites
    // between gemm and the next device suite cover the bound).
    const double settle_s = j["settle"]["estimated_s"].get<double>();
    EXPECT_GE(settle_s, 0);
    EXPECT_LE(settle_s,
              j["settle"]["settles"].get<double>() * j["settle"]["bound_s"].get<double>());
    EXPECT_NEAR(j["total_estimated_s"].get<double>(), sum + settle_s, 0.01 * j["suites"].size());
    EXPECT_EQ(j["total_cases"].get<int>(), cases);
    EXPECT_GT(j["total_estimated_s"].get<double>(), 0);
    EXPECT_LE(j["total_estimated_s"].get<double>(), budget_s) << profile;
  }
  EXPECT_FALSE(fs::exists(db)) << "--plan created the database";
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().string().find("plan.db"), std::string::npos) << entry.path();
  }
}

TEST(E2ePlan, ThisMachineSaysWhereTheGpuCountCameFrom) {
  TempDir dir("gpubench-e2e-plan");
  const Output r = run_gpubench(
      {"run", "--plan", "--suite", "calibration", "--db", (dir.path() / "x.db").string()},
      dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(this machine: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("calibration"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir.path() / "x.db"));
  const Output j = run_gpubench({"run", "--plan", "--suite", "calibration", "--format", "json",
                                 "--db", (dir.path() / "x.db").string()},
                                dir.path());
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_EQ(json::parse(j.out)["gpus_source"], "detected");
}

TEST(E2ePlan, GpusAndFormatNeedPlan) {
  TempDir dir("gpubench-e2e-plan");
  const Output r =
      run_gpubench({"run", "--gpus", "8", "--db", (dir.path() / "x.db").string()}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--gpus needs --plan"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "x.db"));
}

}  // namespace
}  // namespace gpubench
