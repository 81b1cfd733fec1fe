// The launch suite's run plan (suites/common/plan.hpp): all_cases() for the server's GPUs. Every
// case is launch- or synchronisation-bound, so its cost is calls x the reference per-call costs.
#pragma once

#include "suites/common/plan.hpp"
#include "suites/launch/launch_cases.hpp"

namespace gpubench::launch {

double planned_case_seconds(const LaunchCase& c, int gpus, int repetitions, int samples,
                            const suite::ModelRates& r);

suite::SuitePlan plan_launch(const suite::PlanRequest& request);

}  // namespace gpubench::launch
