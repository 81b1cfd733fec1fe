// Cold samples (issue 36 "cold means cold"), CUDA-free: a cold sample is one call right after an
// L2 flush, alone between its own pair of events; pairs are queued in batches behind the spin
// kernel (suites/common/cuda/timing.hpp BatchTimer::time_flushed_calls), the SM clock is read
// after each batch, and a repetition takes hundreds of them: one flushed call of a small GEMM
// lasts a few microseconds, against the events' resolution of about 0.5 us. Used by gemm's cold
// cases and by the memory and fusion device cases whose working set straddles the L2
// (suites/common/sampled_batches.hpp, l2_placement.hpp). Times in seconds, clocks in MHz.
#pragma once

#include <string>
#include <vector>

#include "suites/common/sampling.hpp"
#include "suites/common/suite_support.hpp"

namespace gpubench::suite {

// Flushed calls (samples) per repetition: quick and standard 256, full 1024.
int cold_pairs_per_repetition(Profile profile);
// A cold batch queues at most this many pairs: the clock is read after every batch, so a
// repetition has several readings and a batch off the steady clock costs few samples.
inline constexpr int k_cold_max_pairs_per_batch = 64;
// Pairs per cold batch: each pair queues one flush (a memset node), the call's kernels and two
// event records (counted as one kernel more), and a batch stays within `max_queued_kernels`:
// max_queued_kernels / (2 + kernels_per_call), at least 1, at most k_cold_max_pairs_per_batch.
int cold_pairs_per_batch(int kernels_per_call, int max_queued_kernels);
// Batches a repetition takes: ceil(pairs / pairs_per_batch) (pairs_per_batch >= 1).
int cold_batches(int pairs, int pairs_per_batch);

// The cold estimator: the mean of `values` after dropping `trim_fraction` of them at each end
// (floor(n * trim_fraction) values per end; 0 when empty). Event timestamps are quantised (about
// 0.5 us): a call of 4.3 us reads 4.0 or 4.5 us, in proportion to where 4.3 lies between them, so
// their mean is unbiased and their median is whichever level holds the majority, up to half a
// step (6% of 4 us) off; the trim keeps the few calls a preemption or a late flush lengthened out
// of the mean (tests/suites/test_gemm_sampling.cpp, ColdEstimator).
inline constexpr double k_cold_trim_fraction = 0.1;
double trimmed_mean(std::vector<double> values, double trim_fraction);

// The samples of one cold repetition: batches of per-call times, each with the SM clock read
// after it. A batch whose clock is off the repetition's steady clock (SampleSeries's rule:
// more than off_clock_tolerance from the median clock of the batches) is left out with all its
// calls, and counted. The value is the trimmed mean of the calls kept. Times in seconds.
class ColdSeries {
 public:
  ColdSeries(const SamplingPolicy& policy, int pairs_wanted);
  // One batch: the times of its calls, the clock read after it (<= 0: unread), its GPU time.
  void add_batch(const std::vector<double>& call_s, double sm_clock_mhz, double elapsed_s);
  // Whether the repetition has its pairs (it has no noise stop: a single flushed call's spread is
  // mostly the events' resolution; the pair count makes the value precise).
  bool done() const { return pairs() >= m_pairs_wanted; }
  int pairs() const;
  // Calls of the batches on the steady clock (every call when every batch is off).
  std::vector<double> kept() const;
  int off_clock() const;  // calls left out with their batches
  double value_s() const { return trimmed_mean(kept(), k_cold_trim_fraction); }
  // Relative standard deviation of the kept calls (single calls: the events' resolution included).
  double noise() const { return relative_noise(kept()); }
  double steady_clock_mhz() const { return m_batches.steady_clock_mhz(); }
  double min_kept_clock_mhz() const { return m_batches.min_kept_clock_mhz(); }
  // One entry per batch (its mean call time and its clock): which batches are off-clock.
  const SampleSeries& batches() const { return m_batches; }
  // Calls in the first batch (0 before any).
  int pairs_per_batch() const;
  // "samples=256 off_clock=0 noise=7.91% stop=pairs batches=4x64 estimator=trimmed_mean_10pct
  // clock=1980MHz" for labels.
  std::string summary() const;

 private:
  SampleSeries m_batches;  // one entry per batch: its clock and mean call time
  std::vector<std::vector<double>> m_call_s;
  int m_pairs_wanted;
};

}  // namespace gpubench::suite
