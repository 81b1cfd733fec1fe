// The transfer suite's run plan (suites/common/plan.hpp): its cases for a hypothetical server,
// from all_cases() itself, costed with the reference link rates.
#pragma once

#include "suites/common/plan.hpp"
#include "suites/transfer/transfer_cases.hpp"

namespace gpubench::transfer {

// Seconds one case takes per the model (`repetitions` repetitions of `samples` samples).
double planned_case_seconds(const TransferCase& c, int gpus, int repetitions, int samples,
                            const suite::ModelRates& rates);

suite::SuitePlan plan_transfer(const suite::PlanRequest& request, NumaRequest numa);

}  // namespace gpubench::transfer
