// OpenMetrics text rendering of one run (compare/render/openmetrics.hpp).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>

#include "compare/render/openmetrics.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Family {
  std::string name;  // without type suffixes; gauges' samples carry this name
  std::string type;  // "gauge" (info families too: see info())
  std::string unit;  // "" or the suffix the name ends with
  std::string help;
  std::vector<std::string> samples;  // rendered lines
  std::set<std::string> label_sets;  // rendered label sets, to drop duplicates
};

// The shortest text that reads back as the same double ("2e-06", not "2.0000000000000003e-06").
std::string number_text(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string escape_help(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

// Families in the order first used; samples grouped per family as the format requires.
class Writer {
 public:
  Family& family(const std::string& name, const std::string& type, const std::string& unit,
                 const std::string& help) {
    if (auto it = m_index.find(name); it != m_index.end()) return m_families[it->second];
    m_index[name] = m_families.size();
    m_families.push_back(Family{name, type, unit, help, {}, {}});
    return m_families.back();
  }

  void gauge(const std::string& name, const std::string& unit, const std::string& help,
             const Labels& labels, double value) {
    if (!std::isfinite(value)) return;
    Family& f = family(name, "gauge", unit, help);
    add(f, name, labels, value);
  }

  // An info family written as the gauge `<name>_info` with value 1: the Prometheus text-format
  // parser (node_exporter's textfile collector, promtool) rejects the OpenMetrics type "info"
  // ('unknown metric type "info"', node_textfile_scrape_error 1), and OpenMetrics parsers accept
  // a gauge of that name; PromQL queries see the same series either way.
  void info(const std::string& name, const std::string& help, const Labels& labels) {
    Family& f = family(name + "_info", "gauge", "", help);
    add(f, name + "_info", labels, 1);
  }

  void write(std::ostream& out) const {
    for (const Family& f : m_families) {
      if (f.samples.empty()) continue;
      out << "# TYPE " << f.name << ' ' << f.type << '\n';
      if (!f.unit.empty()) out << "# UNIT " << f.name << ' ' << f.unit << '\n';
      out << "# HELP " << f.name << ' ' << escape_help(f.help) << '\n';
      for (const std::string& s : f.samples) out << s << '\n';
    }
    out << "# EOF\n";
  }

 private:
  static void add(Family& f, const std::string& sample_name, const Labels& labels, double value) {
    std::string set;
    for (const auto& [k, v] : labels) {
      if (!set.empty()) set += ',';
      set += k + "=\"" + escape_label_value(v) + "\"";
    }
    if (!f.label_sets.insert(set).second) return;  // one sample per label set
    f.samples.push_back(sample_name + (set.empty() ? "" : "{" + set + "}") + " " +
                        number_text(value));
  }

  std::vector<Family> m_families;
  std::map<std::string, std::size_t> m_index;
};

// GPUs are matched by UUID (results/model.hpp): a CUDA ordinal and an NVML index may differ.
const results::GpuInfo* gpu_of(const results::RunDetail& run, const std::string& uuid) {
  if (uuid.empty()) return nullptr;
  for (const auto& g : run.info.gpus) {
    if (g.uuid == uuid) return &g;
  }
  return nullptr;
}

Labels series_labels(const std::string& host, const results::GpuInfo* gpu,
                     const std::string& gpu_uuid, const std::string& device,
                     const std::string& suite, const std::string& benchmark,
                     const std::string& metric) {
  std::string uuid = gpu_uuid;
  if (uuid.empty() && gpu) uuid = gpu->uuid;
  return {{"host", host},     {"gpu_uuid", uuid}, {"gpu_model", gpu ? gpu->name : std::string()},
          {"device", device}, {"suite", suite},   {"benchmark", benchmark},
          {"metric", metric}};
}

// A series' rows are pooled before the median: a run measures each suite in several processes
// (executions, issue 35), each its own suite run with its own row of the same series, and the
// exported median is over every execution's values, not the first execution's alone.
void write_results(Writer& w, const OpenMetricsInput& in, const std::string& host) {
  struct Pooled {
    Labels labels;
    std::string unit;
    std::vector<double> values;
  };
  std::vector<Pooled> pooled;                // in the order series first appear
  std::map<std::string, std::size_t> index;  // rendered labels and unit -> pooled
  auto pool_row = [&](const results::ResultRow& r) {
    if (r.status != results::BenchmarkStatus::ok || r.values.empty() || r.metric.empty()) return;
    Labels labels = series_labels(host, gpu_of(in.run, r.gpu_uuid), r.gpu_uuid,
                                  device_label(r.device_index), r.suite, r.benchmark, r.metric);
    std::string key = r.unit;
    for (const auto& [k, v] : labels) key += '\n' + k + '=' + v;
    auto [it, added] = index.emplace(key, pooled.size());
    if (added) pooled.push_back(Pooled{std::move(labels), r.unit, {}});
    std::vector<double>& values = pooled[it->second].values;
    values.insert(values.end(), r.values.begin(), r.values.end());
  };
  if (in.row_source) {
    in.row_source(pool_row);
  } else {
    for (const results::ResultRow& r : in.rows) pool_row(r);
  }
  for (Pooled& p : pooled) {
    SideStats s;
    s.values = std::move(p.values);
    summarize(s);
    const BaseUnit unit = prometheus_unit(p.unit);
    if (unit.suffix.empty()) {
      p.labels.emplace_back("unit", p.unit);
      w.gauge("gpubench_result", "",
              "Median of a benchmark metric's repetitions (of every execution) in a unit without a "
              "base-unit mapping (see the unit label)",
              p.labels, s.median);
    } else {
      w.gauge("gpubench_result_" + unit.suffix, unit.suffix,
              "Median of a benchmark metric's repetitions (of every execution), in " + unit.suffix,
              p.labels, unit.to_base(s.median));
    }
  }
}

void write_comparison(Writer& w, const OpenMetricsInput& in, const std::string& host) {
  if (!in.comparison) return;
  for (const Entry& e : in.comparison->entries) {
    Labels labels = series_labels(host, gpu_of(in.run, e.candidate.gpu_uuid), e.candidate.gpu_uuid,
                                  e.key.device, e.key.suite, e.key.benchmark, e.key.metric);
    labels.emplace_back("baseline", in.baseline);
    w.gauge("gpubench_change_ratio", "ratio",
            "This run's median divided by the baseline's (direction not applied)", labels, e.ratio);
    // Verdicts of primary metrics only, as `compare` counts them (Comparison::count): a secondary
    // metric (real_time next to a suite's own primary metric) would count one regression two or
    // three times in a dashboard's count().
    if (!e.primary) continue;
    // Direction applied, primary metrics only (issue 39): what Grafana's "Change vs baseline"
    // summarises as better/worse; a time and its reciprocal rate would otherwise cancel out.
    if (const auto speedup = e.speedup(); speedup && std::isfinite(*speedup)) {
      w.gauge("gpubench_change_speedup_ratio", "ratio",
              "Speed-up of this run's primary metric over the baseline's, > 1 better (the change "
              "ratio with the metric's direction applied)",
              labels, *speedup);
    }
    labels.emplace_back("verdict", to_string(e.verdict));
    w.gauge("gpubench_verdict", "",
            "1 for the verdict of this run's primary metric against the baseline (regression, "
            "improvement, unchanged, inconclusive, invalid, changed, missing)",
            labels, 1);
  }
}

void write_telemetry(Writer& w, const OpenMetricsInput& in, const std::string& host) {
  for (const results::TelemetrySummary& t : in.telemetry) {
    const results::GpuInfo* gpu = gpu_of(in.run, t.gpu_uuid);
    // Telemetry is keyed by NVML, not by a CUDA ordinal: the device label says so.
    const Labels labels = {{"host", host},
                           {"gpu_uuid", t.gpu_uuid},
                           {"gpu_model", gpu ? gpu->name : std::string()},
                           {"device", "nvml" + std::to_string(t.nvml_index)}};
    w.gauge("gpubench_telemetry_samples", "", "NVML telemetry samples taken during the run", labels,
            static_cast<double>(t.samples));
    w.gauge("gpubench_telemetry_throttled_samples", "",
            "Telemetry samples with a power or thermal throttle reason set", labels,
            static_cast<double>(t.throttled_samples));
    auto opt = [&](const std::string& name, const std::string& unit, const std::string& help,
                   const auto& v, double factor) {
      if (v) w.gauge(name, unit, help, labels, static_cast<double>(*v) * factor);
    };
    opt("gpubench_telemetry_max_temperature_celsius", "celsius",
        "Highest GPU temperature seen during the run", t.max_temperature_c, 1);
    opt("gpubench_telemetry_max_power_watts", "watts", "Highest board power seen during the run",
        t.max_power_w, 1);
    opt("gpubench_telemetry_min_sm_clock_hertz", "hertz", "Lowest SM clock seen during the run",
        t.min_sm_clock_mhz, 1e6);
    opt("gpubench_telemetry_max_sm_clock_hertz", "hertz", "Highest SM clock seen during the run",
        t.max_sm_clock_mhz, 1e6);
    opt("gpubench_telemetry_ecc_uncorrected_errors", "",
        "Increase of volatile uncorrected ECC errors during the run", t.ecc_dbe_increase, 1);
    opt("gpubench_telemetry_ecc_corrected_errors", "",
        "Increase of volatile corrected ECC errors during the run", t.ecc_sbe_increase, 1);
  }
}

}  // namespace

BaseUnit prometheus_unit(const std::string& unit) {
  static const std::map<std::string, BaseUnit> k_units = {
      {"ns", {"seconds", 1, 1e9}},
      {"us", {"seconds", 1, 1e6}},
      {"ms", {"seconds", 1, 1e3}},
      {"s", {"seconds", 1, 1}},
      {"B/s", {"bytes_per_second", 1, 1}},
      {"KB/s", {"bytes_per_second", 1e3, 1}},
      {"MB/s", {"bytes_per_second", 1e6, 1}},
      {"GB/s", {"bytes_per_second", 1e9, 1}},
      {"TB/s", {"bytes_per_second", 1e12, 1}},
      {"KiB/s", {"bytes_per_second", 1024.0, 1}},
      {"MiB/s", {"bytes_per_second", 1024.0 * 1024, 1}},
      {"GiB/s", {"bytes_per_second", 1024.0 * 1024 * 1024, 1}},
      {"FLOP/s", {"flop_per_second", 1, 1}},
      {"GFLOP/s", {"flop_per_second", 1e9, 1}},
      {"TFLOP/s", {"flop_per_second", 1e12, 1}},
      {"MHz", {"hertz", 1e6, 1}},
      {"%", {"ratio", 1, 100}},
      {"fraction", {"ratio", 1, 1}},
  };
  const auto it = k_units.find(unit);
  return it == k_units.end() ? BaseUnit{} : it->second;
}

std::string escape_label_value(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

void render_openmetrics(const OpenMetricsInput& in, std::ostream& out) {
  Writer w;
  const std::string& host = in.run.info.host.hostname;
  const auto& sw = in.run.info.software;
  w.info("gpubench_run", "The exported run and its environment",
         {{"host", host},
          {"run_uuid", in.run.run.uuid},
          {"run_id", std::to_string(in.run.run.id)},
          {"status", results::to_string(in.run.run.status)},
          {"profile", in.run.info.config.profile},
          {"driver", sw.driver_version},
          {"cuda_runtime", sw.cuda_runtime_version},
          {"gpubench", sw.gpubench_version}});
  write_results(w, in, host);
  write_comparison(w, in, host);
  write_telemetry(w, in, host);
  for (const results::DoctorCheck& c : in.doctor) {
    w.gauge("gpubench_doctor_check", "",
            "1 for each readiness check's status when the run started (gpubench doctor)",
            {{"host", host},
             {"check", c.name},
             {"area", c.area},
             {"status", results::to_string(c.status)}},
            1);
  }
  w.write(out);
}

}  // namespace gpubench::compare
