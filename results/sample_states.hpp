// The three sample states (METHODOLOGY rule 5; the rule is documented in suites/README.md
// "Sample states"): power_limited (informational), thermal_or_hw_slowdown (the sample is
// invalid) and clock_below_expected (recorded and shown). Pure functions here; the store applies
// them to a suite run's samples with Store::classify_samples.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace gpubench::results {

// One NVML telemetry reading of the sample's GPU, in the same time base as the sample window.
struct StateTick {
  double t_s = 0;
  std::optional<int64_t> reasons;  // clocks-event reason mask; nullopt: unreadable
  std::optional<double> sm_clock_mhz;
};

// When a sample (a repetition) ran, from the suite's window_start_s / window_end_s.
struct SampleWindow {
  double start_s = 0;
  double end_s = 0;
};

struct SampleStates {
  std::optional<bool> power_limited;
  std::optional<bool> thermal_or_hw_slowdown;
  std::optional<bool> clock_below_expected;
};

// The rule:
//  - Telemetry ticks of the sample's GPU whose time lies in [start - slack, end + slack] (slack:
//    one telemetry interval, since reasons are sampled, not integrated) decide power_limited
//    (power cap, board limit, reliability) and thermal_or_hw_slowdown (SW/HW thermal, HW power
//    brake, and HW slowdown where it is sustained: sample_state::without_transient_hw_slowdown
//    over all of the GPU's ticks, `ticks` in any order) when at least one of them has a readable
//    reason mask. Without a window or such ticks both stay unknown.
//  - clock_below_expected: the measured clock (the suite's clock probe; else the lowest NVML SM
//    clock of those ticks) is more than sample_state::k_clock_tolerance below the expected
//    clock (expected_sm_clock_mhz). Unknown when either clock is unknown.
SampleStates classify_sample(const std::optional<SampleWindow>& window,
                             const std::vector<StateTick>& ticks, double slack_s,
                             std::optional<double> probe_clock_mhz,
                             std::optional<double> expected_clock_mhz);

// The SM clock a sample of a GPU is expected to run at, MHz: the clock NVML shows the GPU locked
// at (an application clock target away from its default, which stops boosting on Pascal and
// newer: harness/probe/clock_lock.hpp), else the GPU's maximum SM clock
// (nvmlDeviceGetMaxClockInfo, the boost limit). The application clock is never the expectation
// of an unlocked GPU: NVML deprecates those queries (CUDA 13) and current drivers may not answer
// them, and its default is the base clock, well below what an unlocked GPU boosts to. nullopt
// when neither is known.
std::optional<double> expected_sm_clock_mhz(std::optional<int> app_sm_clock_mhz,
                                            std::optional<int> default_app_sm_clock_mhz,
                                            std::optional<int> max_sm_clock_mhz);

}  // namespace gpubench::results
