// Builds the OpenMetrics export of one run: results, telemetry, doctor checks, and with --against
// the comparison with a baseline.
#include "harness/export_openmetrics.hpp"

#include <optional>
#include <sstream>

#include "compare/history.hpp"
#include "compare/openmetrics.hpp"
#include "compare/selection.hpp"

namespace gpubench::cli {

std::string openmetrics_export(results::Store& store, int64_t run_id, const std::string& against) {
  compare::OpenMetricsInput input;
  input.run = store.get_run(run_id);
  input.rows = store.get_results(run_id);
  input.telemetry = store.get_telemetry_summary(run_id);
  input.doctor = results::get_doctor_checks(store, run_id);
  std::optional<compare::Comparison> cmp;
  if (!against.empty()) {
    // A bare name that is a baseline means that baseline; anything else is a selection.
    std::string selection = against;
    if (selection.find(':') == std::string::npos) {
      for (const auto& b : compare::list_baselines(store)) {
        if (b.name == against) selection = "baseline:" + against;
      }
    }
    compare::Side base = compare::load_side(store, selection);
    compare::Side candidate = compare::load_side(store, std::to_string(run_id));
    compare::Options options;
    const compare::HistoryNoise history = compare::load_history_noise(
        store, base, candidate, compare::k_default_history_window, options.metric);
    options.history = &history;
    cmp = compare::compare_sides(base, candidate, options);
    input.comparison = &*cmp;
    input.baseline = against;
  }
  std::ostringstream out;
  compare::render_openmetrics(input, out);
  return out.str();
}

}  // namespace gpubench::cli
