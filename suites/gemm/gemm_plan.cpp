#include "suites/gemm/gemm_plan.hpp"

#include <algorithm>
#include <cmath>

#include "suites/gemm/algorithm_search.hpp"

namespace gpubench::gemm {

namespace {
// The search constants are gemm_cases.hpp's and algorithm_search.hpp's (the runner uses the same;
// k_search_max_calls caps a search batch); as gemm_runner.cpp, hot samples ~5 ms at most 200 calls.
constexpr double k_search_batch_s = k_search_batch_ms * 1e-3;
constexpr double k_hot_batch_s = 5e-3;
constexpr int k_hot_max_calls = 200;
constexpr double k_validation_elements = 12.0 * 12.0;

double batch_seconds(double call_s, double target_s, int max_calls) {
  const double calls =
      std::clamp(std::ceil(target_s / call_s), 1.0, static_cast<double>(max_calls));
  return calls * call_s;
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

double planned_case_seconds(const GemmCase& c, int gpus, int repetitions, int iterations,
                            const suite::ModelRates& r) {
  if (gpus <= 0) return suite::skipped_case_seconds(repetitions, r);
  const double call_s =
      gemm_flops(c.m, c.n, c.k) / reference_flop_per_s(c.dtype, r) + r.kernel_launch_s;
  suite::CaseCost cost;
  // Operands: allocated and filled on the device once per case.
  cost.once_s = 4 * r.per_allocation_s +
                suite::transfer_seconds(static_cast<double>(operand_bytes(c)), r.hbm_bytes_per_s);
  cost.once_s += planned_search_seconds(c, gpus, r);
  const double sample_s = c.cache == Cache::cold
                              ? call_s + r.l2_flush_s + r.sync_s
                              : batch_seconds(call_s, k_hot_batch_s, k_hot_max_calls) + r.sync_s;
  cost.sample_s = sample_s;
  cost.samples = iterations;
  cost.warmup_s = sample_s;
  // Sampled validation: 144 dot products of length k on the host, plus the read-back.
  cost.validation_s =
      r.validation_s + k_validation_elements * 2.0 * static_cast<double>(c.k) / r.host_flop_per_s;
  return suite::case_seconds(cost, repetitions, r);
}

suite::SuitePlan plan_gemm(const suite::PlanRequest& request) {
  const suite::ModelRates& r = suite::reference_rates();
  const int repetitions = suite::repetitions_of(request);
  const int iterations = timed_iterations(request.profile);
  suite::SuitePlan plan;
  plan.fixed_s = suite::startup_seconds(request.gpus, r);
  for (const GemmCase& c : gemm_cases(request.profile, suite::plan_devices(request.gpus))) {
    plan.cases.push_back(
        {benchmark_name(c), planned_case_seconds(c, request.gpus, repetitions, iterations, r)});
    // Later executions of the run reuse the first one's choice (algorithm_store.hpp): only the
    // check and one warm-up call, counted in the case's other costs.
    plan.reused_s += planned_search_seconds(c, request.gpus, r);
  }
  plan.assumptions = "per case: operands filled and the cuBLASLt algorithm searched once a run (" +
                     std::to_string(k_search_candidates) + " candidates x " +
                     std::to_string(k_search_samples_per_candidate) + " batches of ~1 ms, " +
                     std::to_string(k_search_samples_long_call) + " for calls of >= 10 ms" +
                     ", in the first execution; later executions reuse the "
                     "choice), then per repetition " +
                     std::to_string(iterations) +
                     " timed batches of >= 5 ms (cold: single calls after an L2 flush) and a "
                     "sampled host validation; " +
                     suite::rates_summary(r);
  return plan;
}

}  // namespace gpubench::gemm
