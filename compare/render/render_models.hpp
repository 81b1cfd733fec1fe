// Rendering of `gpubench models` and `gpubench fleet` (issue 24): text, Markdown (a purchase
// memo), JSON, CSV and self-contained HTML (one bar chart per headline figure, models side by
// side, intervals drawn). JSON: compare/SCHEMA.md (gpubench.models/1, gpubench.fleet/1).
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "compare/models/fleet.hpp"
#include "compare/models/models.hpp"

namespace gpubench::compare {

// format: text, md, html, json, csv.
void render_models(std::ostream& out, const ModelsTable& table, const std::string& format);

struct FleetOptions {
  OutlierRule rule;
  std::string suite;
  std::string metric;
  // Which of the selected runs were used, for the head of the output: "the newest run of each
  // host" (the default), "the newest 3 runs of each host", "every selected run".
  std::string runs_used;
};
// format: text, json, html. Lists every series' median and MAD and each GPU's robust z.
void render_fleet(std::ostream& out, const Fleet& fleet, const Observations& obs,
                  const FleetOptions& options, const std::string& format);

// An outlier GPU as `models` (its "excluded") and `fleet` (its "outliers") write it: a value
// that is not finite is null, a robust z that is not finite "inf"/"-inf".
nlohmann::json fleet_outlier_json(const FleetOutlier& o);

// A horizontal bar chart: one bar per row from 0 to value, its interval as a whisker. Labels in
// the left column (class "lab"), as wide as the longest.
struct BarRow {
  std::string label;
  double value = 0;
  double low = 0;  // NaN: no interval
  double high = 0;
};
void bar_chart(std::ostream& out, const std::string& title, const std::string& unit,
               const std::vector<BarRow>& rows);

}  // namespace gpubench::compare
