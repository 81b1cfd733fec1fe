// `gpubench models` in every format (compare/render/render_models.hpp).
#include "compare/render/render_models.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compare/render/html_style.hpp"
#include "compare/render/render.hpp"
#include "compare/render/svg.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::compare {

using nlohmann::json;

namespace {

json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

json figure_json(const Figure& f, double conf) {
  json j = {{"value", f.estimate.valid() ? number(f.estimate.value()) : json(nullptr)},
            {"low", number(f.estimate.low(conf))},
            {"high", number(f.estimate.high(conf))},
            {"unit", f.unit},
            {"n", f.estimate.n},
            {"within_run_only", f.estimate.within_run_only}};
  if (!f.benchmark.empty()) j["benchmark"] = f.benchmark;
  if (!f.note.empty()) j["note"] = f.note;
  return j;
}

json ratio_json(const std::optional<Ratio>& r, double conf) {
  if (!r) return nullptr;
  return {{"value", number(r->estimate.value())},
          {"low", number(r->estimate.low(conf))},
          {"high", number(r->estimate.high(conf))},
          {"wording", r->wording}};
}

json models_json(const ModelsTable& t) {
  const double conf = t.options.confidence;
  json models = json::array();
  for (const ModelRow& r : t.rows) {
    json m = {{"gpu_model", r.gpu_model},
              {"gpus_per_node", r.gpus_per_node},
              {"interconnect", r.interconnect},
              {"runs", r.runs},
              {"hosts", r.hosts},
              {"gpus_pooled", r.gpus},
              {"reference", r.is_reference},
              {"memory_GB", r.memory_gb ? json(*r.memory_gb) : json(nullptr)},
              {"tdp_W", r.tdp_w ? json(*r.tdp_w) : json(nullptr)},
              {"memory_GB_per_price",
               r.memory_gb_per_price ? json(*r.memory_gb_per_price) : json(nullptr)}};
    m["price"] =
        r.price ? json{{"value", r.price->price}, {"currency", r.price->currency}} : json(nullptr);
    m["excluded"] = json::array();
    for (const FleetOutlier& o : r.excluded) m["excluded"].push_back(fleet_outlier_json(o));
    m["suites"] = json::array();
    for (const SuiteFigure& s : r.suites) {
      m["suites"].push_back({{"suite", s.suite},
                             {"benchmarks", s.benchmarks},
                             {"geomean", figure_json(s.geomean, conf)},
                             {"pct_of_peak", figure_json(s.pct_of_peak, conf)},
                             {"ratio", ratio_json(s.ratio, conf)}});
    }
    m["headline"] = json::array();
    for (const HeadlineFigure& h : r.headline) {
      m["headline"].push_back({{"key", h.key},
                               {"label", h.label},
                               {"per_gpu", h.per_gpu},
                               {"figure", figure_json(h.value, conf)},
                               {"per_watt", figure_json(h.per_watt, conf)},
                               {"per_price", figure_json(h.per_price, conf)},
                               {"ratio", ratio_json(h.ratio, conf)}});
    }
    m["composite"] = r.composite ? figure_json(*r.composite, conf) : json(nullptr);
    m["composite_ratio"] = ratio_json(r.composite_ratio, conf);
    models.push_back(m);
  }
  json weights = json::array();
  for (const WeightEntry& w : t.options.weights) {
    weights.push_back({{"pattern", w.pattern}, {"weight", w.weight}});
  }
  return {{"schema", "gpubench.models/1"},
          {"confidence", conf},
          {"power", t.options.power == PowerSource::tdp ? "tdp" : "measured"},
          {"reference", t.reference_model.empty() ? json(nullptr) : json(t.reference_model)},
          {"weights", weights},
          {"models", models}};
}

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

std::string ratio_text(const std::optional<Ratio>& r, double conf) {
  if (!r) return "—";
  if (r->wording == "reference") return "reference";
  return r->wording + " [" + num(r->estimate.low(conf)) + ", " + num(r->estimate.high(conf)) + "]";
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

// A table in lines of at most `width` columns (0: no limit; util/text_width.hpp fit_table).
void text_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
                const std::string& indent, std::size_t width) {
  for (const std::string& line : fit_table(rows, width, indent)) out << line << '\n';
}

// The rows of one model's figure table (text and Markdown).
std::vector<std::vector<std::string>> figure_rows(const ModelsTable& t, const ModelRow& r) {
  const double conf = t.options.confidence;
  const std::string per_price = r.price ? "per " + r.price->currency : "per price";
  std::vector<std::vector<std::string>> rows = {
      {"figure", "value [99% interval]", "per W", per_price, "vs reference"}};
  for (const HeadlineFigure& h : r.headline) {
    if (!h.value.estimate.valid()) continue;
    rows.push_back({h.label, figure_text(h.value, conf), figure_text(h.per_watt, conf),
                    figure_text(h.per_price, conf), ratio_text(h.ratio, conf)});
  }
  for (const SuiteFigure& s : r.suites) {
    std::string label = "suite " + s.suite + " (geomean of " + std::to_string(s.benchmarks) + ")";
    rows.push_back({label, figure_text(s.geomean, conf), "", "", ratio_text(s.ratio, conf)});
    if (s.pct_of_peak.estimate.valid()) {
      rows.push_back(
          {"suite " + s.suite + " % of peak", figure_text(s.pct_of_peak, conf), "", "", ""});
    }
  }
  if (r.composite) {
    rows.push_back({"composite (weights)", figure_text(*r.composite, conf), "", "",
                    ratio_text(r.composite_ratio, conf)});
  }
  return rows;
}

std::string facts_line(const ModelRow& r) {
  std::string s = "memory " + (r.memory_gb ? num(*r.memory_gb) + " GB" : std::string("unknown"));
  s += ", TDP " + (r.tdp_w ? num(*r.tdp_w) + " W" : std::string("unknown"));
  if (r.price) {
    s += ", price " + num(r.price->price) + " " + r.price->currency;
    if (r.memory_gb_per_price) s += ", " + num(*r.memory_gb_per_price) + " GB/" + r.price->currency;
  } else {
    s += ", no price";
  }
  return s;
}

// `width`: the text's columns (0: no limit); Markdown is never fitted.
void render_text(std::ostream& out, const ModelsTable& t, bool markdown, std::size_t width = 0) {
  const std::string power = t.options.power == PowerSource::tdp ? "TDP" : "measured power";
  // Stored text (model and host names, currencies) in Markdown escaped as compare's Markdown
  // escapes it (issue 43: raw HTML reached the purchase memo).
  const auto esc = [markdown](const std::string& text) {
    return markdown ? markdown_escape(text) : text;
  };
  out << (markdown ? "# GPU models\n\n" : "GPU models\n");
  out << "99% intervals over GPUs x runs; per W from " << power
      << (t.reference_model.empty() ? "" : "; ratios against " + esc(t.reference_model))
      << "; * = one unit, interval from its repetitions only\n";
  for (const ModelRow& r : t.rows) {
    out << '\n'
        << (markdown ? "## " : "") << esc(row_title(r)) << (r.is_reference ? " [reference]" : "")
        << '\n';
    if (markdown) out << '\n';
    out << (markdown ? "- " : "  ") << r.gpus << " GPU(s) pooled, runs ";
    std::vector<std::string> ids;
    for (int64_t id : r.runs) ids.push_back(std::to_string(id));
    out << join(ids, ",") << ", hosts " << esc(join(r.hosts, ",")) << '\n';
    out << (markdown ? "- " : "  ") << esc(facts_line(r)) << '\n';
    for (const FleetOutlier& o : r.excluded) {
      out << (markdown ? "- " : "  ") << "excluded outlier GPU " << esc(outlier_text(o)) << '\n';
    }
    const auto rows = figure_rows(t, r);
    if (markdown) {
      out << '\n';
      for (std::size_t i = 0; i < rows.size(); ++i) {
        out << '|';
        for (const std::string& c : rows[i]) out << ' ' << markdown_escape(c) << " |";
        out << '\n';
        if (i == 0) out << "|---|---:|---:|---:|---|\n";
      }
    } else {
      text_table(out, rows, "  ", width);
    }
  }
}

void render_csv(std::ostream& out, const ModelsTable& t) {
  const double conf = t.options.confidence;
  out << "gpu_model,gpus_per_node,interconnect,figure,benchmark,unit,value,low,high,"
         "per_watt,per_watt_low,per_watt_high,per_price,per_price_low,per_price_high,currency,"
         "ratio,ratio_low,ratio_high\n";
  auto cell = [](double v) { return std::isfinite(v) ? format_significant(v, 6) : std::string(); };
  auto fig = [&](const Figure& f) {
    return cell(f.estimate.valid() ? f.estimate.value() : NAN) + "," + cell(f.estimate.low(conf)) +
           "," + cell(f.estimate.high(conf));
  };
  for (const ModelRow& r : t.rows) {
    auto line = [&](const std::string& key, const Figure& f, const Figure* pw, const Figure* pp,
                    const std::optional<Ratio>& ratio) {
      out << csv_field(r.gpu_model) << ',' << r.gpus_per_node << ',' << csv_field(r.interconnect)
          << ',' << csv_field(key) << ',' << csv_field(f.benchmark) << ',' << csv_field(f.unit)
          << ',' << fig(f) << ',' << (pw ? fig(*pw) : ",,") << ',' << (pp ? fig(*pp) : ",,") << ','
          << csv_field(r.price ? r.price->currency : "") << ','
          << (ratio ? fig(Figure{ratio->estimate, "", "", ""}) : ",,") << '\n';
    };
    for (const HeadlineFigure& h : r.headline) {
      if (h.value.estimate.valid()) line(h.key, h.value, &h.per_watt, &h.per_price, h.ratio);
    }
    for (const SuiteFigure& s : r.suites)
      line("suite:" + s.suite, s.geomean, nullptr, nullptr, s.ratio);
    if (r.composite) line("composite", *r.composite, nullptr, nullptr, r.composite_ratio);
  }
}

void render_html(std::ostream& out, const ModelsTable& t) {
  const double conf = t.options.confidence;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>GPU "
         "models</title>\n<style>"
      << k_html_style << "</style></head><body>\n<h1>GPU models</h1>\n";
  std::ostringstream text;
  render_text(text, t, false);
  out << "<pre>" << html_escape(text.str()) << "</pre>\n";
  // One chart per headline figure that at least one model has, models side by side.
  for (std::size_t i = 0; !t.rows.empty() && i < t.rows.front().headline.size(); ++i) {
    std::vector<BarRow> bars;
    std::string unit;
    for (const ModelRow& r : t.rows) {
      const Figure& f = r.headline[i].value;
      if (!f.estimate.valid()) continue;
      unit = f.unit;
      bars.push_back({r.gpu_model + " x" + std::to_string(r.gpus_per_node), f.estimate.value(),
                      f.estimate.low(conf), f.estimate.high(conf)});
    }
    if (!bars.empty()) bar_chart(out, t.rows.front().headline[i].label, unit, bars);
  }
  out << "</body></html>\n";
}

}  // namespace

json fleet_outlier_json(const FleetOutlier& o) {
  return {{"gpu_model", o.gpu_model},
          {"host", o.host},
          {"uuid", o.uuid},
          {"pci_bus_id", o.pci_bus_id},
          {"nvml_index", o.nvml_index},
          {"suite", o.suite},
          {"benchmark", o.benchmark},
          {"metric", o.metric},
          {"value", number(o.value)},
          {"model_median", number(o.model_median)},
          {"deviation", number(o.deviation)},
          {"robust_z", std::isfinite(o.z) ? json(o.z) : json(o.z < 0 ? "-inf" : "inf")},
          {"series", o.series},
          {"differences", o.differences}};
}

void render_models(std::ostream& out, const ModelsTable& table, const std::string& format) {
  if (format == "json") {
    out << json_text(models_json(table), 2) << '\n';
  } else if (format == "md") {
    render_text(out, table, true);
  } else if (format == "text") {  // fits the terminal (issue 26)
    std::ostringstream text;
    render_text(text, table, false, output_width());
    out << wrap_lines(text.str(), output_width());
  } else if (format == "csv") {
    render_csv(out, table);
  } else if (format == "html") {
    render_html(out, table);
  } else {
    throw bad_input("unknown --format '" + format + "'", "", "use text, md, html, json or csv");
  }
}

void bar_chart(std::ostream& out, const std::string& title, const std::string& unit,
               const std::vector<BarRow>& rows) {
  // Monospace labels at 11px are ~6.9 px a character in Chromium; 7.2 leaves room.
  constexpr double k_char_w = 7.2, k_plot_w = 420, k_row_h = 22, k_top = 34;
  std::size_t longest = 0;
  for (const BarRow& r : rows) longest = std::max(longest, r.label.size());
  const double label_w = std::max(120.0, 16.0 + k_char_w * static_cast<double>(longest));
  double top = 0;
  for (const BarRow& r : rows) {
    top = std::max(top, std::isfinite(r.high) ? r.high : r.value);
  }
  top = top > 0 ? top * 1.1 : 1;
  auto tx = [&](double v) { return label_w + std::clamp(v, 0.0, top) / top * k_plot_w; };
  const std::string heading =
      unit.empty() || title.find(unit) != std::string::npos ? title : title + " (" + unit + ")";
  const double height = k_top + k_row_h * static_cast<double>(rows.size()) + 30;
  const double width =
      std::max(label_w + k_plot_w + 80, 8.0 * static_cast<double>(heading.size()) + 10);
  char buf[256];
  out << "<svg class=\"chart\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 "
      << width << ' ' << height << "\" role=\"img\"><title>" << html_escape(heading)
      << "</title>\n<text x=\"4\" y=\"16\" class=\"ct\">" << html_escape(heading) << "</text>\n";
  const double bottom = height - 26;
  for (int i = 0; i <= 4; ++i) {
    const double v = top * i / 4;
    std::snprintf(buf, sizeof buf,
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">", tx(v),
                  bottom + 16);
    out << buf << html_escape(svg::tick_number(v)) << "</text>";
  }
  out << '\n';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BarRow& r = rows[i];
    const double y = k_top + k_row_h * static_cast<double>(i);
    out << "<g><title>" << html_escape(r.label) << ": " << format_significant(r.value, 4);
    if (std::isfinite(r.low)) {
      out << " [" << format_significant(r.low, 4) << ", " << format_significant(r.high, 4) << "]";
    }
    out << ' ' << html_escape(unit) << "</title>";
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"lab\">",
                  label_w - 8, y + k_row_h / 2 + 4);
    out << buf << html_escape(r.label) << "</text>";
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#7aa6d6\"/>",
                  label_w, y + 3, tx(r.value) - label_w, k_row_h - 6);
    out << buf;
    if (std::isfinite(r.low) && std::isfinite(r.high)) {
      std::snprintf(buf, sizeof buf,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"ci\"/>",
                    tx(r.low), y + k_row_h / 2, tx(r.high), y + k_row_h / 2);
      out << buf;
    }
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">",
                  tx(std::isfinite(r.high) ? r.high : r.value) + 4, y + k_row_h / 2 + 4);
    out << buf << html_escape(format_significant(r.value, 4)) << "</text></g>\n";
  }
  out << "</svg>\n";
}

}  // namespace gpubench::compare
