// The dataloader suite's run plan (suites/common/plan.hpp): case_outlines() costed with the
// reference host I/O rates. The worker sweep is this machine's (2 x its cores), as the suite's.
#pragma once

#include "suites/common/plan.hpp"
#include "suites/dataloader/dataloader_cases.hpp"

namespace gpubench::dataloader {

// Seconds of one outlined case over `repetitions` repetitions.
double planned_case_seconds(const CaseOutline& c, int repetitions, const suite::ModelRates& r);

// `config` as load_suite_config gives it for request.profile.
suite::SuitePlan plan_dataloader(const suite::PlanRequest& request, const SuiteConfig& config);

}  // namespace gpubench::dataloader
