// One run as OpenMetrics text for node_exporter's textfile collector (Prometheus, Grafana).
//
// Families (all gauges, no timestamps: the textfile collector rejects them; the run's info family
// is the gauge gpubench_run_info, not the OpenMetrics type "info", which the Prometheus text
// parser of node_exporter and promtool rejects):
//   gpubench_run_info{host, run_uuid, run_id, status, profile, driver, cuda_runtime, gpubench}  1
//   gpubench_result_<unit>{host, gpu_uuid, gpu_model, device, suite, benchmark, metric}  median
//     (over the values of every execution of the suite: rows of one series are pooled)
//     <unit>: seconds (ns/us/ms/s), bytes_per_second (B/s ... GB/s), flop_per_second (TFLOP/s...),
//     hertz (MHz), ratio (%, fraction); other units in gpubench_result{..., unit="..."}
//   gpubench_change_ratio{..., baseline} and gpubench_verdict{..., baseline, verdict}  1
//     (only with a comparison: candidate median / baseline median, and the verdict of primary
//     metrics only, so count() over it equals compare's counts; none when the baseline is the run)
//   gpubench_change_speedup_ratio{..., baseline}  (primary metrics with a direction: the change
//     ratio with the direction applied, > 1 better; what the dashboard's worse/better summary
//     reads)
//   gpubench_telemetry_*{host, gpu_uuid, gpu_model, device}: samples, throttled samples, peaks
//   gpubench_doctor_check{host, check, area, status}  1
// Names and units follow Prometheus conventions (base units, _seconds, _bytes_per_second); label
// values are escaped per the OpenMetrics text format; the output ends with "# EOF".
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "results/doctor_store.hpp"
#include "results/store.hpp"

namespace gpubench::compare {

struct OpenMetricsInput {
  results::RunDetail run;
  std::vector<results::ResultRow> rows;
  // When set, the results are read from it (it calls its argument once per row, in order)
  // instead of from `rows`: `export` streams them from the store (issue 16).
  std::function<void(const std::function<void(const results::ResultRow&)>&)> row_source;
  std::vector<results::TelemetrySummary> telemetry;
  std::vector<results::DoctorCheck> doctor;
  const Comparison* comparison = nullptr;  // with --against: the run vs the baseline
  std::string baseline;                    // the baseline as the user named it
};

void render_openmetrics(const OpenMetricsInput& input, std::ostream& out);

// Prometheus unit family suffix and the conversion to base units for a gpubench unit ("GB/s" ->
// {"bytes_per_second", x 1e9}, "ns" -> {"seconds", / 1e9}: dividing by an exact power of ten keeps
// 2000 ns = 2e-06 s exact where multiplying by 1e-9 would not); empty suffix when the unit has no
// base-unit mapping.
struct BaseUnit {
  std::string suffix;
  double multiplier = 1;
  double divisor = 1;
  double to_base(double value) const { return value * multiplier / divisor; }
};
BaseUnit prometheus_unit(const std::string& unit);

// A label value escaped for the text format (backslash, double quote, newline).
std::string escape_label_value(const std::string& value);

}  // namespace gpubench::compare
