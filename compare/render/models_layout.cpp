// The layout shared by every format of `gpubench models` (compare/render/models_layout.hpp).
#include "compare/render/models_layout.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "compare/render/lists.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::compare::models_layout {

std::string num(double v) {
  return std::isfinite(v) ? format_significant(v, 4) : "—";
}

// "1234 [1200, 1260]" or "—".
std::string figure_text(const Figure& f, double conf) {
  if (!f.estimate.valid()) return f.note.empty() ? "—" : "— (" + f.note + ")";
  std::string s = num(f.estimate.value());
  const double lo = f.estimate.low(conf), hi = f.estimate.high(conf);
  if (std::isfinite(lo)) s += " [" + num(lo) + ", " + num(hi) + "]";
  if (f.estimate.within_run_only) s += "*";
  return s;
}

// A ratio in a table cell: "1.09x [1.079, 1.094]" (the purchase answer says it in words; a per
// W or per price ratio is not "faster").
std::string ratio_cell(const std::optional<Ratio>& r, double conf) {
  if (!r) return "—";
  if (r->wording == "reference") return "reference";
  char x[32];
  std::snprintf(x, sizeof x, "%.2fx", r->estimate.value());
  const double lo = r->estimate.low(conf), hi = r->estimate.high(conf);
  return std::string(x) + (std::isfinite(lo) ? " [" + num(lo) + ", " + num(hi) + "]" : "");
}

// `prefix` + a benchmark name in lines of at most `width` columns (0: one line), broken only
// after a '/' so no parameter ("ranks:8") is split; continuation lines indented 4 more.
std::vector<std::string> name_lines(const std::string& prefix, const std::string& name,
                                    std::size_t width) {
  std::vector<std::string> lines = {prefix};
  const std::size_t indent = prefix.find_first_not_of(' ');
  std::size_t from = 0;
  while (from < name.size()) {
    std::size_t slash = name.find('/', from);
    slash = slash == std::string::npos ? name.size() : slash + 1;
    const std::string part = name.substr(from, slash - from);
    if (width != 0 && display_width(lines.back()) + display_width(part) > width &&
        display_width(lines.back()) > indent + 4 && from > 0) {
      lines.push_back(std::string(indent + 4, ' ') + part);
    } else {
      lines.back() += part;
    }
    from = slash;
  }
  return lines;
}

std::string outlier_text(const FleetOutlier& o) {
  char dev[32];
  std::snprintf(dev, sizeof dev, "%+.1f%%", 100 * o.deviation);
  std::string s = o.uuid + " (host " + o.host + ", bus " + o.pci_bus_id + ", NVML index " +
                  std::to_string(o.nvml_index) + "): " + o.benchmark + " " + o.metric + " " +
                  num(o.value) + " vs model median " + num(o.model_median) + " (" + dev +
                  ", robust z " + (std::isfinite(o.z) ? format_significant(o.z, 3) : "inf") + ")";
  if (!o.differences.empty()) s += "; differs: " + join(o.differences, "; ");
  return s;
}

std::string row_title(const ModelRow& r) {
  return r.gpu_model + " (" + std::to_string(r.gpus_per_node) + " GPUs/node, interconnect " +
         r.interconnect + ")";
}

// How the answer and the columns name each row: the model without a leading "NVIDIA ", with its
// GPUs per node and then its interconnect where two rows would read the same.
std::vector<std::string> short_names(const ModelsTable& t) {
  std::vector<std::string> names;
  for (const ModelRow& r : t.rows) {
    names.push_back(r.gpu_model.starts_with("NVIDIA ") ? r.gpu_model.substr(7) : r.gpu_model);
  }
  auto unique = [&] {
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  };
  if (!unique()) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      names[i] += " x" + std::to_string(t.rows[i].gpus_per_node);
    }
  }
  if (!unique()) {
    for (std::size_t i = 0; i < names.size(); ++i) names[i] += " " + t.rows[i].interconnect;
  }
  return names;
}

std::string currency_of(const ModelsTable& t) {
  for (const ModelRow& r : t.rows) {
    if (r.price) return r.price->currency;
  }
  return "price";
}

std::vector<Answer> purchase_answer(const ModelsTable& t) {
  std::vector<Answer> out;
  const double conf = t.options.confidence;
  const auto names = short_names(t);
  std::size_t ref = t.rows.size();
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (t.rows[i].is_reference) ref = i;
  }
  if (ref == t.rows.size() || t.rows.size() < 2) return out;
  const ModelRow& reference = t.rows[ref];
  for (std::size_t h = 0; h < reference.headline.size(); ++h) {
    const HeadlineFigure& rh = reference.headline[h];
    if (!rh.value.estimate.valid()) continue;
    Answer a;
    a.head = rh.short_label;
    a.label = rh.label;
    std::vector<std::string> price, speed, watt, benchmarks;
    bool one_benchmark = true;
    for (std::size_t m = 0; m < t.rows.size(); ++m) {
      const HeadlineFigure& mh = t.rows[m].headline[h];
      if (!mh.value.estimate.valid()) continue;
      benchmarks.push_back(names[m] + ": " + mh.value.benchmark);
      one_benchmark = one_benchmark && mh.value.benchmark == rh.value.benchmark;
      if (m == ref || !mh.ratio) continue;
      if (mh.per_price_ratio) {
        const std::string cur = t.rows[m].price->currency;
        price.push_back(advantage_text(mh.per_price_ratio->estimate, conf, names[m], names[ref],
                                       "more per " + cur, "per " + cur));
      }
      speed.push_back(
          advantage_text(mh.ratio->estimate, conf, names[m], names[ref], "faster", "in speed"));
      if (mh.per_watt_ratio) {
        watt.push_back(advantage_text(mh.per_watt_ratio->estimate, conf, names[m], names[ref],
                                      "more per W", "per W"));
      }
    }
    if (speed.empty()) continue;
    for (auto* part : {&price, &speed, &watt}) {
      a.clauses.insert(a.clauses.end(), part->begin(), part->end());
    }
    a.benchmarks = one_benchmark ? rh.value.benchmark : join(benchmarks, "; ");
    out.push_back(a);
  }
  return out;
}

// `head: c1; c2; c3` in lines of at most `width` columns (0: one line), broken only after a
// clause's "; " so no interval and no name is split; continuation lines indented 4 more.
std::vector<std::string> sentence_lines(const std::string& indent, const std::string& head,
                                        const std::vector<std::string>& clauses,
                                        std::size_t width) {
  std::vector<std::string> lines = {indent + head + ":"};
  for (std::size_t i = 0; i < clauses.size(); ++i) {
    const std::string piece = clauses[i] + (i + 1 < clauses.size() ? ";" : "");
    if (width != 0 && display_width(lines.back()) + 1 + display_width(piece) > width &&
        display_width(lines.back()) > indent.size() + 4) {
      lines.push_back(indent + "    " + piece);
    } else {
      lines.back() += " " + piece;
    }
  }
  return lines;
}

// Where per W came from, in words, for the head of every format.
std::string power_words(const ModelsTable& t) {
  if (t.options.power == PowerSource::tdp) {
    return "per W from TDP (the prices file's power_w, else the enforced power limit)";
  }
  std::size_t samples = 0, telemetry = 0, none = 0;
  for (const ModelRow& r : t.rows) {
    samples += r.power.samples;
    telemetry += r.power.telemetry;
    none += r.power.none;
  }
  if (samples + telemetry == 0) {
    return "per W unknown: no measured power in these runs (neither NVML telemetry nor power_w "
           "counters in the samples); --power tdp gives per W from TDP";
  }
  std::string s = "per W from measured power (";
  if (samples > 0) s += "the samples' power_w counters";
  if (samples > 0 && telemetry > 0) s += ", else ";
  if (telemetry > 0) s += "NVML telemetry while the suite ran";
  return s + ")";
}

std::string memory_text(const ModelRow& r) {
  // As `show` prints a GPU's memory (80 GiB, not 85.90 GB).
  return r.memory_gb ? format_bytes_binary(*r.memory_gb * 1e9) : std::string("unknown");
}

std::string price_text(const ModelRow& r) {
  if (!r.price) return "no price";
  std::string s = num(r.price->price) + " " + r.price->currency;
  if (r.price->written_price) {
    s += " (" + num(*r.price->written_price) + " " + r.price->written_currency + " at " +
         num(r.price->rate) + ")";
  }
  return s;
}

// One model's facts: memory in GiB (as `show`), TDP, price, GiB per price unit.
std::string facts_line(const ModelRow& r) {
  std::string s = "memory " + memory_text(r);
  s += ", TDP " + (r.tdp_w ? num(*r.tdp_w) + " W" : std::string("unknown"));
  s += r.price ? ", price " + price_text(r) : ", no price";
  if (r.price && r.memory_gib_per_price) {
    s += ", " + num(*r.memory_gib_per_price) + " GiB/" + r.price->currency;
  }
  return s;
}

std::string composite_note(const ModelRow& r) {
  if (r.composite_missing.empty()) return "";
  std::vector<std::string> quoted;
  for (const std::string& p : r.composite_missing) quoted.push_back("'" + p + "'");
  return "composite: " + join(quoted, ", ") +
         " matched no benchmark of this model; renormalised over the other patterns";
}

// The figures with models as columns: (label, one cell per model), the first row the header.
std::vector<std::vector<std::string>> grid_rows(const ModelsTable& t) {
  const double conf = t.options.confidence;
  const auto names = short_names(t);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"figure [99% interval]"};
  for (std::size_t m = 0; m < t.rows.size(); ++m) {
    header.push_back(names[m] + (t.rows[m].is_reference ? " (ref)" : ""));
  }
  rows.push_back(header);
  const bool ratios = !t.reference_model.empty();
  const std::string cur = currency_of(t);
  auto add = [&](const std::string& label, const std::function<std::string(const ModelRow&)>& f) {
    std::vector<std::string> row = {label};
    bool any = false;
    for (const ModelRow& r : t.rows) {
      row.push_back(f(r));
      any = any || row.back() != "—";
    }
    if (any) rows.push_back(row);
  };
  for (std::size_t h = 0; !t.rows.empty() && h < t.rows.front().headline.size(); ++h) {
    const HeadlineFigure& first = t.rows.front().headline[h];
    bool measured = false;
    for (const ModelRow& r : t.rows) measured = measured || r.headline[h].value.estimate.valid();
    if (!measured) continue;
    auto fig = [&](auto pick) {
      return [&, pick](const ModelRow& r) {
        const HeadlineFigure& x = r.headline[h];
        return x.value.estimate.valid() ? pick(x) : std::string("—");
      };
    };
    add(first.label, fig([&](const HeadlineFigure& x) { return figure_text(x.value, conf); }));
    if (ratios) {
      add("  vs reference",
          fig([&](const HeadlineFigure& x) { return ratio_cell(x.ratio, conf); }));
    }
    if (!first.per_gpu) continue;
    add("  per W", fig([&](const HeadlineFigure& x) {
          return x.per_watt.estimate.valid() ? figure_text(x.per_watt, conf) : std::string("—");
        }));
    if (ratios) {
      add("  per W vs reference",
          fig([&](const HeadlineFigure& x) { return ratio_cell(x.per_watt_ratio, conf); }));
    }
    add("  per " + cur, fig([&](const HeadlineFigure& x) {
          return x.per_price.estimate.valid() ? figure_text(x.per_price, conf) : std::string("—");
        }));
    if (ratios) {
      add("  per " + cur + " vs reference",
          fig([&](const HeadlineFigure& x) { return ratio_cell(x.per_price_ratio, conf); }));
    }
  }
  std::set<std::string> suites;
  for (const ModelRow& r : t.rows) {
    for (const SuiteFigure& s : r.suites) suites.insert(s.suite);
  }
  for (const std::string& suite : suites) {
    auto of = [&](const ModelRow& r) -> const SuiteFigure* {
      for (const SuiteFigure& s : r.suites) {
        if (s.suite == suite) return &s;
      }
      return nullptr;
    };
    add("suite " + suite + " (geomean)", [&](const ModelRow& r) {
      const SuiteFigure* s = of(r);
      return s ? figure_text(s->geomean, conf) + " of " + std::to_string(s->benchmarks)
               : std::string("—");
    });
    if (ratios) {
      add("  vs reference", [&](const ModelRow& r) {
        const SuiteFigure* s = of(r);
        return s ? ratio_cell(s->ratio, conf) : std::string("—");
      });
    }
    add("suite " + suite + " % of peak", [&](const ModelRow& r) {
      const SuiteFigure* s = of(r);
      return s && s->pct_of_peak.estimate.valid() ? figure_text(s->pct_of_peak, conf)
                                                  : std::string("—");
    });
  }
  add("composite (weights)", [&](const ModelRow& r) {
    return r.composite ? figure_text(*r.composite, conf) : std::string("—");
  });
  if (ratios) {
    add("  vs reference",
        [&](const ModelRow& r) { return r.composite ? ratio_cell(r.composite_ratio, conf) : "—"; });
  }
  return rows;
}

std::vector<std::vector<std::string>> fact_rows(const ModelsTable& t) {
  std::vector<std::vector<std::string>> rows;
  auto fact = [&](const std::string& label, const std::function<std::string(const ModelRow&)>& f) {
    std::vector<std::string> cells = {label};
    for (const ModelRow& r : t.rows) cells.push_back(f(r));
    rows.push_back(cells);
  };
  fact("configuration", [](const ModelRow& r) {
    return std::to_string(r.gpus_per_node) + " GPUs/node, " + r.interconnect;
  });
  fact("pooled", [](const ModelRow& r) {
    return std::to_string(r.gpus) + " GPUs; " + runs_on_hosts(r.runs, r.hosts);
  });
  fact("memory per GPU", memory_text);
  fact("TDP", [](const ModelRow& r) { return r.tdp_w ? num(*r.tdp_w) + " W" : "unknown"; });
  fact("price", price_text);
  return rows;
}

}  // namespace gpubench::compare::models_layout
