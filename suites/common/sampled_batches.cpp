#include "suites/common/sampled_batches.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace gpubench::suite {

std::vector<SampleWindow> SampledBatches::kept_windows() const {
  const std::vector<bool> off = series.off_clock_flags();
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

std::string SampledBatches::summary() const {
  return "calls_per_sample=" + std::to_string(calls_per_batch) +
         " warmup=" + std::to_string(warmup_batches) +
         (warmup_steady ? " (steady) " : " (budget) ") + series.summary();
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

CaseCost planned_sampling_cost(double call_s, int max_calls, const SamplingPolicy& policy,
                               const ModelRates& rates) {
  const int calls = calls_for_target(call_s, policy.batch_target_s, max_calls);
  const double gpu_batch_s = calls * std::max(call_s, 0.0);
  const double batch_s = gpu_batch_s + rates.sync_s;
  const auto batches_within = [&](double budget_s) {
    if (!(gpu_batch_s > 0)) return 1.0;
    return std::max(1.0, std::ceil(budget_s / gpu_batch_s));
  };
  const double warmup_batches = std::max<double>(
      std::max(policy.min_warmup_batches, 1),
      std::min<double>(policy.steady_readings, batches_within(policy.warmup_budget_s)));
  CaseCost cost;
  cost.warmup_s = std::max(call_s, 0.0) + rates.sync_s + warmup_batches * batch_s;
  cost.sample_s = batch_s;
  cost.samples = static_cast<std::int64_t>(
      std::min<double>(policy.max_samples, batches_within(policy.time_budget_s)));
  return cost;
}

}  // namespace gpubench::suite
