// End-to-end (issue 25) on real runs: the real `gpubench` runs the real gpubench-calibration
// suite 6 times, then 6 times with GPUBENCH_CALIBRATION_SCALE=1.3 (30% more work per call, a
// known effect); `history --changes` finds one change point, at run 7, naming that variable.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

TEST(E2eHistoryCalibration, ScaleStepIsOneChangePointAtRun7NamingTheVariable) {
  if (!fs::exists(fs::path(GPUBENCH_BIN_DIR) / "gpubench-calibration")) {
    GTEST_SKIP() << "gpubench-calibration not built";
  }
  Workspace ws;
  for (int i = 1; i <= 12; ++i) {
    // The suites beside gpubench are found without GPUBENCH_SUITE_PATH (harness/discovery.cpp).
    std::vector<std::pair<std::string, std::string>> env;
    if (i > 6) env.emplace_back("GPUBENCH_CALIBRATION_SCALE", "1.3");
    const CliResult r = ws.run(
        {"run", "--suite", "calibration", "--profile", "quick", "--tag", "series=cal"}, env, 120);
    ASSERT_EQ(r.exit_code, 0) << "run " << i << ": " << r.out << r.err;
  }
  const CliResult r = ws.run({"history", "tag:series=cal", "--changes"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "run 7 (")) << r.out;
  const CliResult j = ws.run({"history", "tag:series=cal", "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["changes_by_run"].size(), 1u) << r.out;
  EXPECT_EQ(doc["changes_by_run"][0]["run"], 7);
  EXPECT_EQ(doc["changes_by_run"][0]["differences"][0]["field"], "env GPUBENCH_CALIBRATION_SCALE")
      << r.out;
  EXPECT_EQ(doc["changes_by_run"][0]["differences"][0]["after"], "1.3");
  for (const auto& s : doc["series"]) {
    for (const auto& c : s["changes"]) EXPECT_EQ(c["run"], 7) << s["benchmark"] << s["metric"];
  }
}

}  // namespace
}  // namespace gpubench::e2e
