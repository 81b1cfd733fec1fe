// The calibration suite's run plan (suites/common/plan.hpp): k_cases at the scale in effect.
#pragma once

#include <string>

#include "suites/calibration/calibration_work.hpp"
#include "suites/common/plan.hpp"

namespace gpubench::suites::calibration {

// "calibration/<workload>/base_units:<n>", as the suite registers it.
std::string case_name(const CalibrationCase& c);

// Model: one unit is a dependent chain step of ~5 (hash) or ~8 (multiply-add) cycles at 3 GHz.
inline constexpr double k_hash_unit_s = 5.0 / 3e9;
inline constexpr double k_mul_add_unit_s = 8.0 / 3e9;

suite::SuitePlan plan_calibration(const suite::PlanRequest& request, double scale);

}  // namespace gpubench::suites::calibration
