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
//
// A case whose working set straddles the L2 is measured cold instead
// (suites/common/l2_placement.hpp cache_mode; measure_flushed_calls): warm-up and samples are
// batches of (L2 flush, call) pairs with only the call between events
// (BatchTimer::time_flushed_calls), hundreds of calls a repetition, and the case reports their
// trimmed mean (suites/common/cold_series.hpp). A batch of hot calls cannot be cold: one flush
// before it leaves every call after the first warm.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "suites/common/cold_series.hpp"
#include "suites/common/l2_placement.hpp"
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

// One repetition's measurement, hot (series) or cold (cold).
struct SampledBatches {
  explicit SampledBatches(const SamplingPolicy& policy) : series(policy) {}
  // Cold: `pairs_wanted` flushed calls.
  SampledBatches(const SamplingPolicy& policy, int pairs_wanted)
      : series(policy), cold(std::in_place, policy, pairs_wanted) {}
  SampleSeries series;             // hot: one entry per sample (empty when cold)
  std::optional<ColdSeries> cold;  // cold: the flushed calls, batch by batch
  int calls_per_batch = 0;         // hot: calls in every timed sample; cold: pairs per batch
  int warmup_batches = 0;          // warm-up batches run (the probe not counted)
  bool warmup_steady = false;  // false: the warm-up budget ended the warm-up, not a steady clock
  std::vector<SampleWindow> windows;  // one per sample (cold: per batch of pairs), in order

  CacheMode cache() const { return cold ? CacheMode::cold : CacheMode::hot; }
  // The entries whose clocks decide what is kept: hot, the samples; cold, the batches.
  const SampleSeries& batches() const { return cold ? cold->batches() : series; }
  // The case's time per call: hot, the median of the kept samples; cold, the trimmed mean of the
  // kept flushed calls (single calls are quantised by the events: cold_series.hpp).
  double call_s() const { return cold ? cold->value_s() : series.median_s(); }
  double steady_clock_mhz() const { return batches().steady_clock_mhz(); }
  // The windows and clocks of the kept samples (every sample when all were off-clock, as
  // SampleSeries::kept()), in order.
  std::vector<SampleWindow> kept_windows() const;
  // Adds the kept samples to `states` (METHODOLOGY rule 5: the repetition's lowest clock and its
  // time window are those of the samples its median comes from).
  void record_kept(SampleStateRecorder& states) const;
  // The counters samples, samples_off_clock and noise_pct (cold: counted in single calls).
  void write_counters(benchmark::State& state) const;
  // "cache:hot calls_per_sample=200 warmup=3 (steady) samples=7 off_clock=0 noise=0.21%
  // stop=noise_target clock=1980MHz"; cold: "cache:cold pairs_per_batch=64 warmup=2 (steady)
  // samples=256 off_clock=0 noise=3.10% stop=pairs batches=4x64 estimator=trimmed_mean_10pct
  // clock=1980MHz", for labels.
  std::string summary() const;
};

// Runs `calls` calls of the case as one timed batch (the caller's BatchTimer, hot L2).
using RunBatch = std::function<TimedBatch(int calls)>;

// The procedure above. last_steady_mhz: the steady clock of the previous case on this device
// (0: none). max_calls >= 1.
SampledBatches measure_batches(const SamplingPolicy& policy, double last_steady_mhz, int max_calls,
                               const RunBatch& run_batch);

// One batch of (L2 flush, call) pairs as the suite's timer measured it
// (BatchTimer::time_flushed_calls).
struct FlushedBatch {
  std::vector<double> call_s;  // each call alone, between its own events, seconds
  double elapsed_s = 0;        // GPU time of the whole batch, flushes included, seconds
  double sm_clock_mhz = 0;     // the clock probe right after it (<= 0: unread)
  double end_s = 0;            // SampleStateRecorder::now_s() once the batch had completed
};

// Runs `pairs` (flush, call) pairs of the case as one timed batch.
using RunFlushedBatch = std::function<FlushedBatch(int pairs)>;

// The cold procedure: warm-up batches of `pairs_per_batch` pairs until the SM clock is steady
// (ClockSettle, as the hot procedure's warm-up), then batches of them until the ColdSeries has
// `pairs_wanted` calls (a batch off the steady clock is left out with its calls, and counted).
// No probe: the batch size is the launch queue's (cold_pairs_per_batch), not a time target, and
// there is no noise stop (a single call's spread is mostly the events' resolution; the call count
// makes the mean precise). pairs_per_batch >= 1.
SampledBatches measure_flushed_calls(const SamplingPolicy& policy, double last_steady_mhz,
                                     int pairs_per_batch, int pairs_wanted,
                                     const RunFlushedBatch& run_batch);

// The run plan's model of the procedure for a call of `call_s` seconds of GPU time (what the
// batch queues per call, launches included): the probe and `steady_readings` warm-up batches (a
// GPU coming from another case's clock needs two readings in a row; one already at its clock
// needs one) as warm-up, then samples of calls_for_target calls up to the time budget, at most
// max_samples (the noise stop may end earlier: the plan keeps the bound). Each batch adds a
// synchronisation round trip (rates.sync_s).
CaseCost planned_sampling_cost(double call_s, int max_calls, const SamplingPolicy& policy,
                               const ModelRates& rates);

// The run plan's model of the cold procedure for a call of `call_s` seconds enqueuing
// `kernels_per_call` kernels: batches of cold_pairs_per_batch(kernels_per_call,
// max_queued_kernels) pairs, each pair the call, one L2 flush (rates.l2_flush_s) and the host
// queueing a memset and two event records (3 x rates.kernel_launch_s), each batch a
// synchronisation round trip more; warm-up batches as planned_sampling_cost counts them (no
// probe); cold_batches(cold_pairs_per_repetition(profile), pairs per batch) timed batches.
CaseCost planned_flushed_cost(double call_s, int kernels_per_call, int max_queued_kernels,
                              Profile profile, const ModelRates& rates);

// The cache mode a run plan assumes for a working set: cache_mode on the reference GPU's L2
// (rates.l2_bytes, an H100/H200's 50 MiB).
CacheMode planned_cache_mode(std::uint64_t working_set_bytes, const ModelRates& rates);

}  // namespace gpubench::suite
