// The per-sample state a GPU suite reports with each repetition (METHODOLOGY rule 5,
// suites/README.md "Sample states"), written as Google Benchmark counters under the names of
// util/sample_state.hpp, so the results store reads them as sample state and never as metrics.
//
// Use: one recorder per repetition; add() after every timed sample with the SM clock the clock
// probe measured and the sample's CLOCK_MONOTONIC window; write() once before returning. The
// harness decides power_limited / thermal_or_hw_slowdown / clock_below_expected from NVML
// telemetry overlapping the window and the expected clock; a suite never guesses them.
#pragma once

#include <benchmark/benchmark.h>

#include <array>
#include <string_view>

#include "util/sample_state.hpp"

namespace gpubench::suite {

class SampleStateRecorder {
 public:
  // CLOCK_MONOTONIC (std::chrono::steady_clock) now, in seconds: the time base the harness's
  // telemetry shares.
  static double now_s();

  // sm_clock_mhz <= 0: the probe could not read the clock (not recorded).
  void add(double sm_clock_mhz, double start_s, double end_s);

  // Writes sm_clock_MHz (the lowest clock measured), window_start_s and window_end_s. Writes
  // nothing for a repetition without samples.
  void write(benchmark::State& state) const;

  // Every counter name write() may use: the state-key contract test checks them against ingest.
  static constexpr std::array<std::string_view, 3> k_written = {
      sample_state::name_of(sample_state::Field::sm_clock_mhz),
      sample_state::name_of(sample_state::Field::window_start_s),
      sample_state::name_of(sample_state::Field::window_end_s)};

  double min_clock_mhz() const { return m_min_clock_mhz; }

 private:
  double m_min_clock_mhz = 0;
  double m_start_s = 0;
  double m_end_s = 0;
  bool m_any = false;
};

}  // namespace gpubench::suite
