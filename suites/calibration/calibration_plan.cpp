#include "suites/calibration/calibration_plan.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace gpubench::suites::calibration {

std::string case_name(const CalibrationCase& c) {
  return std::string("calibration/") + to_string(c.workload) +
         "/base_units:" + std::to_string(c.base_units);
}

suite::SuitePlan plan_calibration(const suite::PlanRequest& request, double scale) {
  const suite::ModelRates& r = suite::reference_rates();
  const int repetitions = suite::repetitions_of(request);
  suite::SuitePlan plan;
  plan.fixed_s = r.process_start_s;
  for (const CalibrationCase& c : k_cases) {
    const double unit_s = c.workload == Workload::hash_chain ? k_hash_unit_s : k_mul_add_unit_s;
    suite::CaseCost cost;
    cost.sample_s = static_cast<double>(scaled_work_units(c.base_units, scale)) * unit_s;
    cost.samples = static_cast<std::int64_t>(
        std::max<std::uint64_t>(1, k_units_per_repetition / c.base_units));
    cost.warmup_s = cost.sample_s;  // one untimed call per repetition
    plan.cases.push_back({case_name(c), suite::case_seconds(cost, repetitions, r)});
  }
  plan.assumptions =
      "single-threaded CPU chains: ~5 cycles per hash step and ~8 per multiply-add step at 3 GHz, "
      "scale " +
      std::to_string(scale) + "; " + suite::rates_summary(r);
  return plan;
}

}  // namespace gpubench::suites::calibration
