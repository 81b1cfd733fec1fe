// The launch suite's CUDA-free logic: names, case list, NTP-style clock relation, speed-up.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "results/model.hpp"
#include "suites/launch/launch_cases.hpp"

namespace gpubench::launch {
namespace {

TEST(LaunchCases, NamesAndCaseList) {
  // The scheduling mode the contexts wait in is part of every name (issue 36).
  EXPECT_EQ(case_name({LaunchCaseKind::kernel_chain, 100, 1}),
            "launch/kernel_chain/kernels:100/sched:spin/device:1");
  EXPECT_EQ(case_name({LaunchCaseKind::memcpy_d2h_4_bytes, 0, 0}),
            "launch/memcpy_4_bytes/dir:d2h/sched:spin/device:0");
  EXPECT_EQ(case_name({LaunchCaseKind::back_to_back, 256, 0}),
            "launch/back_to_back/kernels:256/sched:spin/device:0");
  EXPECT_EQ(case_name({LaunchCaseKind::launch_to_start, 0, 2}),
            "launch/launch_to_start/sched:spin/device:2");
  const auto cases = all_cases(suite::Profile::quick, {0, 1});
  std::set<std::string> names;
  std::set<int> chains;
  for (const auto& c : cases) {
    EXPECT_TRUE(names.insert(case_name(c)).second);
    if (c.kind == LaunchCaseKind::kernel_chain && c.device == 0) chains.insert(c.kernels);
    const auto parsed = results::parse_benchmark_name(case_name(c), "launch");
    EXPECT_EQ(parsed.suite, "launch");
    ASSERT_GE(parsed.params.size(), 2u);
    EXPECT_EQ(parsed.params.back().key, "device");
    EXPECT_EQ(parsed.params[parsed.params.size() - 2].key, "sched");
    EXPECT_EQ(parsed.params[parsed.params.size() - 2].text, "spin");
  }
  EXPECT_EQ(chains, (std::set<int>{1, 10, 100, 1000}));
  EXPECT_EQ(cases.size(), 2u * (1 + 6 + 4));
  EXPECT_LT(k_back_to_back_kernels, 500);  // the batch timer's launch-queue limit
}

TEST(LaunchCases, ClockOffsetUsesTheShortestRoundTrip) {
  // GPU clock = host clock + 1'000'000 ns. Ping 1: 10 us round trip, the GPU saw it 8 us in;
  // ping 2: 2 us round trip, seen 1 us in; ping 3: negative (bogus) round trip, ignored.
  const std::vector<ClockPing> pings = {
      {100'000, 110'000, 1'108'000}, {200'000, 202'000, 1'201'000}, {300'000, 299'000, 5'000'000}};
  const auto o = estimate_clock_offset(pings);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->offset_ns, 1'000'000);
  // Half the shortest round trip plus one timer tick; two stamps 93 us apart say nothing finer
  // than the 1 us worst case.
  EXPECT_EQ(o->timer_tick_ns, 1'000);
  EXPECT_EQ(o->uncertainty_ns, 1'000 + 1'000);
  EXPECT_FALSE(estimate_clock_offset({}));
  EXPECT_FALSE(estimate_clock_offset({{10, 5, 0}}));
}

// The %globaltimer tick: the finest step its stamps show, never more than 1 us.
TEST(LaunchCases, GlobalTimerTickIsTheFinestStepOfItsStamps) {
  EXPECT_EQ(globaltimer_tick_ns({1'000'032, 1'000'096, 1'003'200, 1'003'232}), 32);
  EXPECT_EQ(globaltimer_tick_ns({5'000, 7'000, 12'000}), 1'000);  // 1 us steps
  EXPECT_EQ(globaltimer_tick_ns({4'000, 8'000}), 1'000);          // capped at the worst case
  EXPECT_EQ(globaltimer_tick_ns({}), 1'000);
  EXPECT_EQ(globaltimer_tick_ns({7, 7}), 1'000);
  EXPECT_EQ(globaltimer_tick_ns({10, 9, 7}), 1);
  // A 32 ns timer makes the offset's uncertainty half the round trip + 32 ns.
  const std::vector<ClockPing> pings = {
      {0, 400, 1'000'192}, {1'000, 1'200, 1'001'088}, {2'000, 2'600, 1'001'120}};
  const auto o = estimate_clock_offset(pings);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->timer_tick_ns, 32);
  EXPECT_EQ(o->uncertainty_ns, 100 + 32);
}

TEST(LaunchCases, LaunchToStartMapsTheGpuStampIntoHostTime) {
  const ClockOffset o{1'000'000, 500};
  // Launch called at host 50'000 ns; the kernel started at GPU 1'054'500 = host 54'500.
  EXPECT_DOUBLE_EQ(launch_to_start_us(50'000, 1'054'500, o), 4.5);
  EXPECT_DOUBLE_EQ(launch_to_start_us(50'000, 1'049'000, o), -1.0);
}

TEST(LaunchCases, GraphSpeedupIsStreamOverGraph) {
  EXPECT_DOUBLE_EQ(graph_speedup(4.0, 1.0), 4.0);
  EXPECT_DOUBLE_EQ(graph_speedup(1.0, 2.0), 0.5);
  EXPECT_DOUBLE_EQ(graph_speedup(1.0, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3.0);
}

}  // namespace
}  // namespace gpubench::launch
