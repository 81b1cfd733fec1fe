// The sampled measurement of a device case (issue 36 items 1-2), shared by the memory suite's
// device STREAM cases and the fusion suite's device cases; CUDA-free, so the procedure is tested
// on every machine with a fake batch timer (the suites pass BatchTimer::time_batch).
//
//   1. probe: one batch of 1 call sizes the batches: calls_for_target(its time, the profile's
//      batch_target_s, max_calls), max_calls the kernel-queue limit of a batch;
//   2. warm-up: batches of that many calls until the SM clock is steady (ClockSettle: two
//      readings in a row within 1.5%, or one within 1.5% of the device's last steady clock), at
//      most warmup_budget_s of GPU time;
//   3. the batch is re-sized from the last warm-up batch (many calls: its time per call no longer
//      carries the probe's fixed cost of one event pair and one launch);
//   4. samples: batches of that size until the SampleSeries is done (noise below target
//      after min_samples kept, the time budget spent, or max_samples).
// The case reports the median per-call time of the kept samples (those on the steady clock).
#pragma once

#include <functional>
#include <vector>

#include "suites/common/plan.hpp"
#include "suites/common/sample_state_counters.hpp"
#include "suites/common/sampling.hpp"

namespace gpubench::suite {

// One timed batch as the suite's timer measured it.
struct TimedBatch {
  double elapsed_s = 0;     // GPU time of the batch (start to stop event), seconds
  double sm_clock_mhz = 0;  // the clock probe right after it (<= 0: unread)
  double end_s = 0;  // SampleStateRecorder::now_s() once the batch had completed (CLOCK_MONOTONIC)
};

// A sample's CLOCK_MONOTONIC window (the batch's GPU time, ending when it was seen to complete)
// and its SM clock (MHz, <= 0: unread).
struct SampleWindow {
  double start_s = 0;
  double end_s = 0;
  double sm_clock_mhz = 0;
};

struct SampledBatches {
  explicit SampledBatches(const SamplingPolicy& policy) : series(policy) {}
  SampleSeries series;
  int calls_per_batch = 0;     // calls in every timed sample
  int warmup_batches = 0;      // warm-up batches run (the probe not counted)
  bool warmup_steady = false;  // false: the warm-up budget ended the warm-up, not a steady clock
  std::vector<SampleWindow> windows;  // one per sample, in order

  double median_call_s() const { return series.median_s(); }
  // The windows and clocks of the kept samples (every sample when all were off-clock, as
  // SampleSeries::kept()), in order.
  std::vector<SampleWindow> kept_windows() const;
  // Adds the kept samples to `states` (METHODOLOGY rule 5: the repetition's lowest clock and its
  // time window are those of the samples its median comes from).
  void record_kept(SampleStateRecorder& states) const;
  // "calls_per_sample=200 warmup=3 (steady) samples=7 off_clock=0 noise=0.21% stop=noise_target
  // clock=1980MHz" for labels.
  std::string summary() const;
};

// Runs `calls` calls of the case as one timed batch (the caller's BatchTimer, hot L2).
using RunBatch = std::function<TimedBatch(int calls)>;

// The procedure above. last_steady_mhz: the steady clock of the previous case on this device
// (0: none). max_calls >= 1.
SampledBatches measure_batches(const SamplingPolicy& policy, double last_steady_mhz, int max_calls,
                               const RunBatch& run_batch);

// The run plan's model of the procedure for a call of `call_s` seconds of GPU time (what the
// batch queues per call, launches included): the probe and `steady_readings` warm-up batches (a
// GPU coming from another case's clock needs two readings in a row; one already at its clock
// needs one) as warm-up, then samples of calls_for_target calls up to the time budget, at most
// max_samples (the noise stop may end earlier: the plan keeps the bound). Each batch adds a
// synchronisation round trip (rates.sync_s).
CaseCost planned_sampling_cost(double call_s, int max_calls, const SamplingPolicy& policy,
                               const ModelRates& rates);

}  // namespace gpubench::suite
