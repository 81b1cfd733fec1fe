// Observations of many runs and the fleet's outlier GPUs (compare/models/fleet.hpp).
#include "compare/models/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "compare/hardware.hpp"
#include "compare/selection.hpp"
#include "compare/stats/stats.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "util/error.hpp"

namespace gpubench::compare {
namespace {

std::string run_gpu_model(const results::RunDetail& run) {
  std::set<std::string> names;
  for (const results::GpuInfo& g : run.info.gpus) names.insert(g.name);
  if (names.empty()) return "none";
  if (names.size() == 1) return *names.begin();
  return "mixed";
}

std::string tag(const results::RunDetail& run, const std::string& key) {
  for (const auto& [k, v] : run.info.tags) {
    if (k == key) return v;
  }
  return results::k_unknown;
}

}  // namespace

const GpuFacts* Observations::gpu(const std::string& uuid) const {
  for (const GpuFacts& g : gpus) {
    if (g.info.uuid == uuid) return &g;
  }
  return nullptr;
}

std::vector<int64_t> select_runs(results::Store& store, const std::vector<std::string>& selectors) {
  std::vector<int64_t> ids;
  if (selectors.empty()) {
    for (const results::RunRow& r : store.list_runs(0)) {
      if (r.status == results::RunStatus::complete) ids.push_back(r.id);
    }
  }
  for (const std::string& s : selectors) {
    std::vector<int64_t> group = selector_group(store, s);
    if (group.empty()) group = resolve_selection(store, s, 1);
    ids.insert(ids.end(), group.begin(), group.end());
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.empty()) {
    throw bad_input("no complete runs to summarise",
                    selectors.empty() ? "the database has none" : "the selectors matched none",
                    "import or run some first ('gpubench runs' lists what is stored)");
  }
  return ids;
}

std::vector<int64_t> newest_per_host(results::Store& store, const std::vector<int64_t>& run_ids,
                                     int per_host) {
  if (per_host <= 0) return run_ids;
  const std::set<int64_t> wanted(run_ids.begin(), run_ids.end());
  // host -> (start, id) of its selected runs
  std::map<std::string, std::vector<std::pair<std::string, int64_t>>> by_host;
  for (const results::RunRow& r : store.list_runs(0)) {
    if (wanted.count(r.id)) by_host[r.hostname].emplace_back(r.started_at, r.id);
  }
  std::vector<int64_t> out;
  for (auto& [host, runs] : by_host) {
    // Start times are stored in one form (UTC, ISO 8601, milliseconds), so text order is time
    // order.
    std::sort(runs.begin(), runs.end(), std::greater<>());
    for (std::size_t i = 0; i < runs.size() && i < static_cast<std::size_t>(per_host); ++i) {
      out.push_back(runs[i].second);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Observations load_observations(results::Store& store, const std::vector<int64_t>& run_ids) {
  Observations out;
  out.runs = run_ids;
  std::map<std::string, std::size_t> gpu_at;
  for (int64_t id : run_ids) {
    const results::RunDetail run = store.get_run(id);
    const std::string host = run.info.host.hostname;
    const std::string model = run_gpu_model(run);
    std::map<std::string, int> per_model;
    std::map<int, std::string> uuid_of_nvml;
    std::map<std::string, const results::GpuInfo*> info_of;
    for (const results::GpuInfo& g : run.info.gpus) {
      per_model[g.name]++;
      uuid_of_nvml[g.nvml_index] = g.uuid;
      info_of[g.uuid] = &g;
      GpuFacts facts{g, host, run.info.software.driver_version, run.info.config.clocks_locked, id};
      auto [it, fresh] = gpu_at.try_emplace(g.uuid, out.gpus.size());
      if (fresh) {
        out.gpus.push_back(facts);
      } else if (out.gpus[it->second].run_id < id) {
        out.gpus[it->second] = facts;
      }
    }
    out.interconnect.emplace_back(id, tag(run, "interconnect"));
    // Median measured power per (suite run, GPU UUID).
    std::map<std::pair<int64_t, std::string>, double> power;
    for (int64_t sr : run.suite_run_ids) {
      std::map<std::string, std::vector<double>> watts;
      for (const results::TelemetrySample& t : store.get_telemetry(id, sr)) {
        auto u = uuid_of_nvml.find(t.nvml_index);
        if (t.power_w && u != uuid_of_nvml.end()) watts[u->second].push_back(*t.power_w);
      }
      for (auto& [uuid, w] : watts) power[{sr, uuid}] = median(w);
    }
    // The power_w each sample carries (a sample-state counter of the suite's or an imported
    // file's rows; issue 39: imported results have no NVML telemetry, only these), per (suite
    // run, benchmark, GPU UUID). A sample row per metric repeats its repetition's power, which
    // leaves the median as it is.
    std::map<std::tuple<int64_t, std::string, std::string>, std::vector<double>> sample_watts;
    {
      results::Statement st = store.database().prepare(
          "SELECT s.suite_run_id, b.name, g.uuid, s.power_w FROM suite_runs sr "
          "JOIN samples s ON s.suite_run_id = sr.id JOIN benchmarks b ON b.id = s.benchmark_id "
          "JOIN gpu_devices g ON g.id = s.gpu_device_id WHERE sr.run_id = ?1 "
          "AND s.kind = 'iteration' AND s.power_w IS NOT NULL AND s.power_w > 0");
      st.bind(1, id);
      while (st.step()) {
        sample_watts[{st.column_int64(0), st.column_text(1), st.column_text(2)}].push_back(
            st.column_double(3));
      }
    }
    // The power of a row's execution: its samples' median power_w (what this benchmark drew),
    // else the suite run's telemetry median on that GPU; the source as Observation::PowerFrom.
    auto power_of = [&](const results::ResultRow& r)
        -> std::optional<std::pair<double, Observation::PowerFrom>> {
      if (auto w = sample_watts.find({r.suite_run_id, r.benchmark, r.gpu_uuid});
          w != sample_watts.end()) {
        return std::pair{median(w->second), Observation::PowerFrom::samples};
      }
      if (auto p = power.find({r.suite_run_id, r.gpu_uuid}); p != power.end()) {
        return std::pair{p->second, Observation::PowerFrom::telemetry};
      }
      return std::nullopt;
    };
    // One observation per series and GPU of the run: a run measures each suite in several
    // executions (issue 35), each its own suite run with its own row, and an execution is no
    // independent run. (GPU UUID, CUDA ordinal, benchmark, metric) -> index in `rows`.
    std::map<std::tuple<std::string, int, std::string, std::string>, std::size_t> series_at;
    std::vector<Observation> rows;
    std::vector<std::vector<double>> execution_medians, execution_power;  // per row of `rows`
    std::vector<Observation::PowerFrom> power_from;                       // per row of `rows`
    for (const results::ResultRow& r : store.get_results(id)) {
      if (r.status != results::BenchmarkStatus::ok || r.metric == "cpu_time" || r.aggregate_only ||
          r.role == results::MetricRole::parameter) {
        continue;
      }
      std::vector<double> values;
      for (std::size_t i = 0; i < r.values.size(); ++i) {
        const bool slowed = i < r.throttled.size() && r.throttled[i] == 1;
        if (!slowed && std::isfinite(r.values[i]) && r.values[i] > 0) values.push_back(r.values[i]);
      }
      if (values.empty()) continue;
      const auto [at, fresh] = series_at.try_emplace(
          {r.gpu_uuid, r.device_index.value_or(-1), without_device(r.benchmark), r.metric},
          rows.size());
      if (!fresh) {  // a further execution of the series
        execution_medians[at->second].push_back(median(values));
        if (auto p = r.gpu_uuid.empty() ? std::nullopt : power_of(r)) {
          execution_power[at->second].push_back(p->first);
          power_from[at->second] = std::max(power_from[at->second], p->second);
        }
        continue;
      }
      Observation o;
      o.values = std::move(values);
      o.run_id = id;
      o.host = host;
      o.gpu_uuid = r.gpu_uuid;
      o.gpu_model = model;
      o.node_gpus = static_cast<int>(run.info.gpus.size());
      execution_medians.push_back({median(o.values)});
      execution_power.emplace_back();
      power_from.push_back(Observation::PowerFrom::none);
      if (!r.gpu_uuid.empty()) {
        auto g = info_of.find(r.gpu_uuid);
        o.gpu_model = g != info_of.end() ? g->second->name : results::k_unknown;
        o.node_gpus = per_model[o.gpu_model];
        o.pci_bus_id = r.gpu_pci_bus_id;
        o.index = r.device_index.value_or(-1);
        if (auto p = power_of(r)) {
          execution_power.back().push_back(p->first);
          power_from.back() = p->second;
        }
      }
      o.suite = r.suite;
      o.benchmark = without_device(r.benchmark);
      o.metric = r.metric;
      o.unit = r.unit;
      o.direction = r.direction;
      o.primary = r.role == results::MetricRole::primary || r.role == results::MetricRole::unknown;
      rows.push_back(std::move(o));
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      Observation& o = rows[i];
      o.executions = execution_medians[i].size();
      o.median = median(execution_medians[i]);
      // Several executions: the executions, not the repetitions, are the noise of the run.
      if (o.executions > 1) o.values = execution_medians[i];
      if (!execution_power[i].empty()) {
        o.power_w = median(execution_power[i]);
        o.power_from = power_from[i];
      }
      out.rows.push_back(std::move(o));
    }
  }
  return out;
}

namespace {

std::string value_or_unknown(const std::optional<int>& v) {
  return v ? std::to_string(*v) : std::string(results::k_unknown);
}
std::string value_or_unknown(const std::optional<double>& v) {
  if (!v) return results::k_unknown;
  char text[32];
  std::snprintf(text, sizeof text, "%g", *v);
  return text;
}

// The facts `differences` compares, as (name, value) of one GPU.
std::vector<std::pair<std::string, std::string>> facts_of(const GpuFacts& g) {
  return {{"driver", g.driver},
          {"ECC", g.info.ecc},
          {"PCIe link",
           "Gen" + value_or_unknown(g.info.pcie_gen) + " x" + value_or_unknown(g.info.pcie_width)},
          {"application SM clock MHz", value_or_unknown(g.info.app_sm_clock_mhz)},
          {"max SM clock MHz", value_or_unknown(g.info.max_sm_clock_mhz)},
          {"power limit W", value_or_unknown(g.info.power_limit_w)},
          {"clocks locked", g.clocks_locked}};
}

// "driver 550.54 (others: 560.35.03)" for each fact where `gpu` differs from the most common
// value among `peers` (the same model's GPUs, itself included).
std::vector<std::string> differences(const GpuFacts& gpu,
                                     const std::vector<const GpuFacts*>& peers) {
  std::vector<std::string> out;
  const auto mine = facts_of(gpu);
  for (std::size_t f = 0; f < mine.size(); ++f) {
    std::map<std::string, int> counts;
    for (const GpuFacts* p : peers) counts[facts_of(*p)[f].second]++;
    std::string common;
    int best = 0;
    for (const auto& [v, n] : counts) {
      if (n > best) best = n, common = v;
    }
    if (mine[f].second != common) {
      out.push_back(mine[f].first + " " + mine[f].second + " (most GPUs of the model: " + common +
                    ")");
    }
  }
  return out;
}

}  // namespace

Fleet fleet_scores(const Observations& obs, const OutlierRule& rule, const std::string& suite,
                   const std::string& metric) {
  // (model, suite, benchmark, metric) -> uuid -> medians of its runs
  using SeriesKey = std::tuple<std::string, std::string, std::string, std::string>;
  std::map<SeriesKey, std::map<std::string, std::vector<double>>> per_gpu;
  std::map<SeriesKey, const Observation*> first;
  for (const Observation& o : obs.rows) {
    if (o.gpu_uuid.empty() || o.direction == results::Direction::unknown) continue;
    if (!suite.empty() && o.suite != suite) continue;
    if (metric.empty() ? !o.primary : o.metric != metric) continue;
    SeriesKey key{o.gpu_model, o.suite, o.benchmark, o.metric};
    per_gpu[key][o.gpu_uuid].push_back(o.median);
    first.try_emplace(key, &o);
  }
  Fleet fleet;
  std::map<std::string, FleetOutlier> worst;  // uuid -> its worst series
  for (const auto& [key, gpus] : per_gpu) {
    if (gpus.size() < 3) continue;
    const Observation& o = *first[key];
    FleetSeries s{o.gpu_model, o.suite, o.benchmark, o.metric, o.unit, o.direction, 0, 0, {}};
    std::vector<double> values;
    for (const auto& [uuid, medians] : gpus) {
      s.gpus.push_back({uuid, median(medians)});
      values.push_back(s.gpus.back().value);
    }
    s.median = median(values);
    std::vector<double> dev;
    for (double v : values) dev.push_back(std::fabs(v - s.median));
    s.mad = median(dev);
    for (GpuScore& g : s.gpus) {
      const double diff = g.value - s.median;
      g.z = s.mad > 0
                ? diff / (1.4826 * s.mad)
                : (diff == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), diff));
      g.deviation = s.median != 0 ? g.value / s.median - 1 : 0;
      g.worse = o.direction == results::Direction::higher ? diff < 0 : diff > 0;
      g.outlier =
          g.worse && std::fabs(g.z) > rule.z_threshold && std::fabs(g.deviation) > rule.min_effect;
      if (!g.outlier) continue;
      FleetOutlier& w = worst[g.uuid];
      ++w.series;
      if (w.series == 1 || std::fabs(g.deviation) > std::fabs(w.deviation)) {
        const std::size_t n = w.series;
        w = FleetOutlier{s.gpu_model, "",      g.uuid,   "",  -1,          s.suite, s.benchmark,
                         s.metric,    g.value, s.median, g.z, g.deviation, n,       {}};
      }
    }
    fleet.series.push_back(std::move(s));
  }
  for (auto& [uuid, w] : worst) {
    if (const GpuFacts* g = obs.gpu(uuid)) {
      w.host = g->host;
      w.pci_bus_id = g->info.pci_bus_id;
      w.nvml_index = g->info.nvml_index;
      std::vector<const GpuFacts*> peers;
      for (const GpuFacts& p : obs.gpus) {
        if (p.info.name == g->info.name) peers.push_back(&p);
      }
      w.differences = differences(*g, peers);
    }
    fleet.outliers.push_back(std::move(w));
  }
  std::sort(fleet.outliers.begin(), fleet.outliers.end(),
            [](const FleetOutlier& a, const FleetOutlier& b) {
              return std::tie(a.gpu_model, a.host, a.uuid) < std::tie(b.gpu_model, b.host, b.uuid);
            });
  return fleet;
}

}  // namespace gpubench::compare
