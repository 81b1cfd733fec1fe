// How a GPU case takes its timed samples (issue 36; METHODOLOGY rules 3-5), in the way of
// nvbench's hot measurement: every sample is one batch of back-to-back calls sized to a target
// GPU time; the warm-up runs until the SM clock is steady, not a fixed count; every sample carries
// the SM clock it ran at, and a sample off the case's steady clock is kept out of the median (as
// nvbench discards throttled samples) and counted; the case stops when its relative noise is
// below the target or its time budget is spent, and says which.
//
// CUDA-free: the suites feed it what their BatchTimer measured (suites/common/cuda/timing.hpp),
// the tests feed it recorded or invented traces. Times in seconds, clocks in MHz.
//
// Use:
//   ClockSettle warm(policy, last_steady_mhz);       // last_steady_mhz: the device's previous case
//   while (!warm.done()) warm.add(run_batch().sm_clock_mhz);
//   SampleSeries s(policy);
//   while (!s.done()) { auto b = run_batch(); s.add(b.elapsed_s / calls, b.sm_clock_mhz,
//   b.elapsed_s); } s.median_s(), s.kept(), s.off_clock(), s.noise(), s.stop_reason()
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "suites/common/suite_support.hpp"

namespace gpubench::suite {

struct SamplingPolicy {
  double batch_target_s = 0.002;  // GPU time of one hot sample (one batch of calls)
  int min_samples = 5;            // kept samples before the noise stop may end the case
  int max_samples = 10;           // samples at most (kept and off-clock together)
  double noise_target = 0.005;    // relative standard deviation of the kept samples (0.5%)
  double time_budget_s = 0.02;    // GPU time of the timed samples at most
  // Warm-up: the clock is steady when `steady_readings` readings in a row lie within
  // `steady_tolerance` of their median (or one reading lies within it of the device's last steady
  // clock); at most `warmup_budget_s` of GPU time, never fewer than `min_warmup_batches`.
  int steady_readings = 2;
  double steady_tolerance = 0.015;
  int min_warmup_batches = 1;
  double warmup_budget_s = 0.02;
  // A sample whose clock is further than this from the case's steady clock is off-clock.
  double off_clock_tolerance = 0.02;
};

// The policy of each profile (a run's executions repeat it; issue 35). The budgets are what the
// run plan holds (`gpubench run --plan`): quick and standard keep today's 10 samples of 2 ms at
// most and stop at 5 when the noise is below 0.5%; full measures like nvbench (0.5 s of samples).
SamplingPolicy sampling_policy(Profile profile);

// Calls per batch so that a batch takes about `target_s`: ceil(target_s / call_s), within
// [1, max_calls] (max_calls >= 1; a call time <= 0 gives max_calls).
int calls_for_target(double call_s, double target_s, int max_calls);

// Relative noise of a set of times: the sample standard deviation over the mean (0 with fewer than
// two values or a mean <= 0).
double relative_noise(const std::vector<double>& values);

// Median of `values` (0 when empty); the mean of the two middle values for an even count.
double median_of(std::vector<double> values);

// Whether a clock trace ends steady: its last `readings` values (> 0) lie within `tolerance`
// (relative) of their median. Readings <= 0 (the probe could not read) break the run.
bool clock_steady(const std::vector<double>& clocks_mhz, int readings, double tolerance);

// The warm-up: add the clock after every warm-up batch until done().
class ClockSettle {
 public:
  // last_steady_mhz: the steady clock of the case the device ran before (0: none); a first
  // reading within tolerance of it ends the warm-up at once (the GPU is already there).
  explicit ClockSettle(const SamplingPolicy& policy, double last_steady_mhz = 0);
  // One warm-up batch ran for `elapsed_s` of GPU time; its clock was `sm_clock_mhz` (<= 0: unread).
  void add(double sm_clock_mhz, double elapsed_s);
  bool done() const;
  // Whether the clock was steady when the warm-up ended (false: the budget ended it).
  bool steady() const { return m_steady; }
  int batches() const { return static_cast<int>(m_clocks.size()); }
  const std::vector<double>& clocks_mhz() const { return m_clocks; }

 private:
  SamplingPolicy m_policy;
  double m_last_steady_mhz;
  std::vector<double> m_clocks;
  double m_elapsed_s = 0;
  bool m_steady = false;
};

enum class StopReason { noise_target, time_budget, max_samples };
// "noise_target", "time_budget", "max_samples".
const char* to_string(StopReason reason);

class SampleSeries {
 public:
  explicit SampleSeries(const SamplingPolicy& policy);

  // One timed sample: the time of one call (the batch's elapsed time over its calls), the clock
  // it ran at (<= 0: unread; such a sample is never off-clock), the batch's GPU time.
  void add(double per_call_s, double sm_clock_mhz, double elapsed_s);

  // Whether the case has its samples: >= min_samples kept and noise <= target, or the budget or
  // max_samples reached. Meaningful after the first add().
  bool done() const;
  StopReason stop_reason() const;

  // The case's steady clock: the median of the samples' clocks (0 when none was read).
  double steady_clock_mhz() const;
  // Per sample: whether its clock was off the steady clock by more than off_clock_tolerance.
  std::vector<bool> off_clock_flags() const;
  // Samples left out of the median (0 when every sample is off the steady clock: all are kept).
  int off_clock() const;
  // The per-call times of the samples on the steady clock (all samples when every one is off).
  std::vector<double> kept() const;
  double median_s() const { return median_of(kept()); }
  double noise() const { return relative_noise(kept()); }
  int samples() const { return static_cast<int>(m_per_call_s.size()); }
  double elapsed_s() const { return m_elapsed_s; }
  // The lowest clock of the kept samples (the repetition's sm_clock_MHz sample state; 0: unread).
  double min_kept_clock_mhz() const;

  // "samples=7 off_clock=1 noise=0.31% stop=noise_target clock=1980MHz" for labels.
  std::string summary() const;

 private:
  SamplingPolicy m_policy;
  std::vector<double> m_per_call_s;
  std::vector<double> m_clocks;
  double m_elapsed_s = 0;
};

// A launch- or clock-bound time scaled to `reference_mhz` (the GPU's maximum SM clock): a kernel
// whose time follows the SM clock takes time * clock / reference at the reference clock. 0 when
// either clock is unknown.
double time_at_clock_s(double time_s, double clock_mhz, double reference_mhz);

// Google Benchmark counter names the measured cases write (Role::parameter in their metrics):
// samples kept, samples off the steady clock, relative noise in percent.
inline constexpr const char* k_samples_counter = "samples";
inline constexpr const char* k_off_clock_counter = "samples_off_clock";
inline constexpr const char* k_noise_counter = "noise_pct";
// The three as MetricSpecs (parameters: describe the measurement, never compared).
std::vector<MetricSpec> sampling_metrics();
// Writes the three counters and, for a case that did not stop on its noise target, nothing more:
// the stop reason goes in the label (SampleSeries::summary()).
void write_sampling_counters(benchmark::State& state, const SampleSeries& series);

// Registers a benchmark that takes its own samples with a SampleSeries: one Google Benchmark
// iteration per repetition, whose manual time the case sets to its median per-call time. Returns
// the benchmark for further settings.
template <class Run>
benchmark::internal::Benchmark* register_measured(
    const std::string& name, Run run, benchmark::TimeUnit unit = benchmark::kMicrosecond) {
  return register_timed(name, 1, std::move(run), unit);
}

}  // namespace gpubench::suite
