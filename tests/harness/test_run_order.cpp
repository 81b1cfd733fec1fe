// The order suites run in (harness/run/run_order.hpp) and the run plan's order and settle time
// (harness/run/run_plan.hpp), on made-up plans: no suite process runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "harness/run/run_order.hpp"
#include "harness/run/run_plan.hpp"

namespace gpubench::harness {
namespace {

std::vector<SuiteExecutable> named(const std::vector<std::string>& names) {
  std::vector<SuiteExecutable> out;
  for (const auto& n : names) out.push_back({n, "/bin/gpubench-" + n});
  return out;
}

std::vector<std::string> names_of(const std::vector<SuiteExecutable>& suites) {
  std::vector<std::string> out;
  for (const auto& s : suites) out.push_back(s.name);
  return out;
}

TEST(RunOrder, DeviceSuitesFirstGemmLastAmongThemHostSuitesAfter) {
  // Discovery's name order, as every run had before issue 36: memory right after gemm.
  const auto ordered = order_suites(named({"allreduce", "calibration", "dataloader", "fusion",
                                           "gemm", "launch", "memory", "transfer"}));
  EXPECT_EQ(names_of(ordered),
            (std::vector<std::string>{"allreduce", "fusion", "launch", "memory", "transfer", "gemm",
                                      "calibration", "dataloader"}));
  // The executables travel with their names.
  EXPECT_EQ(ordered[5].path, "/bin/gpubench-gemm");
}

TEST(RunOrder, KindsMoveAndWithinAKindTheGivenOrderStays) {
  const std::vector<std::string> expected = {"memory", "gemm", "calibration"};
  EXPECT_EQ(names_of(order_suites(named({"gemm", "memory", "calibration"}))), expected);
  EXPECT_EQ(names_of(order_suites(named({"calibration", "gemm", "memory"}))), expected);
  EXPECT_EQ(order_suite_names({"calibration", "memory", "gemm"}), expected);
  // --suite transfer,memory keeps transfer first; the host suites keep theirs too.
  EXPECT_EQ(order_suite_names({"dataloader", "transfer", "calibration", "gemm", "memory"}),
            (std::vector<std::string>{"transfer", "memory", "gemm", "dataloader", "calibration"}));
}

TEST(RunOrder, KindsComeFromTheTableAndAnUnknownSuiteIsADeviceSuite) {
  EXPECT_EQ(suite_kind("gemm"), SuiteKind::power_heavy);
  EXPECT_EQ(suite_kind("fusion"), SuiteKind::device);  // mixed: gemm_bias_gelu is a fifth of it
  EXPECT_EQ(suite_kind("memory"), SuiteKind::device);
  EXPECT_EQ(suite_kind("calibration"), SuiteKind::host);
  EXPECT_EQ(suite_kind("dataloader"), SuiteKind::host);
  EXPECT_EQ(suite_kind("my_kernels"), SuiteKind::device);
  EXPECT_EQ(names_of(order_suites(named({"zeta", "gemm", "calibration", "alpha"}))),
            (std::vector<std::string>{"zeta", "alpha", "gemm", "calibration"}));
  EXPECT_STREQ(to_string(SuiteKind::power_heavy), "power_heavy");
}

TEST(RunOrder, TextNamesEachKindPresent) {
  EXPECT_EQ(order_text({"memory", "gemm", "calibration"}),
            "device suites first (memory), power-heavy last among them (gemm), then host suites "
            "(calibration)");
  EXPECT_EQ(order_text({"calibration"}), "host suites (calibration)");
  EXPECT_EQ(order_text({"gemm"}), "power-heavy device suites (gemm)");
}

PlannedSuite planned(const std::string& name, double execution_s, double reused_s = 0) {
  PlannedSuite s;
  s.suite = name;
  s.case_names = {name + "/a"};
  s.case_seconds = {execution_s - 1.0};
  s.fixed_s = 1.0;
  s.reused_s = reused_s;
  return s;
}

RunPlan plan_of(std::vector<PlannedSuite> suites, int executions) {
  RunPlan p;
  p.profile = "quick";
  p.gpus = 8;
  p.gpus_source = "flag";
  p.repetitions = 1;
  p.executions = executions;
  p.suites = std::move(suites);
  return p;
}

TEST(RunPlanSettle, AGemmFollowedByADeviceSuiteAcrossRoundsCountsTheBound) {
  // --suite gemm,memory, 3 executions: memory, gemm | memory (settle), gemm | memory (settle),
  // gemm: two settles, nothing in between to cool the GPUs, so the whole bound each time.
  const RunPlan p = plan_of({planned("memory", 7), planned("gemm", 33.5, 12)}, 3);
  const auto seq = p.sequence();
  ASSERT_EQ(seq.size(), 6u);
  EXPECT_EQ(seq[0].suite, "memory");
  EXPECT_EQ(seq[1].suite, "gemm");
  EXPECT_DOUBLE_EQ(seq[1].seconds, 33.5);
  EXPECT_DOUBLE_EQ(seq[3].seconds, 33.5 - 12);  // later executions reuse the algorithm search
  const PlannedSettle settle = p.settle();
  EXPECT_EQ(settle.settles, 2);
  EXPECT_DOUBLE_EQ(settle.seconds, 2 * k_settle_bound_s);
  EXPECT_DOUBLE_EQ(p.total_estimated_s(), 3 * 7 + (33.5 + 2 * (33.5 - 12)) + 2 * k_settle_bound_s);
}

TEST(RunPlanSettle, HostSuitesBetweenGiveTheirTimeToTheBound) {
  // The default selection's shape (quick, 8 GPUs): calibration 1.1 s and dataloader 5.6 s an
  // execution sit between gemm and the next round's first device suite.
  const RunPlan p = plan_of({planned("memory", 7), planned("gemm", 33.5, 12),
                             planned("calibration", 1.1), planned("dataloader", 5.6)},
                            3);
  const PlannedSettle settle = p.settle();
  EXPECT_EQ(settle.settles, 2);
  EXPECT_NEAR(settle.seconds, 2 * (k_settle_bound_s - 1.1 - 5.6), 1e-9);
  // A dataloader of 29 s an execution (standard) covers the whole bound: nothing is added.
  const RunPlan standard =
      plan_of({planned("memory", 14), planned("gemm", 172, 60), planned("dataloader", 29)}, 5);
  EXPECT_EQ(standard.settle().settles, 4);
  EXPECT_DOUBLE_EQ(standard.settle().seconds, 0);
}

TEST(RunPlanSettle, NoPowerHeavySuiteNoSettle) {
  const RunPlan p = plan_of({planned("memory", 7), planned("calibration", 1.1)}, 3);
  EXPECT_EQ(p.settle().settles, 0);
  EXPECT_DOUBLE_EQ(p.total_estimated_s(), 3 * 7 + 3 * 1.1);
}

TEST(RunPlanSettle, JsonAndTextShowTheOrderKindsAndSettle) {
  const RunPlan p = plan_of({planned("memory", 7), planned("gemm", 33.5, 12)}, 3);
  const auto j = nlohmann::json::parse(run_plan_json(p));
  ASSERT_EQ(j["suites"].size(), 2u);
  EXPECT_EQ(j["suites"][0]["suite"], "memory");
  EXPECT_EQ(j["suites"][0]["kind"], "device");
  EXPECT_EQ(j["suites"][1]["kind"], "power_heavy");
  EXPECT_EQ(j["settle"]["settles"], 2);
  EXPECT_EQ(j["settle"]["bound_s"], k_settle_bound_s);
  EXPECT_DOUBLE_EQ(j["settle"]["estimated_s"].get<double>(), 20.0);
  EXPECT_NEAR(j["total_estimated_s"].get<double>(), p.total_estimated_s(), 1e-3);

  std::ostringstream text;
  print_run_plan(text, p);
  const std::string t = text.str();
  EXPECT_NE(t.find("Order in every round: device suites first (memory), power-heavy last among "
                   "them (gemm)"),
            std::string::npos)
      << t;
  // A table row of its own, counted in the total.
  bool settle_row = false;
  std::istringstream lines(t);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("settle ", 0) == 0) settle_row = line.find("20.0 s") != std::string::npos;
  }
  EXPECT_TRUE(settle_row) << t;
  EXPECT_NE(t.find("2 settles, counted at 20.0 s"), std::string::npos) << t;
}

}  // namespace
}  // namespace gpubench::harness
