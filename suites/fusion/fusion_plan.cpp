#include "suites/fusion/fusion_plan.hpp"

#include <algorithm>
#include <cmath>

#include "suites/common/sampled_batches.hpp"
#include "suites/common/sampling.hpp"
#include "suites/memory/thread_pool.hpp"

namespace gpubench::fusion {

namespace {
// Validation (fusion_validation.hpp): 8 rows checked against the host reference, a few FLOPs per
// element of GELU, LayerNorm or softmax.
constexpr double k_validated_rows = 8.0;
constexpr double k_reference_flops_per_element = 20.0;
}  // namespace

double planned_case_seconds(const FusionCase& c, suite::Profile profile, int gpus, int repetitions,
                            const suite::ModelRates& r) {
  const auto bytes = static_cast<double>(variant_bytes(c));
  suite::CaseCost cost;
  if (c.on_host()) {
    const double rate = std::min(c.threads * r.host_thread_bytes_per_s, r.host_memory_bytes_per_s);
    cost.sample_s = suite::transfer_seconds(bytes, rate);
    const int iterations = host_iterations(c.tokens, c.hidden);
    cost.samples = iterations * host_calls_per_iteration(cost.sample_s, iterations);
    cost.warmup_s = 4 * cost.sample_s;  // the validated call and the 3-call probe
    return suite::case_seconds(cost, repetitions, r);
  }
  if (gpus <= 0) return suite::skipped_case_seconds(repetitions, r);
  double call_s =
      suite::transfer_seconds(bytes, r.hbm_bytes_per_s) + launches_per_call(c) * r.kernel_launch_s;
  if (c.family == Family::gemm_bias_gelu) call_s += gemm_flops(c) / r.bf16_flop_per_s;
  // The sampled measurement (suites/common/sampled_batches.hpp), batches capped at 400 kernels
  // as device_fusion.cpp caps them; cold (flushed pairs) where the shape's working set straddles
  // the reference L2, as device_fusion.cpp decides it (device_cache_mode).
  const int max_calls = std::max(1, k_max_kernels_per_batch / std::max(kernels_per_call(c), 1));
  const suite::CaseCost sampled =
      device_cache_mode(c, r.l2_bytes) == suite::CacheMode::cold
          ? suite::planned_flushed_cost(call_s, kernels_per_call(c), k_max_kernels_per_batch,
                                        profile, r)
          : suite::planned_sampling_cost(call_s, max_calls, suite::sampling_policy(profile), r);
  cost.warmup_s = sampled.warmup_s;
  cost.sample_s = sampled.sample_s;
  cost.samples = sampled.samples;
  // Per checked element: the family's few FLOPs, plus (GEMM) its dot product of in_features.
  const double flops_per_element =
      k_reference_flops_per_element +
      (c.family == Family::gemm_bias_gelu ? 2.0 * static_cast<double>(c.in_features) : 0.0);
  cost.once_s = 6 * r.per_allocation_s + suite::transfer_seconds(bytes, r.hbm_bytes_per_s);
  cost.validation_s = r.validation_s + k_validated_rows * static_cast<double>(c.hidden) *
                                           flops_per_element / r.host_flop_per_s;
  return suite::case_seconds(cost, repetitions, r);
}

suite::SuitePlan plan_fusion(const suite::PlanRequest& request, bool device_cases_built) {
  const suite::ModelRates& r = suite::reference_rates();
  const int repetitions = suite::repetitions_of(request);
  const int cpus = suites::memory::usable_cpu_count();
  suite::SuitePlan plan;
  plan.fixed_s = suite::startup_seconds(device_cases_built ? request.gpus : 0, r);
  for (const FusionCase& c : host_cases(request.profile, cpus)) {
    plan.cases.push_back({benchmark_name(c),
                          planned_case_seconds(c, request.profile, request.gpus, repetitions, r)});
  }
  if (device_cases_built) {
    for (const FusionCase& c : device_cases(request.profile, suite::plan_devices(request.gpus))) {
      plan.cases.push_back({benchmark_name(c), planned_case_seconds(c, request.profile,
                                                                    request.gpus, repetitions, r)});
    }
  }
  const suite::SamplingPolicy policy = suite::sampling_policy(request.profile);
  plan.assumptions =
      "host cases on this machine's " + std::to_string(cpus) +
      " usable CPUs; device cases per repetition: a 1-call probe, " +
      std::to_string(policy.steady_readings) + " warm-up batches and at most " +
      std::to_string(policy.max_samples) +
      " samples of >= " + std::to_string(static_cast<int>(policy.batch_target_s * 1e3 + 0.5)) +
      " ms (the noise stop may end earlier), validated against the host reference; shapes whose "
      "working set straddles a " +
      std::to_string(r.l2_bytes >> 20) +
      " MiB L2 cold: " + std::to_string(suite::cold_pairs_per_repetition(request.profile)) +
      " (L2 flush, call) pairs; " + suite::rates_summary(r);
  return plan;
}

}  // namespace gpubench::fusion
