#include "suites/gemm/gemm_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "kernels/common/spin.hpp"
#include "suites/common/cuda/timing.hpp"

#include "suites/gemm/algorithm_search.hpp"

namespace gpubench::gemm {

namespace {
// The search constants are gemm_cases.hpp's and algorithm_search.hpp's (the runner uses the same;
// k_search_max_calls caps a search batch).
constexpr double k_search_batch_s = k_search_batch_ms * 1e-3;
constexpr double k_validation_elements = 12.0 * 12.0;
// The clock probe after every batch (hot, cold and warm-up alike).
constexpr double k_clock_probe_s = static_cast<double>(kernels::k_clock_probe_ns) * 1e-9;

double batch_seconds(double call_s, double target_s, int max_calls) {
  const double calls =
      std::clamp(std::ceil(target_s / call_s), 1.0, static_cast<double>(max_calls));
  return calls * call_s;
}

// One repetition's warm-up and timed batches. The plan cannot know a call's kernels before the
// algorithm is chosen: one per call.
void plan_samples(const GemmCase& c, suite::Profile profile, double call_s,
                  const suite::ModelRates& r, suite::CaseCost& cost) {
  const double per_batch_s = r.sync_s + k_clock_probe_s;
  if (c.cache == Cache::cold) {
    // A pair: the flush, the call, and the host queueing the memset and two event records.
    const double pair_s = call_s + r.l2_flush_s + 3 * r.kernel_launch_s;
    const int pairs = cold_pairs_per_batch(1, suite::cuda::k_max_queued_kernels);
    const double batch_s = pairs * pair_s;
    const PlannedBatches warm = planned_batches(suite::sampling_policy(profile), batch_s);
    cost.sample_s = batch_s + per_batch_s;
    cost.samples = cold_batches(cold_pairs_per_repetition(profile), pairs);
    cost.warmup_s = warm.warmup * cost.sample_s;
    return;
  }
  const suite::SamplingPolicy base = suite::sampling_policy(profile);
  const int calls =
      hot_calls_per_batch(call_s, base.batch_target_s, 1, suite::cuda::k_max_queued_kernels);
  const double batch_s = calls * call_s;
  const PlannedBatches planned = planned_batches(hot_policy(profile, batch_s), batch_s);
  cost.sample_s = batch_s + per_batch_s;
  cost.samples = planned.samples;
  cost.warmup_s = planned.warmup * cost.sample_s;
}
}  // namespace

namespace {
std::string ms(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g ms", seconds * 1e3);
  return text;
}
}  // namespace

double reference_flop_per_s(DType dtype, const suite::ModelRates& r) {
  switch (dtype) {
    case DType::fp64:
      return r.fp64_flop_per_s;
    case DType::fp32:
      return r.fp32_flop_per_s;
    case DType::tf32:
      return r.tf32_flop_per_s;
    case DType::fp16:
    case DType::bf16:
      return r.bf16_flop_per_s;
    case DType::fp8_e4m3:
      return r.fp8_flop_per_s;
    case DType::int8:
      return r.int8_flop_per_s;
  }
  return r.bf16_flop_per_s;
}

double planned_search_seconds(const GemmCase& c, int gpus, const suite::ModelRates& r) {
  if (gpus <= 0 || c.api != Api::cublaslt) return 0;
  const double call_s =
      gemm_flops(c.m, c.n, c.k) / reference_flop_per_s(c.dtype, r) + r.kernel_launch_s;
  const int batches = search_samples(call_s * 1e3);
  const double per_candidate =
      2 * call_s + batches * batch_seconds(call_s, k_search_batch_s, k_search_max_calls) +
      (batches + 2) * r.sync_s;
  return k_search_candidates * per_candidate;
}

double planned_case_seconds(const GemmCase& c, int gpus, int repetitions, suite::Profile profile,
                            const suite::ModelRates& r) {
  if (gpus <= 0) return suite::skipped_case_seconds(repetitions, r);
  const double call_s =
      gemm_flops(c.m, c.n, c.k) / reference_flop_per_s(c.dtype, r) + r.kernel_launch_s;
  suite::CaseCost cost;
  // Operands: allocated and filled on the device once per case.
  cost.once_s = 4 * r.per_allocation_s +
                suite::transfer_seconds(static_cast<double>(operand_bytes(c)), r.hbm_bytes_per_s);
  cost.once_s += planned_search_seconds(c, gpus, r);
  plan_samples(c, profile, call_s, r, cost);
  // Sampled validation: 144 dot products of length k on the host, plus the read-back.
  cost.validation_s =
      r.validation_s + k_validation_elements * 2.0 * static_cast<double>(c.k) / r.host_flop_per_s;
  return suite::case_seconds(cost, repetitions, r);
}

suite::SuitePlan plan_gemm(const suite::PlanRequest& request) {
  const suite::ModelRates& r = suite::reference_rates();
  const int repetitions = suite::repetitions_of(request);
  const suite::SamplingPolicy policy = suite::sampling_policy(request.profile);
  suite::SuitePlan plan;
  plan.fixed_s = suite::startup_seconds(request.gpus, r);
  for (const GemmCase& c : gemm_cases(request.profile, suite::plan_devices(request.gpus))) {
    plan.cases.push_back({benchmark_name(c),
                          planned_case_seconds(c, request.gpus, repetitions, request.profile, r)});
    // Later executions of the run reuse the first one's choice (algorithm_store.hpp): only the
    // check and one warm-up call, counted in the case's other costs.
    plan.reused_s += planned_search_seconds(c, request.gpus, r);
  }
  plan.assumptions =
      "per case: operands filled and the cuBLASLt algorithm searched once a run (" +
      std::to_string(k_search_candidates) + " candidates x " +
      std::to_string(k_search_samples_per_candidate) + " batches of ~1 ms, " +
      std::to_string(k_search_samples_long_call) + " for calls of >= 10 ms" +
      ", in the first execution; later executions reuse the "
      "choice), then per repetition: hot, " +
      std::to_string(policy.steady_readings) + " warm-up batches and up to " +
      std::to_string(policy.max_samples) + " batches of >= " + ms(policy.batch_target_s) +
      " (the noise stop not counted; at least " + std::to_string(policy.min_samples) +
      " batches of one call for long calls); cold, " +
      std::to_string(cold_pairs_per_repetition(request.profile)) +
      " (L2 flush, call) pairs in batches of " +
      std::to_string(cold_pairs_per_batch(1, suite::cuda::k_max_queued_kernels)) +
      " after warm-up batches; a clock probe after every batch; a "
      "sampled host validation; " +
      suite::rates_summary(r);
  return plan;
}

}  // namespace gpubench::gemm
