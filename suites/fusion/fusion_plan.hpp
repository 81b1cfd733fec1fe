// The fusion suite's run plan (suites/common/plan.hpp): host_cases() for this machine's CPUs and
// device_cases() for the server's GPUs, costed from the bytes each variant moves.
#pragma once

#include "suites/common/plan.hpp"
#include "suites/fusion/fusion_cases.hpp"

namespace gpubench::fusion {

double planned_case_seconds(const FusionCase& c, int gpus, int repetitions,
                            const suite::ModelRates& r);

// `device_cases_built`: false when the suite was built without CUDA (no device cases).
suite::SuitePlan plan_fusion(const suite::PlanRequest& request, bool device_cases_built);

}  // namespace gpubench::fusion
