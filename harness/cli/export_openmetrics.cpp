// Builds the OpenMetrics export of one run: results, telemetry, doctor checks, and with --against
// the comparison with a baseline.
#include "harness/cli/export_openmetrics.hpp"

#include <optional>
#include <ostream>

#include "compare/compare.hpp"
#include "compare/render/openmetrics.hpp"
#include "compare/run_noise.hpp"
#include "compare/selection.hpp"
#include "harness/cli/run_json.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::cli {

void write_openmetrics_export(results::Store& store, int64_t run_id, const std::string& against,
                              std::ostream& out, std::ostream& err) {
  compare::OpenMetricsInput input;
  input.run = store.get_run(run_id);
  // Rows stream from the store into the families; only the text of each sample is kept.
  input.row_source = rows_of(store, run_id);
  input.telemetry = store.get_telemetry_summary(run_id);
  input.doctor = results::get_doctor_checks(store, run_id);
  std::optional<compare::Comparison> cmp;
  if (!against.empty()) {
    // A bare name that is a baseline means that baseline; anything else is a selection.
    std::string selection = against;
    std::vector<std::string> names;
    for (const auto& b : compare::list_baselines(store)) {
      names.push_back(b.name);
      if (selection.find(':') == std::string::npos && b.name == against) {
        selection = "baseline:" + against;
      }
    }
    std::pair<compare::Side, compare::Side> sides;
    try {
      // The baseline and this run read at once; rows of metrics compare does not look at
      // (cpu_time) dropped as they are read.
      sides = compare::load_sides(store, selection, std::to_string(run_id), 1,
                                  [](const results::ResultRow& r) {
                                    return compare::compared_metric(r.metric, std::nullopt);
                                  });
    } catch (const Error& e) {
      if (e.code() != ExitCode::bad_input || selection != against) throw;
      throw bad_input("unknown --against '" + against + "'",
                      "neither a baseline (known: " +
                          (names.empty() ? std::string("none") : join(names, ", ")) +
                          ") nor a run: " + e.what(),
                      "name a baseline ('gpubench baseline list') or a run ('gpubench runs')");
    }
    compare::Side& base = sides.first;
    compare::Side& candidate = sides.second;
    for (const results::RunDetail& r : base.runs) {
      if (r.run.id != run_id) continue;
      // `compare` refuses this pair (check_disjoint); a verdict of a run against itself would be
      // 35 "inconclusive" series on a dashboard.
      err << "gpubench: note: --against '" << against << "' is run " << run_id
          << " itself: no change ratios or verdicts written (set the baseline to an earlier run, "
             "or export the next run against it)\n";
      compare::render_openmetrics(input, out);
      return;
    }
    compare::Options options;
    const compare::HistoryNoise history = compare::load_history_noise(
        store, base, candidate, compare::k_default_history_window, options.metric);
    options.history = &history;
    cmp = compare::compare_sides(base, candidate, options);
    input.comparison = &*cmp;
    input.baseline = against;
  }
  compare::render_openmetrics(input, out);
}

}  // namespace gpubench::cli
