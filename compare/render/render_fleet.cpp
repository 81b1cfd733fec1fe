// `gpubench fleet` in text, JSON and HTML (compare/render/render_models.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compare/render/html_style.hpp"
#include "compare/render/lists.hpp"
#include "compare/render/render.hpp"
#include "compare/render/render_models.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::compare {
namespace {

// GPUs seen per model name, in name order: the JSON's gpus_per_model and the text's sections.
std::map<std::string, int> gpus_per_model(const Observations& obs) {
  std::map<std::string, int> per_model;
  for (const GpuFacts& g : obs.gpus) per_model[g.info.name]++;
  return per_model;
}

using nlohmann::json;

std::string num(double v) {
  return std::isfinite(v) ? format_significant(v, 4) : (v < 0 ? "-inf" : "inf");
}
json number(double v) {
  return std::isfinite(v) ? json(v) : json(v < 0 ? "-inf" : "inf");
}

std::string outlier_line(const FleetOutlier& o) {
  char dev[32];
  std::snprintf(dev, sizeof dev, "%+.1f%%", 100 * o.deviation);
  std::string s = "OUTLIER " + o.uuid + " host " + o.host + " bus " + o.pci_bus_id +
                  " NVML index " + std::to_string(o.nvml_index) + ": " + o.benchmark + " " +
                  o.metric + " " + num(o.value) + " vs median " + num(o.model_median) + " (" + dev +
                  ", robust z " + num(o.z) + ", outlier on " + std::to_string(o.series) +
                  " series)";
  s += o.differences.empty() ? "; no environment difference recorded"
                             : "; differs: " + join(o.differences, "; ");
  return s;
}

json fleet_json(const Fleet& fleet, const Observations& obs, const FleetOptions& options) {
  json series = json::array();
  for (const FleetSeries& s : fleet.series) {
    json gpus = json::array();
    for (const GpuScore& g : s.gpus) {
      const GpuFacts* f = obs.gpu(g.uuid);
      gpus.push_back({{"uuid", g.uuid},
                      {"host", f ? f->host : ""},
                      {"pci_bus_id", f ? f->info.pci_bus_id : ""},
                      {"value", g.value},
                      {"robust_z", number(g.z)},
                      {"deviation", g.deviation},
                      {"outlier", g.outlier}});
    }
    series.push_back({{"gpu_model", s.gpu_model},
                      {"suite", s.suite},
                      {"benchmark", s.benchmark},
                      {"metric", s.metric},
                      {"unit", s.unit},
                      {"direction", direction_text(s.direction)},
                      {"median", s.median},
                      {"mad", s.mad},
                      {"gpus", gpus}});
  }
  json outliers = json::array();
  for (const FleetOutlier& o : fleet.outliers) {
    outliers.push_back(fleet_outlier_json(o));
  }
  return {{"schema", "gpubench.fleet/1"},
          {"z_threshold", options.rule.z_threshold},
          {"min_effect", options.rule.min_effect},
          {"suite", options.suite.empty() ? json(nullptr) : json(options.suite)},
          {"metric", options.metric.empty() ? json(nullptr) : json(options.metric)},
          {"runs", obs.runs},
          {"runs_used", options.runs_used},
          {"gpus_per_model", gpus_per_model(obs)},
          {"series", series},
          {"outliers", outliers}};
}

// `width`: the text's columns (0: no limit): names shortened as charts label them when the
// table would not fit, the table fitted and long lines wrapped (issue 26).
void fleet_text(std::ostream& out, const Fleet& fleet, const Observations& obs,
                const FleetOptions& options, std::size_t width) {
  char rule[128];
  std::snprintf(rule, sizeof rule, "worse than the model's median by > %g%% and |robust z| > %g",
                100 * options.rule.min_effect, options.rule.z_threshold);
  // At fleet scale (100 hosts) the runs and hosts in one short line, never a wrapped list.
  std::vector<std::string> hosts;
  for (const GpuFacts& g : obs.gpus) hosts.push_back(g.host);
  for (const Observation& o : obs.rows) {
    if (o.gpu_uuid.empty()) hosts.push_back(o.host);
  }
  out << "Fleet: " << runs_on_hosts(obs.runs, hosts)
      << (options.runs_used.empty() ? "" : " (" + options.runs_used + ")") << "; outlier = " << rule
      << "\n";
  // One set of shown names for every model's table: a benchmark reads the same in each.
  std::vector<std::string> names;
  std::size_t longest = 0;
  for (const FleetSeries& s : fleet.series) {
    names.push_back(s.benchmark);
    longest = std::max(longest, display_width(s.benchmark));
  }
  std::map<std::string, std::string> name;
  if (width != 0 && longest + 70 > width) {
    name = text_names(names);
  } else {
    for (const std::string& whole : names) name.emplace(whole, whole);
  }
  for (const auto& [model, n] : gpus_per_model(obs)) {
    out << '\n' << model << ": " << n << " GPU(s)\n";
    std::vector<std::vector<std::string>> rows = {
        {"benchmark", "metric", "GPUs", "median", "MAD", "worst GPU", "robust z"}};
    for (const FleetSeries& s : fleet.series) {
      if (s.gpu_model != model) continue;
      const GpuScore* worst = nullptr;
      for (const GpuScore& g : s.gpus) {
        if (g.worse && (!worst || std::fabs(g.z) > std::fabs(worst->z))) worst = &g;
      }
      rows.push_back({name.at(s.benchmark), s.metric, std::to_string(s.gpus.size()), num(s.median),
                      num(s.mad), worst ? worst->uuid + (worst->outlier ? " OUTLIER" : "") : "—",
                      worst ? num(worst->z) : "—"});
    }
    for (const std::string& line : fit_table(rows, width, "  ")) out << line << '\n';
    for (const FleetOutlier& o : fleet.outliers) {
      if (o.gpu_model == model) out << "  " << outlier_line(o) << '\n';
    }
  }
  out << '\n'
      << (fleet.outliers.empty() ? "no outlier GPU"
                                 : std::to_string(fleet.outliers.size()) + " outlier GPU(s)")
      << '\n';
}

}  // namespace

void render_fleet(std::ostream& out, const Fleet& fleet, const Observations& obs,
                  const FleetOptions& options, const std::string& format) {
  if (format == "json") {
    out << json_text(fleet_json(fleet, obs, options), 2) << '\n';
  } else if (format == "text") {
    std::ostringstream text;
    fleet_text(text, fleet, obs, options, output_width());
    out << wrap_lines(text.str(), output_width());
  } else if (format == "html") {
    std::ostringstream text;
    fleet_text(text, fleet, obs, options, 0);
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>GPU "
           "fleet</title>\n<style>"
        << k_html_style << "</style></head><body>\n<h1>GPU fleet</h1>\n<pre>"
        << html_escape(text.str()) << "</pre>\n";
    // Per series with an outlier: every GPU's value, bars side by side.
    for (const FleetSeries& s : fleet.series) {
      if (std::none_of(s.gpus.begin(), s.gpus.end(), [](const GpuScore& g) { return g.outlier; })) {
        continue;
      }
      std::vector<BarRow> bars;
      for (const GpuScore& g : s.gpus) {
        const GpuFacts* f = obs.gpu(g.uuid);
        bars.push_back({(f ? f->host + " " : "") + g.uuid + (g.outlier ? " (outlier)" : ""),
                        g.value, NAN, NAN});
      }
      bar_chart(out, s.gpu_model + ": " + s.benchmark + " " + s.metric, s.unit, bars);
    }
    out << "</body></html>\n";
  } else {
    throw bad_input("unknown --format '" + format + "'", "", "use text, json or html");
  }
}

}  // namespace gpubench::compare
