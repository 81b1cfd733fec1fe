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
  const char* short_label;
  const char* glob;
  const char* metric;
};
constexpr HeadlineDef k_headlines[] = {
    {"bf16_tflops", "dense BF16 TFLOP/s", "BF16", "gemm/*dtype:bf16/*", "TFLOP_per_s"},
    {"fp16_tflops", "dense FP16 TFLOP/s", "FP16", "gemm/*dtype:fp16/*", "TFLOP_per_s"},
    {"fp8_tflops", "dense FP8 TFLOP/s", "FP8", "gemm/*dtype:fp8*", "TFLOP_per_s"},
    {"tf32_tflops", "dense TF32 TFLOP/s", "TF32", "gemm/*dtype:tf32/*", "TFLOP_per_s"},
    {"fp64_tflops", "dense FP64 TFLOP/s", "FP64", "gemm/*dtype:fp64/*", "TFLOP_per_s"},
    {"memory_GB_per_s", "device memory GB/s", "Memory bandwidth", "memory/device_*", "GB_per_s"},
    {"h2d_GB_per_s", "H2D GB/s (pinned)", "H2D copies",
     "transfer/host_to_device_memcpy_ce/*memory:pinned*", "GB_per_s"},
    {"allreduce_busbw_8", "allreduce busbw at 8 GPUs GB/s", "Allreduce (8 GPUs)",
     "allreduce/allreduce/*ranks:8*", "busbw_GB_per_s"},
    {"dataloader_MB_per_s", "dataloader MB/s per GPU", "Dataloader", "dataloader/h2d/*",
     "MB_per_s"},
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
  PowerSources power;               // where each unit's power came from
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

// A per-W or per-price ratio in words: "1.04x more per W", "0.85x (less per USD)", "1.01x (no
// clear difference)": neither is "faster".
std::string per_unit_wording(const Ratio& r, double confidence, const std::string& unit) {
  const double lo = r.estimate.low(confidence), hi = r.estimate.high(confidence);
  char x[32];
  std::snprintf(x, sizeof x, "%.2fx", r.estimate.value());
  if (std::isfinite(lo) && lo > 1) return std::string(x) + " more per " + unit;
  if (std::isfinite(hi) && hi < 1) return std::string(x) + " (less per " + unit + ")";
  return std::string(x) + " (no clear difference)";
}

bool matches_pattern(const std::string& pattern, const Series& s) {
  if (pattern.find('/') == std::string::npos && pattern.find('*') == std::string::npos) {
    return s.suite == pattern;
  }
  return glob_match(pattern, s.benchmark);
}

// The weighted geometric mean of the patterns' figures over the patterns in `weights` that match
// a scored series of `series` (and, when `also` is given, of `also` too: a ratio compares like
// with like), their weights renormalised to sum to 1. The patterns left out go to `missing`.
Figure composite_of(const SeriesMap& series, const std::vector<WeightEntry>& weights,
                    std::vector<std::string>* missing, const SeriesMap* also = nullptr) {
  std::vector<std::pair<double, LogEstimate>> terms;
  double matched = 0;
  for (const WeightEntry& w : weights) {
    auto take = [&](const Series& s) {
      return scored(s) && matches_pattern(w.pattern, s) &&
             (!also || also->count({s.benchmark, s.metric}));
    };
    const Figure part = mean_of(series, take, true);
    if (!part.estimate.valid()) {
      if (missing) missing->push_back(w.pattern);
      continue;
    }
    terms.emplace_back(w.weight, part.estimate);
    matched += w.weight;
  }
  Figure c;
  c.unit = "score";
  if (terms.empty()) {
    c.note = "no weights pattern matches a benchmark of this model";
    return c;
  }
  for (auto& [weight, term] : terms) weight /= matched;
  c.estimate = weighted_sum(terms);
  c.note = "weighted geometric mean of " + std::to_string(terms.size()) + " pattern(s)";
  if (terms.size() < weights.size()) {
    c.note += " of " + std::to_string(weights.size()) + ", weights renormalised over those";
  }
  return c;
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
                 o.primary, !o.gpu_uuid.empty(), {},       o.values, {},
                 {}};
    }
    s.units.push_back(o.median);
    if (o.gpu_uuid.empty()) continue;
    // Watts the unit drew (0: unknown).
    double w = o.power_w.value_or(0);
    if (options.power == PowerSource::tdp) {
      w = 0;
      if (const PriceEntry* p = find_price(options.prices, o.gpu_model); p && p->power_w) {
        w = *p->power_w;
      } else if (const GpuFacts* f = obs.gpu(o.gpu_uuid)) {
        w = f->info.power_limit_w.value_or(0);
      }
    }
    if (w > 0) {
      s.per_watt.push_back(o.median / w);
      if (options.power == PowerSource::tdp) {
        ++s.power.tdp;
      } else if (o.power_from == Observation::PowerFrom::samples) {
        ++s.power.samples;
      } else {
        ++s.power.telemetry;
      }
    } else {
      ++s.power.none;
    }
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
    if (!memory.empty()) {
      row.memory_gb = median(memory);
      row.memory_gib = *row.memory_gb * 1e9 / (1024.0 * 1024.0 * 1024.0);
    }
    row.price = find_price(table.options.prices, row.gpu_model);
    if (row.price && row.price->power_w) {
      row.tdp_w = row.price->power_w;
    } else if (!limits.empty()) {
      row.tdp_w = median(limits);
    }
    if (row.price && row.memory_gb) {
      row.memory_gb_per_price = *row.memory_gb / row.price->price;
      row.memory_gib_per_price = *row.memory_gib / row.price->price;
    }
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
      h.short_label = def.short_label;
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
      // The row's power sources: its headline series' (they are per GPU and run alike).
      if (h.per_gpu && row.power.samples + row.power.telemetry + row.power.tdp == 0) {
        row.power = best->power;
      }
      if (!h.per_gpu) {
        h.per_watt.note = h.per_price.note = "a whole-node figure";
      } else {
        h.per_watt =
            Figure{pooled_estimate(best->per_watt), best->benchmark, best->unit + "/W", ""};
        if (best->per_watt.empty()) {
          h.per_watt.note = options.power == PowerSource::tdp
                                ? "no power limit recorded"
                                : "no measured power; --power tdp uses TDP";
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
      row.composite = composite_of(g.series, options.weights, &row.composite_missing);
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
      for (std::size_t i = 0; i < g.row.headline.size(); ++i) {
        HeadlineFigure& h = g.row.headline[i];
        const HeadlineFigure& r = ref.headline[i];
        if (h.per_watt.estimate.valid() && r.per_watt.estimate.valid()) {
          h.per_watt_ratio = make_ratio(h.per_watt.estimate, r.per_watt.estimate, conf, self);
          if (!self) h.per_watt_ratio->wording = per_unit_wording(*h.per_watt_ratio, conf, "W");
        }
        // One currency (convert_prices made it so, or refused): per price compares.
        if (h.per_price.estimate.valid() && r.per_price.estimate.valid() && g.row.price &&
            ref.price && g.row.price->currency == ref.price->currency) {
          h.per_price_ratio = make_ratio(h.per_price.estimate, r.per_price.estimate, conf, self);
          if (!self) {
            h.per_price_ratio->wording =
                per_unit_wording(*h.per_price_ratio, conf, g.row.price->currency);
          }
        }
      }
      // Over the patterns both models matched, renormalised alike.
      if (g.row.composite && ref.composite && g.row.composite->estimate.valid() &&
          ref.composite->estimate.valid()) {
        const Figure mine = composite_of(g.series, options.weights, nullptr, &reference->series);
        const Figure theirs = composite_of(reference->series, options.weights, nullptr, &g.series);
        if (mine.estimate.valid() && theirs.estimate.valid()) {
          g.row.composite_ratio = make_ratio(mine.estimate, theirs.estimate, conf, self);
        }
      }
    }
  }
  for (auto& [key, g] : groups) table.rows.push_back(std::move(g.row));
  for (const WeightEntry& w : options.weights) {
    const bool used = std::any_of(table.rows.begin(), table.rows.end(), [&](const ModelRow& r) {
      return std::find(r.composite_missing.begin(), r.composite_missing.end(), w.pattern) ==
             r.composite_missing.end();
    });
    if (!used) table.unmatched_weights.push_back(w);
  }
  return table;
}

}  // namespace gpubench::compare
