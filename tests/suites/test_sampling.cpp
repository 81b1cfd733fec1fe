// How GPU cases take their samples (suites/common/sampling.hpp): batch sizing from a target time,
// the noise stop and the budget, clock steadiness on recorded traces, off-clock samples left out.
// The traces are fixtures: invented numbers shaped like what the clock probe reads (an H200's SM
// clock ramping from idle, a 1980 vs 1890 MHz power-capped dip), not measurements.
#include <gtest/gtest.h>

#include <vector>

#include "suites/common/sampling.hpp"

namespace gpubench::suite {
namespace {

SamplingPolicy test_policy() {
  SamplingPolicy p;  // quick/standard: 2 ms batches, 5..10 samples, 0.5% noise, 20 ms budget
  return p;
}

TEST(Sampling, CallsPerBatchReachTheTargetTime) {
  EXPECT_EQ(calls_for_target(3.6e-6, 0.002, 400), 400);   // 556 calls wanted, queue limit 400
  EXPECT_EQ(calls_for_target(3.6e-6, 0.002, 1000), 556);  // ceil(2 ms / 3.6 us)
  EXPECT_EQ(calls_for_target(0.5e-3, 0.002, 400), 4);
  EXPECT_EQ(calls_for_target(0.003, 0.002, 400), 1);  // one call is longer than the target
  EXPECT_EQ(calls_for_target(0, 0.002, 50), 50);      // unknown call time: the most allowed
  EXPECT_EQ(calls_for_target(1e-6, 0.002, 0), 1);     // never fewer than one call
}

TEST(Sampling, RelativeNoiseIsTheSampleStandardDeviationOverTheMean) {
  EXPECT_DOUBLE_EQ(relative_noise({}), 0);
  EXPECT_DOUBLE_EQ(relative_noise({5.0}), 0);
  EXPECT_DOUBLE_EQ(relative_noise({1.0, 1.0, 1.0}), 0);
  // mean 2, sample sd 1
  EXPECT_NEAR(relative_noise({1.0, 2.0, 3.0}), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 2, 3}), 2.5);
}

TEST(Sampling, AQuietCaseStopsOnItsNoiseTargetAfterTheMinimum) {
  SampleSeries s(test_policy());
  const std::vector<double> times = {3.600e-6, 3.601e-6, 3.599e-6, 3.600e-6, 3.602e-6};
  for (std::size_t i = 0; i < times.size(); ++i) {
    EXPECT_FALSE(s.done()) << "stopped after " << i << " samples, below the minimum of 5";
    s.add(times[i], 1980, 0.002);
  }
  EXPECT_TRUE(s.done());
  EXPECT_EQ(s.stop_reason(), StopReason::noise_target);
  EXPECT_EQ(s.samples(), 5);
  EXPECT_NEAR(s.median_s(), 3.600e-6, 1e-15);
}

TEST(Sampling, ANoisyCaseRunsToItsBudgetAndSaysSo) {
  SampleSeries s(test_policy());
  int taken = 0;
  while (!s.done()) {
    s.add(taken % 2 == 0 ? 3.5e-6 : 3.7e-6, 1980, 0.002);  // 2.8% noise: never below 0.5%
    ++taken;
  }
  EXPECT_EQ(taken, 10);  // 20 ms budget of 2 ms samples
  EXPECT_EQ(s.stop_reason(), StopReason::time_budget);
  EXPECT_NE(s.summary().find("stop=time_budget"), std::string::npos) << s.summary();
}

TEST(Sampling, MaxSamplesBoundsShortBatches) {
  SamplingPolicy p = test_policy();
  p.max_samples = 7;
  SampleSeries s(p);
  int taken = 0;
  while (!s.done()) {
    s.add(taken % 2 == 0 ? 1.0 : 1.1, 1980, 1e-4);  // short batches: the budget is far away
    ++taken;
  }
  EXPECT_EQ(taken, 7);
  EXPECT_EQ(s.stop_reason(), StopReason::max_samples);
}

// The fusion case of the H200 report: a run at 1980 MHz and a dip to ~1890 MHz (power cap) for
// some batches. The off-clock batches are 4.6% slower; left out, the median is the 1980 MHz one.
TEST(Sampling, SamplesOffTheSteadyClockAreLeftOutAndCounted) {
  SampleSeries s(test_policy());
  const std::vector<double> clocks = {1980, 1980, 1890, 1980, 1885, 1980, 1980, 1980};
  for (double c : clocks) s.add(3.6e-6 * 1980.0 / c, c, 0.002);
  EXPECT_DOUBLE_EQ(s.steady_clock_mhz(), 1980);
  EXPECT_EQ(s.off_clock(), 2);
  EXPECT_EQ(s.kept().size(), 6u);
  EXPECT_NEAR(s.median_s(), 3.6e-6, 1e-15);
  EXPECT_NEAR(s.noise(), 0, 1e-12);
  EXPECT_DOUBLE_EQ(s.min_kept_clock_mhz(), 1980);
  // Without the rule the 1890 MHz batches pull the noise above the target.
  std::vector<double> all;
  for (double c : clocks) all.push_back(3.6e-6 * 1980.0 / c);
  EXPECT_GT(relative_noise(all), 0.005);
}

TEST(Sampling, ClocksWithin2PercentAreOnClockAndUnreadClocksAreNeverOff) {
  SampleSeries s(test_policy());
  for (double c : {1980.0, 1950.0, 0.0, 1990.0, 1980.0}) s.add(1e-3, c, 0.002);
  EXPECT_EQ(s.off_clock(), 0);  // 1950 is 1.5% below 1980
  EXPECT_EQ(s.kept().size(), 5u);
}

TEST(Sampling, WhenEverySampleIsOffTheMedianStillHasThemAll) {
  SampleSeries s(test_policy());
  s.add(1.0, 1000, 0.002);
  s.add(2.0, 2000, 0.002);  // steady = 1500: both are 33% off, so neither is left out
  EXPECT_EQ(s.off_clock_flags(), (std::vector<bool>{true, true}));
  EXPECT_EQ(s.off_clock(), 0);
  EXPECT_EQ(s.kept().size(), 2u);
  EXPECT_DOUBLE_EQ(s.min_kept_clock_mhz(), 1000);
}

// Recorded-shape trace of an SM clock rising from idle under load (MHz after each warm-up batch).
TEST(Sampling, WarmUpLastsUntilTheClockStopsMoving) {
  SamplingPolicy p = test_policy();
  p.warmup_budget_s = 1.0;  // the rule, not the budget, ends it here
  ClockSettle warm(p);
  const std::vector<double> ramp = {1095, 1410, 1755, 1965, 1980, 1980, 1980};
  std::size_t i = 0;
  while (!warm.done()) warm.add(ramp.at(i++), 0.002);
  EXPECT_TRUE(warm.steady());
  EXPECT_EQ(warm.batches(), 5);  // 1965 and 1980 are within 1.5%
  EXPECT_FALSE(clock_steady({1095, 1410}, 2, 0.015));
  EXPECT_TRUE(clock_steady({1095, 1965, 1980}, 2, 0.015));
  EXPECT_FALSE(clock_steady({1980, 0}, 2, 0.015));  // an unread clock is not steady
}

TEST(Sampling, WarmUpOnAGpuAlreadyAtItsClockTakesOneBatch) {
  ClockSettle warm(test_policy(), 1980);  // the device's previous case ran at 1980 MHz
  warm.add(1975, 0.002);
  EXPECT_TRUE(warm.done());
  EXPECT_TRUE(warm.steady());
  EXPECT_EQ(warm.batches(), 1);
}

TEST(Sampling, WarmUpThatNeverSettlesEndsAtItsBudgetAndSaysSo) {
  ClockSettle warm(test_policy());  // 20 ms warm-up budget
  double clock = 1000;
  while (!warm.done()) {
    warm.add(clock, 0.002);
    clock *= 1.05;  // 5% a batch: never steady
  }
  EXPECT_FALSE(warm.steady());
  EXPECT_EQ(warm.batches(), 10);
}

TEST(Sampling, ClockNormalisedTimeScalesWithTheClock) {
  // 3.78 us at 1890 MHz is 3.6 us at 1980 MHz for a clock-bound kernel.
  EXPECT_NEAR(time_at_clock_s(3.78e-6, 1890, 1980), 3.6082e-6, 1e-9);
  EXPECT_DOUBLE_EQ(time_at_clock_s(1.0, 0, 1980), 0);
}

TEST(Sampling, ProfilesFitThePlanBudgets) {
  for (Profile p : {Profile::quick, Profile::standard}) {
    const SamplingPolicy s = sampling_policy(p);
    EXPECT_EQ(s.max_samples, 10);
    EXPECT_DOUBLE_EQ(s.batch_target_s * s.max_samples, s.time_budget_s);
    EXPECT_DOUBLE_EQ(s.noise_target, 0.005);
  }
  EXPECT_GT(sampling_policy(Profile::full).time_budget_s,
            sampling_policy(Profile::standard).time_budget_s);
}

}  // namespace
}  // namespace gpubench::suite
