// The gemm suite's run plan (suites/common/plan.hpp): gemm_cases() for the server's GPUs, costed
// at the reference Tensor Core rates.
#pragma once

#include "suites/common/plan.hpp"
#include "suites/gemm/gemm_cases.hpp"

namespace gpubench::gemm {

// FLOP/s a large GEMM of `dtype` reaches on the reference GPU (model assumption).
double reference_flop_per_s(DType dtype, const suite::ModelRates& r);
// Seconds one case takes: operands filled once, cuBLASLt's algorithm search once (16 candidates,
// each a warm-up call and 5 batches of >= 1 ms), then per repetition the warm-up and timed
// batches of the profile (planned_batches: hot, batches of the profile's target without the noise
// stop; cold, cold_pairs_per_repetition (flush, call) pairs), a clock probe after each, and the
// sampled validation.
double planned_case_seconds(const GemmCase& c, int gpus, int repetitions, suite::Profile profile,
                            const suite::ModelRates& r);
// The search's part of it (0 for cublasGemmEx cases and without GPUs): paid by a run's first
// execution only (suites/gemm/algorithm_store.hpp).
double planned_search_seconds(const GemmCase& c, int gpus, const suite::ModelRates& r);

suite::SuitePlan plan_gemm(const suite::PlanRequest& request);

}  // namespace gpubench::gemm
