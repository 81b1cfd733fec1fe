#include "suites/launch/launch_plan.hpp"

#include "suites/launch/launch_runner.hpp"

namespace gpubench::launch {

double planned_case_seconds(const LaunchCase& c, int gpus, int repetitions, int samples,
                            const suite::ModelRates& r) {
  if (gpus <= 0) return suite::skipped_case_seconds(repetitions, r);
  double sample_s = 0;
  switch (c.kind) {
    case LaunchCaseKind::back_to_back:
      sample_s = c.kernels * r.kernel_launch_s + r.sync_s;
      break;
    case LaunchCaseKind::kernel_chain:
      // The chain launched one by one, then replayed as a graph, each waited for.
      sample_s = 2.0 * c.kernels * r.kernel_launch_s + 2.0 * r.sync_s;
      break;
    case LaunchCaseKind::launch_to_start:
      // A clock synchronisation (a few pings), then 20 launches each waited for.
      sample_s = 20 * (r.kernel_launch_s + r.sync_s) + 8 * r.sync_s;
      break;
    default:
      sample_s = k_calls_per_sample * (r.kernel_launch_s + r.sync_s);
      break;
  }
  suite::CaseCost cost;
  cost.setup_s = 4 * r.per_allocation_s;
  // kernel_chain: the chain captured and instantiated as a graph once per repetition.
  if (c.kind == LaunchCaseKind::kernel_chain) cost.setup_s += c.kernels * r.kernel_launch_s;
  cost.warmup_s = sample_s;
  cost.sample_s = sample_s;
  cost.samples = samples;
  return suite::case_seconds(cost, repetitions, r);
}

suite::SuitePlan plan_launch(const suite::PlanRequest& request) {
  const suite::ModelRates& r = suite::reference_rates();
  const int repetitions = suite::repetitions_of(request);
  suite::SuitePlan plan;
  plan.fixed_s = suite::startup_seconds(request.gpus, r);
  for (const LaunchCase& c : all_cases(request.profile, suite::plan_devices(request.gpus))) {
    plan.cases.push_back({case_name(c), planned_case_seconds(c, request.gpus, repetitions,
                                                             static_cast<int>(k_samples), r)});
  }
  plan.assumptions = "per case: " + std::to_string(k_samples) + " samples of " +
                     std::to_string(k_calls_per_sample) +
                     " synchronising calls (back_to_back: one batch of " +
                     std::to_string(k_back_to_back_kernels) +
                     " kernels; kernel_chain: the chain one by one and as a graph) per "
                     "repetition; " +
                     suite::rates_summary(r);
  return plan;
}

}  // namespace gpubench::launch
