#include "suites/common/sampled_batches.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gpubench::suite {

std::vector<SampleWindow> SampledBatches::kept_windows() const {
  const std::vector<bool> off = batches().off_clock_flags();
  const bool all_off =
      !off.empty() && std::all_of(off.begin(), off.end(), [](bool f) { return f; });
  std::vector<SampleWindow> out;
  for (std::size_t i = 0; i < windows.size() && i < off.size(); ++i)
    if (all_off || !off[i]) out.push_back(windows[i]);
  return out;
}

void SampledBatches::record_kept(SampleStateRecorder& states) const {
  // The recorder keeps the lowest clock and the span of the windows it is given.
  for (const SampleWindow& w : kept_windows()) states.add(w.sm_clock_mhz, w.start_s, w.end_s);
}

void SampledBatches::write_counters(benchmark::State& state) const {
  if (!cold) {
    write_sampling_counters(state, series);
    return;
  }
  state.counters[k_samples_counter] = static_cast<double>(cold->kept().size());
  state.counters[k_off_clock_counter] = cold->off_clock();
  state.counters[k_noise_counter] = 100.0 * cold->noise();
}

std::string SampledBatches::summary() const {
  const std::string warmup =
      " warmup=" + std::to_string(warmup_batches) + (warmup_steady ? " (steady) " : " (budget) ");
  if (cold) {
    return std::string(to_string(CacheMode::cold)) +
           " pairs_per_batch=" + std::to_string(calls_per_batch) + warmup + cold->summary();
  }
  return std::string(to_string(CacheMode::hot)) +
         " calls_per_sample=" + std::to_string(calls_per_batch) + warmup + series.summary();
}

SampledBatches measure_batches(const SamplingPolicy& policy, double last_steady_mhz, int max_calls,
                               const RunBatch& run_batch) {
  SampledBatches out(policy);
  max_calls = std::max(max_calls, 1);
  const TimedBatch probe = run_batch(1);
  int calls = calls_for_target(probe.elapsed_s, policy.batch_target_s, max_calls);

  ClockSettle warm(policy, last_steady_mhz);
  TimedBatch last;
  do {
    last = run_batch(calls);
    warm.add(last.sm_clock_mhz, last.elapsed_s);
  } while (!warm.done());
  out.warmup_batches = warm.batches();
  out.warmup_steady = warm.steady();
  if (last.elapsed_s > 0)
    calls = calls_for_target(last.elapsed_s / calls, policy.batch_target_s, max_calls);
  out.calls_per_batch = calls;

  do {
    const TimedBatch b = run_batch(calls);
    out.series.add(b.elapsed_s / calls, b.sm_clock_mhz, b.elapsed_s);
    out.windows.push_back({b.end_s - std::max(b.elapsed_s, 0.0), b.end_s, b.sm_clock_mhz});
  } while (!out.series.done());
  return out;
}

SampledBatches measure_flushed_calls(const SamplingPolicy& policy, double last_steady_mhz,
                                     int pairs_per_batch, int pairs_wanted,
                                     const RunFlushedBatch& run_batch) {
  SampledBatches out(policy, pairs_wanted);
  pairs_per_batch = std::max(pairs_per_batch, 1);
  out.calls_per_batch = pairs_per_batch;
  ClockSettle warm(policy, last_steady_mhz);
  do {
    const FlushedBatch b = run_batch(pairs_per_batch);
    warm.add(b.sm_clock_mhz, b.elapsed_s);
  } while (!warm.done());
  out.warmup_batches = warm.batches();
  out.warmup_steady = warm.steady();
  do {
    const FlushedBatch b = run_batch(pairs_per_batch);
    if (b.call_s.empty()) throw std::logic_error("a batch of flushed calls returned no call");
    out.cold->add_batch(b.call_s, b.sm_clock_mhz, b.elapsed_s);
    out.windows.push_back({b.end_s - std::max(b.elapsed_s, 0.0), b.end_s, b.sm_clock_mhz});
  } while (!out.cold->done());
  return out;
}

namespace {
// Warm-up batches the plan counts: the GPU arrives from another case's clock, so it needs
// steady_readings readings in a row, fewer when the warm-up budget ends it first, at least
// min_warmup_batches.
double planned_warmup_batches(const SamplingPolicy& policy, double gpu_batch_s) {
  const double within_budget =
      gpu_batch_s > 0 ? std::max(1.0, std::ceil(policy.warmup_budget_s / gpu_batch_s)) : 1.0;
  return std::max<double>(std::max(policy.min_warmup_batches, 1),
                          std::min<double>(policy.steady_readings, within_budget));
}
}  // namespace

CaseCost planned_sampling_cost(double call_s, int max_calls, const SamplingPolicy& policy,
                               const ModelRates& rates) {
  const int calls = calls_for_target(call_s, policy.batch_target_s, max_calls);
  const double gpu_batch_s = calls * std::max(call_s, 0.0);
  const double batch_s = gpu_batch_s + rates.sync_s;
  const auto batches_within = [&](double budget_s) {
    if (!(gpu_batch_s > 0)) return 1.0;
    return std::max(1.0, std::ceil(budget_s / gpu_batch_s));
  };
  const double warmup_batches = planned_warmup_batches(policy, gpu_batch_s);
  CaseCost cost;
  cost.warmup_s = std::max(call_s, 0.0) + rates.sync_s + warmup_batches * batch_s;
  cost.sample_s = batch_s;
  cost.samples = static_cast<std::int64_t>(
      std::min<double>(policy.max_samples, batches_within(policy.time_budget_s)));
  return cost;
}

CaseCost planned_flushed_cost(double call_s, int kernels_per_call, int max_queued_kernels,
                              Profile profile, const ModelRates& rates) {
  const int pairs = cold_pairs_per_batch(kernels_per_call, max_queued_kernels);
  const double pair_s = std::max(call_s, 0.0) + rates.l2_flush_s + 3 * rates.kernel_launch_s;
  const double gpu_batch_s = pairs * pair_s;
  CaseCost cost;
  cost.sample_s = gpu_batch_s + rates.sync_s;
  cost.warmup_s = planned_warmup_batches(sampling_policy(profile), gpu_batch_s) * cost.sample_s;
  cost.samples = cold_batches(cold_pairs_per_repetition(profile), pairs);
  return cost;
}

CacheMode planned_cache_mode(std::uint64_t working_set_bytes, const ModelRates& rates) {
  return cache_mode(l2_placement(working_set_bytes, rates.l2_bytes), rates.l2_bytes);
}

}  // namespace gpubench::suite
