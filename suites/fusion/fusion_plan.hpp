// The fusion suite's run plan (suites/common/plan.hpp): host_cases() for this machine's CPUs and
// device_cases() for the server's GPUs, costed from the bytes each variant moves.
#pragma once

#include "suites/common/plan.hpp"
#include "suites/fusion/fusion_cases.hpp"

namespace gpubench::fusion {

// Seconds one case takes over `repetitions` repetitions on a server of `gpus` GPUs (device cases:
// the sampled measurement of the profile's suite::SamplingPolicy).
double planned_case_seconds(const FusionCase& c, suite::Profile profile, int gpus, int repetitions,
                            const suite::ModelRates& r);

// `device_cases_built`: false when the suite was built without CUDA (no device cases).
suite::SuitePlan plan_fusion(const suite::PlanRequest& request, bool device_cases_built);

}  // namespace gpubench::fusion
