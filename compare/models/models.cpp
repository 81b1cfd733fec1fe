// The per-model table of `gpubench models` (compare/models/models.hpp).
#include "compare/models/models.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "compare/stats/stats.hpp"
#include "compare/stats/thresholds.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {
namespace {

// The figures a buyer reads first: the best benchmark (highest geometric mean) among those the
// glob matches, on that metric.
struct HeadlineDef {
  const char* key;
  const char* label;
  const char* glob;
  const char* metric;
};
constexpr HeadlineDef k_headlines[] = {
    {"bf16_tflops", "dense BF16 TFLOP/s", "gemm/*dtype:bf16/*", "TFLOP_per_s"},
    {"fp16_tflops", "dense FP16 TFLOP/s", "gemm/*dtype:fp16/*", "TFLOP_per_s"},
    {"fp8_tflops", "dense FP8 TFLOP/s", "gemm/*dtype:fp8*", "TFLOP_per_s"},
    {"tf32_tflops", "dense TF32 TFLOP/s", "gemm/*dtype:tf32/*", "TFLOP_per_s"},
    {"fp64_tflops", "dense FP64 TFLOP/s", "gemm/*dtype:fp64/*", "TFLOP_per_s"},
    {"memory_GB_per_s", "device memory GB/s", "memory/device_*", "GB_per_s"},
    {"h2d_GB_per_s", "H2D GB/s (pinned)", "transfer/host_to_device_memcpy_ce/*memory:pinned*",
     "GB_per_s"},
    {"allreduce_busbw_8", "allreduce busbw at 8 GPUs GB/s", "allreduce/allreduce/*ranks:8*",
     "busbw_GB_per_s"},
    {"dataloader_MB_per_s", "dataloader MB/s per GPU", "dataloader/h2d/*", "MB_per_s"},
};

// One (benchmark, metric) of one model: a value per unit (GPU x run, or run for host series).
struct Series {
  std::string suite;
  std::string benchmark;
  std::string metric;
  std::string unit;
  results::Direction direction = results::Direction::unknown;
  bool primary = true;
  bool per_gpu = false;
  std::vector<double> units;
  std::vector<double> repetitions;  // of the first unit (its executions' medians when several)
  std::vector<double> per_watt;     // units over the power they drew (where known)
  LogEstimate estimate() const { return pooled_estimate(units, repetitions); }
  // Higher is better on the log scale (lower-is-better metrics inverted).
  LogEstimate oriented() const {
    LogEstimate e = estimate();
    if (direction == results::Direction::lower) e.mean_log = -e.mean_log;
    return e;
  }
};

using SeriesMap = std::map<std::pair<std::string, std::string>, Series>;  // (benchmark, metric)

struct Group {
  ModelRow row;
  SeriesMap series;
  std::set<std::string> uuids;
};

bool scored(const Series& s) {
  return s.primary && s.direction != results::Direction::unknown && s.metric != "pct_of_peak";
}

// Equal-weighted geometric mean (oriented) of the series `take` accepts.
Figure mean_of(const SeriesMap& series, const std::function<bool(const Series&)>& take,
               bool oriented, std::size_t* count = nullptr) {
  std::vector<const Series*> chosen;
  for (const auto& [key, s] : series) {
    if (take(s)) chosen.push_back(&s);
  }
  if (count) *count = chosen.size();
  Figure f;
  if (chosen.empty()) {
    f.note = "no benchmark";
    return f;
  }
  std::vector<std::pair<double, LogEstimate>> terms;
  for (const Series* s : chosen) {
    terms.emplace_back(1.0 / static_cast<double>(chosen.size()),
                       oriented ? s->oriented() : s->estimate());
  }
  f.estimate = weighted_sum(terms);
  f.note = "geometric mean of " + std::to_string(chosen.size()) + " benchmark(s)";
  return f;
}

Ratio make_ratio(const LogEstimate& model, const LogEstimate& reference, double confidence,
                 bool self) {
  Ratio r;
  if (self) {  // the reference against itself: exactly 1
    r.estimate.mean_log = 0;
    r.estimate.n = model.n;
    r.wording = "reference";
    return r;
  }
  r.estimate = weighted_sum({{1.0, model}, {-1.0, reference}});
  r.wording = ratio_wording(r.estimate, confidence);
  return r;
}

bool matches_pattern(const std::string& pattern, const Series& s) {
  if (pattern.find('/') == std::string::npos && pattern.find('*') == std::string::npos) {
    return s.suite == pattern;
  }
  return glob_match(pattern, s.benchmark);
}

}  // namespace

ModelsTable build_models(const Observations& obs, const ModelsOptions& options) {
  ModelsTable table;
  table.options = options;
  const Fleet fleet = fleet_scores(obs, options.outliers);
  std::map<std::string, const FleetOutlier*> excluded;
  for (const FleetOutlier& o : fleet.outliers) excluded[o.uuid] = &o;
  const std::map<int64_t, std::string> interconnect_of(obs.interconnect.begin(),
                                                       obs.interconnect.end());
  // (model, GPUs per node, interconnect) -> group
  std::map<std::tuple<std::string, int, std::string>, Group> groups;
  for (const Observation& o : obs.rows) {
    if (o.gpu_model == "none" || o.gpu_model == "mixed") continue;
    const int per_node = o.node_gpus;
    const auto found = interconnect_of.find(o.run_id);
    const std::string interconnect =
        found != interconnect_of.end() ? found->second : std::string(results::k_unknown);
    Group& g = groups[{o.gpu_model, per_node, interconnect}];
    g.row.gpu_model = o.gpu_model;
    g.row.gpus_per_node = per_node;
    g.row.interconnect = interconnect;
    if (std::find(g.row.runs.begin(), g.row.runs.end(), o.run_id) == g.row.runs.end()) {
      g.row.runs.push_back(o.run_id);
    }
    if (std::find(g.row.hosts.begin(), g.row.hosts.end(), o.host) == g.row.hosts.end()) {
      g.row.hosts.push_back(o.host);
    }
    if (!o.gpu_uuid.empty()) {
      if (auto x = excluded.find(o.gpu_uuid); x != excluded.end()) {
        if (g.uuids.insert("excluded:" + o.gpu_uuid).second) g.row.excluded.push_back(*x->second);
        continue;
      }
      g.uuids.insert(o.gpu_uuid);
    }
    Series& s = g.series[{o.benchmark, o.metric}];
    if (s.units.empty()) {
      s = Series{o.suite,   o.benchmark,         o.metric, o.unit,   o.direction,
                 o.primary, !o.gpu_uuid.empty(), {},       o.values, {}};
    }
    s.units.push_back(o.median);
    std::optional<double> watts = o.power_w;
    if (options.power == PowerSource::tdp) {
      watts.reset();
      if (const PriceEntry* p = find_price(options.prices, o.gpu_model); p && p->power_w) {
        watts = p->power_w;
      } else if (const GpuFacts* f = obs.gpu(o.gpu_uuid)) {
        watts = f->info.power_limit_w;
      }
    }
    if (watts && *watts > 0 && !o.gpu_uuid.empty()) s.per_watt.push_back(o.median / *watts);
  }
  if (groups.empty()) {
    throw bad_input("no GPU results in the selected runs",
                    "every selected run has no GPU or several GPU models",
                    "select runs of GPU servers ('gpubench runs' lists them)");
  }
  for (auto& [key, g] : groups) {
    ModelRow& row = g.row;
    std::vector<double> memory, limits;
    for (const GpuFacts& f : obs.gpus) {
      if (!g.uuids.count(f.info.uuid)) continue;
      ++row.gpus;
      if (f.info.memory_bytes) memory.push_back(static_cast<double>(*f.info.memory_bytes) / 1e9);
      if (f.info.power_limit_w) limits.push_back(*f.info.power_limit_w);
    }
    if (!memory.empty()) row.memory_gb = median(memory);
    row.price = find_price(table.options.prices, row.gpu_model);
    if (row.price && row.price->power_w) {
      row.tdp_w = row.price->power_w;
    } else if (!limits.empty()) {
      row.tdp_w = median(limits);
    }
    if (row.price && row.memory_gb) row.memory_gb_per_price = *row.memory_gb / row.price->price;
    std::set<std::string> suites;
    for (const auto& [k, s] : g.series) suites.insert(s.suite);
    for (const std::string& suite : suites) {
      SuiteFigure sf;
      sf.suite = suite;
      sf.geomean = mean_of(
          g.series, [&](const Series& s) { return s.suite == suite && scored(s); }, true,
          &sf.benchmarks);
      sf.pct_of_peak = mean_of(
          g.series, [&](const Series& s) { return s.suite == suite && s.metric == "pct_of_peak"; },
          false);
      sf.pct_of_peak.unit = "%";
      if (sf.benchmarks > 0) row.suites.push_back(sf);
    }
    for (const HeadlineDef& def : k_headlines) {
      HeadlineFigure h;
      h.key = def.key;
      h.label = def.label;
      const Series* best = nullptr;
      for (const auto& [k, s] : g.series) {
        if (s.metric != def.metric || !glob_match(def.glob, s.benchmark)) continue;
        const LogEstimate e = s.estimate();
        if (e.valid() && (!best || e.mean_log > best->estimate().mean_log)) best = &s;
      }
      if (!best) {
        h.value.note = "not measured";
        row.headline.push_back(h);
        continue;
      }
      h.per_gpu = best->per_gpu;
      h.value = Figure{best->estimate(), best->benchmark, best->unit, ""};
      if (!h.per_gpu) {
        h.per_watt.note = h.per_price.note = "a whole-node figure";
      } else {
        h.per_watt =
            Figure{pooled_estimate(best->per_watt), best->benchmark, best->unit + "/W", ""};
        if (best->per_watt.empty()) {
          h.per_watt.note =
              options.power == PowerSource::tdp ? "no power limit recorded" : "no power telemetry";
        }
        if (row.price) {
          h.per_price = h.value;
          h.per_price.estimate.mean_log -= std::log(row.price->price);
          h.per_price.unit = best->unit + "/" + row.price->currency;
        } else {
          h.per_price.note = "no price";
        }
      }
      row.headline.push_back(h);
    }
    if (!options.weights.empty()) {
      std::vector<std::pair<double, LogEstimate>> terms;
      std::string missing;
      for (const WeightEntry& w : options.weights) {
        const Figure part = mean_of(
            g.series, [&](const Series& s) { return scored(s) && matches_pattern(w.pattern, s); },
            true);
        if (!part.estimate.valid()) missing = w.pattern;
        terms.emplace_back(w.weight, part.estimate);
      }
      Figure c;
      c.estimate = weighted_sum(terms);
      c.unit = "score";
      c.note = missing.empty()
                   ? "weighted geometric mean of " + std::to_string(terms.size()) + " pattern(s)"
                   : "pattern '" + missing + "' matches no benchmark of this model";
      if (!missing.empty()) c.estimate = LogEstimate{};
      row.composite = c;
    }
  }
  // The reference model and the ratios against it.
  Group* reference = nullptr;
  if (!options.reference.empty()) {
    std::vector<std::string> names;
    for (auto& [key, g] : groups) {
      names.push_back(g.row.gpu_model);
      if (to_lower(g.row.gpu_model).find(to_lower(options.reference)) == std::string::npos)
        continue;
      if (reference) {
        throw bad_input("--reference '" + options.reference + "' matches several models",
                        "'" + reference->row.gpu_model + "' and '" + g.row.gpu_model + "'",
                        "give more of the name");
      }
      reference = &g;
    }
    if (!reference) {
      throw bad_input("--reference '" + options.reference + "' matches no model",
                      "the models are: " + join(names, ", "), "give part of one of these names");
    }
    reference->row.is_reference = true;
    table.reference_model = reference->row.gpu_model;
  }
  const double conf = options.confidence;
  for (auto& [key, g] : groups) {
    if (reference) {
      const ModelRow& ref = reference->row;
      const bool self = &g == reference;
      for (std::size_t i = 0; i < g.row.headline.size(); ++i) {
        HeadlineFigure& h = g.row.headline[i];
        if (h.value.estimate.valid() && ref.headline[i].value.estimate.valid()) {
          h.ratio = make_ratio(h.value.estimate, ref.headline[i].value.estimate, conf, self);
        }
      }
      for (SuiteFigure& sf : g.row.suites) {
        // Over the benchmarks both models measured, so the ratio compares like with like.
        auto common = [&](const Series& s) {
          return s.suite == sf.suite && scored(s) &&
                 reference->series.count({s.benchmark, s.metric});
        };
        auto common_ref = [&](const Series& s) {
          return s.suite == sf.suite && scored(s) && g.series.count({s.benchmark, s.metric});
        };
        const Figure mine = mean_of(g.series, common, true);
        const Figure theirs = mean_of(reference->series, common_ref, true);
        if (mine.estimate.valid() && theirs.estimate.valid()) {
          sf.ratio = make_ratio(mine.estimate, theirs.estimate, conf, self);
        }
      }
      if (g.row.composite && ref.composite && g.row.composite->estimate.valid() &&
          ref.composite->estimate.valid()) {
        g.row.composite_ratio =
            make_ratio(g.row.composite->estimate, ref.composite->estimate, conf, self);
      }
    }
  }
  for (auto& [key, g] : groups) table.rows.push_back(std::move(g.row));
  return table;
}

}  // namespace gpubench::compare
