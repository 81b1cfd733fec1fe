// The run plan's time model (suites/common/plan.hpp) and the transfer suite's cuts: arithmetic
// checked by hand, no suite binary involved.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "suites/common/plan.hpp"
#include "suites/transfer/transfer_cases.hpp"
#include "util/error.hpp"

namespace gpubench::suite {
namespace {

TEST(PlanModel, RepetitionsFollowTheProfileUnlessGiven) {
  EXPECT_EQ(repetitions_for(Profile::quick), 3);
  EXPECT_EQ(repetitions_for(Profile::standard), 5);
  EXPECT_EQ(repetitions_for(Profile::full), 10);
  EXPECT_EQ(repetitions_of({Profile::quick, 8, 0}), 3);
  EXPECT_EQ(repetitions_of({Profile::quick, 8, 7}), 7);
}

TEST(PlanModel, CaseSecondsAddsOnceCostAndRepeatsTheRest) {
  ModelRates r;
  r.per_benchmark_s = 0.01;
  CaseCost c;
  c.once_s = 2.0;
  c.setup_s = 0.1;
  c.warmup_s = 0.2;
  c.sample_s = 0.05;
  c.samples = 10;
  c.validation_s = 0.03;
  // 2 + 3 x (0.01 + 0.1 + 0.2 + 10 x 0.05 + 0.03) = 2 + 3 x 0.84
  EXPECT_NEAR(case_seconds(c, 3, r), 4.52, 1e-12);
  // Zero or negative repetitions count as one (a case always runs once).
  EXPECT_NEAR(case_seconds(c, 0, r), 2.84, 1e-12);
  EXPECT_NEAR(skipped_case_seconds(5, r), 0.05, 1e-12);
}

TEST(PlanModel, TransferSecondsIsBytesOverRate) {
  EXPECT_NEAR(transfer_seconds(55e9, 55e9), 1.0, 1e-12);
  EXPECT_NEAR(transfer_seconds(1 << 30, reference_rates().pcie_pinned_bytes_per_s),
              1073741824.0 / 55e9, 1e-12);
  EXPECT_EQ(transfer_seconds(1e9, 0), 0.0);
}

TEST(PlanModel, StartupCountsEveryGpuContext) {
  ModelRates r;
  r.process_start_s = 1.0;
  r.per_gpu_context_s = 0.5;
  EXPECT_NEAR(startup_seconds(8, r), 5.0, 1e-12);
  EXPECT_NEAR(startup_seconds(0, r), 1.0, 1e-12);
}

TEST(PlanModel, ReferenceRatesAreTheMethodologyFigures) {
  const ModelRates& r = reference_rates();
  EXPECT_EQ(r.pcie_pinned_bytes_per_s, 55e9);       // METHODOLOGY rule 11
  EXPECT_EQ(r.nvlink_pair_bytes_per_s, 396e9);      // rule 11
  EXPECT_EQ(r.allreduce_busbw_bytes_per_s, 475e9);  // rule 13, 8xH200
  EXPECT_EQ(r.bf16_flop_per_s, 790e12);             // rule 9: ~80% of 989
  const std::string text = rates_summary(r);
  EXPECT_NE(text.find("model assumptions, not measurements"), std::string::npos) << text;
  EXPECT_NE(text.find("PCIe pinned 55 GB/s"), std::string::npos) << text;
}

TEST(PlanModel, JsonHasTheSuiteTotalAndEveryCase) {
  SuitePlan p;
  p.suite = "x";
  p.gpus = 8;
  p.fixed_s = 1.5;
  p.cases = {{"x/a", 2.0}, {"x/b", 0.25}};
  p.assumptions = "fixture";
  const auto j = nlohmann::json::parse(plan_json(p));
  EXPECT_EQ(j["suite"], "x");
  EXPECT_EQ(j["gpus"], 8);
  ASSERT_EQ(j["cases"].size(), 2u);
  EXPECT_EQ(j["cases"][1]["name"], "x/b");
  EXPECT_DOUBLE_EQ(j["cases"][1]["estimated_s"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j["estimated_s"].get<double>(), 3.75);
  EXPECT_EQ(j["assumptions"], "fixture");
}

TEST(PlanModel, PlanCountsComeFromArgv) {
  std::vector<std::string> args = {"suite", "--gpubench_plan", "--gpubench_plan_gpus=8"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  EXPECT_EQ(plan_count_from_args(3, argv.data(), "gpubench_plan_gpus"), 8);
  EXPECT_EQ(plan_count_from_args(3, argv.data(), "gpubench_plan_repetitions"), std::nullopt);
  std::string bad = "--gpubench_plan_gpus=-1";
  argv[2] = bad.data();
  EXPECT_THROW(plan_count_from_args(3, argv.data(), "gpubench_plan_gpus"), Error);
  EXPECT_EQ(plan_devices(0), (std::vector<int>{0}));
  EXPECT_EQ(plan_devices(3), (std::vector<int>{0, 1, 2}));
}

}  // namespace
}  // namespace gpubench::suite

namespace gpubench::transfer {
namespace {

using suite::Profile;

TEST(TransferPlanCuts, StagedCopiesOnARingCoveringEveryGpuOutsideFull) {
  const std::vector<int> gpus = {0, 1, 2, 3, 4, 5, 6, 7};
  for (Profile p : {Profile::quick, Profile::standard}) {
    std::set<int> sources, destinations;
    int staged_pairs = 0;
    for (int i : gpus) {
      for (int j : gpus) {
        if (i == j || !staged_pair_measured(p, gpus, i, j)) continue;
        ++staged_pairs;
        sources.insert(i);
        destinations.insert(j);
        EXPECT_EQ(j, (i + 1) % 8);
      }
    }
    EXPECT_EQ(staged_pairs, 8);
    EXPECT_EQ(sources.size(), 8u);
    EXPECT_EQ(destinations.size(), 8u);
  }
  EXPECT_TRUE(staged_pair_measured(Profile::full, gpus, 3, 0));
  EXPECT_TRUE(staged_pair_measured(Profile::quick, {0, 1}, 1, 0));  // 2 GPUs: both pairs
}

TEST(TransferPlanCuts, EightGpuCaseCountsPerProfile) {
  const std::vector<int> gpus = {0, 1, 2, 3, 4, 5, 6, 7};
  int staged = 0, peer = 0, remote_devices = 0;
  for (const auto& c : all_cases(Profile::quick, NumaRequest::local, gpus)) {
    if (c.dir != Dir::p2p) continue;
    (c.peer == PeerAccess::off ? staged : peer)++;
  }
  EXPECT_EQ(peer, 56 * 2);   // every ordered pair, one way and both ways
  EXPECT_EQ(staged, 8 * 2);  // the ring (was 112 before the cut)
  std::set<int> remote;
  staged = 0;
  for (const auto& c : all_cases(Profile::standard, NumaRequest::both, gpus)) {
    if (c.numa == Numa::remote) remote.insert(c.device);
    if (c.dir == Dir::p2p && c.peer == PeerAccess::off) ++staged;
  }
  remote_devices = static_cast<int>(remote.size());
  EXPECT_EQ(remote_devices, 1);  // numa:remote on the first GPU only
  EXPECT_EQ(staged, 8 * 2);      // the ring at one size
}

}  // namespace
}  // namespace gpubench::transfer
