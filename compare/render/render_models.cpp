// `gpubench models` in every format (compare/render/render_models.hpp).
#include "compare/render/render_models.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "compare/render/html_style.hpp"
#include "compare/render/lists.hpp"
#include "compare/render/models_layout.hpp"
#include "compare/render/render.hpp"
#include "compare/render/svg.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::compare {

using namespace models_layout;  // NOLINT: this file is its other half

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
               r.memory_gb_per_price ? json(*r.memory_gb_per_price) : json(nullptr)},
              {"memory_GiB", r.memory_gib ? json(*r.memory_gib) : json(nullptr)},
              {"memory_GiB_per_price",
               r.memory_gib_per_price ? json(*r.memory_gib_per_price) : json(nullptr)},
              {"power_units",
               {{"samples", r.power.samples},
                {"telemetry", r.power.telemetry},
                {"tdp", r.power.tdp},
                {"none", r.power.none}}},
              {"composite_missing", r.composite_missing}};
    m["price"] = nullptr;
    if (r.price) {
      m["price"] = {{"value", r.price->price}, {"currency", r.price->currency}};
      if (r.price->written_price) {
        m["price"]["written"] = {{"value", *r.price->written_price},
                                 {"currency", r.price->written_currency},
                                 {"rate", r.price->rate}};
      }
    }
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
                               {"ratio", ratio_json(h.ratio, conf)},
                               {"per_watt_ratio", ratio_json(h.per_watt_ratio, conf)},
                               {"per_price_ratio", ratio_json(h.per_price_ratio, conf)}});
    }
    m["composite"] = r.composite ? figure_json(*r.composite, conf) : json(nullptr);
    m["composite_ratio"] = ratio_json(r.composite_ratio, conf);
    models.push_back(m);
  }
  json weights = json::array();
  for (const WeightEntry& w : t.options.weights) {
    weights.push_back({{"pattern", w.pattern}, {"weight", w.weight}});
  }
  json unmatched = json::array();
  for (const WeightEntry& w : t.unmatched_weights) unmatched.push_back(w.pattern);
  return {{"schema", "gpubench.models/1"},
          {"confidence", conf},
          {"unmatched_weights", unmatched},
          {"power", t.options.power == PowerSource::tdp ? "tdp" : "measured"},
          {"reference", t.reference_model.empty() ? json(nullptr) : json(t.reference_model)},
          {"weights", weights},
          {"models", models}};
}

// Columns padded to their widest cell, two spaces apart; when that is wider than `width` (0: no
// limit), each row stacked instead: its label, then one "model: cell" line per model, so no
// number is ever cut.
void text_grid(std::ostream& out, const std::vector<std::vector<std::string>>& rows,
               std::size_t width) {
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], display_width(row[c]));
    }
  }
  std::size_t total = 2;
  for (std::size_t w : widths) total += w + 2;
  if (width == 0 || total - 2 <= width) {
    for (const auto& row : rows) {
      std::string line = "  ";
      for (std::size_t c = 0; c < row.size(); ++c) {
        line += row[c];
        if (c + 1 < row.size()) line += std::string(widths[c] + 2 - display_width(row[c]), ' ');
      }
      out << line << '\n';
    }
    return;
  }
  // The labels on lines of their own above the cells, the cells' columns under the models.
  std::size_t cells = 6;
  for (std::size_t c = 1; c < widths.size(); ++c) cells += widths[c] + 2;
  if (cells - 2 <= width) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (i > 0) out << "  " << rows[i][0] << '\n';
      std::string line = "      ";
      for (std::size_t c = 1; c < rows[i].size(); ++c) {
        line += rows[i][c];
        if (c + 1 < rows[i].size()) {
          line += std::string(widths[c] + 2 - display_width(rows[i][c]), ' ');
        }
      }
      out << line << '\n';
    }
    return;
  }
  for (std::size_t i = 1; i < rows.size(); ++i) {
    out << "  " << rows[i][0] << '\n';
    for (std::size_t c = 1; c < rows[i].size(); ++c) {
      out << "      " << rows[0][c] << ": " << rows[i][c] << '\n';
    }
  }
}

// Markdown and text share the head: what the figures are, the purchase answer, each model's facts.
void render_text(std::ostream& out, const ModelsTable& t, std::size_t width) {
  out << "GPU models\n";
  out << "99% intervals over GPUs x runs; " << power_words(t)
      << (t.reference_model.empty() ? "" : "; ratios against " + t.reference_model)
      << "; * = one unit, interval from its repetitions only\n";
  const auto answer = purchase_answer(t);
  if (!answer.empty()) {
    std::size_t ref = 0;
    while (!t.rows[ref].is_reference) ++ref;  // purchase_answer is empty without one
    out << "\nPurchase answer (against " << short_names(t)[ref] << ", 99% intervals):\n";
    for (const Answer& a : answer) {
      for (const std::string& line : sentence_lines("  ", a.head, a.clauses, width)) {
        out << line << '\n';
      }
      for (const std::string& line :
           name_lines("    " + a.label + ", headline benchmark ", a.benchmarks, width)) {
        out << line << '\n';
      }
    }
  } else if (t.reference_model.empty() && t.rows.size() > 1) {
    out << "\n--reference MODEL gives the purchase answer: each model against it, per price, "
           "per W and in speed\n";
  }
  for (std::size_t m = 0; m < t.rows.size(); ++m) {
    const ModelRow& r = t.rows[m];
    out << '\n' << row_title(r) << (r.is_reference ? " [reference]" : "") << '\n';
    out << "  " << r.gpus << " GPU(s) pooled; " << runs_on_hosts(r.runs, r.hosts) << '\n';
    out << "  " << facts_line(r) << '\n';
    if (!r.composite_missing.empty()) out << "  " << composite_note(r) << '\n';
    for (const FleetOutlier& o : r.excluded) {
      out << "  excluded outlier GPU " << outlier_text(o) << '\n';
    }
  }
  out << '\n';
  text_grid(out, grid_rows(t), width);
}

void render_markdown(std::ostream& out, const ModelsTable& t) {
  // Stored text (model and host names, currencies) escaped as compare's Markdown escapes it
  // (issue 43: raw HTML reached the purchase memo).
  out << "# GPU models\n\n99% intervals over GPUs x runs; " << markdown_escape(power_words(t))
      << (t.reference_model.empty() ? "" : "; ratios against " + markdown_escape(t.reference_model))
      << "; \\* = one unit, interval from its repetitions only\n";
  const auto answer = purchase_answer(t);
  if (!answer.empty()) {
    out << "\n## Purchase answer\n\n";
    for (const Answer& a : answer) {
      out << "- **" << markdown_escape(a.head) << "**: " << markdown_escape(join(a.clauses, "; "))
          << " (" << markdown_escape(a.label) << ", headline benchmark "
          << markdown_escape(a.benchmarks) << ")\n";
    }
  }
  out << "\n## Models\n\n";
  auto row = [&](const std::vector<std::string>& cells) {
    out << '|';
    for (const std::string& c : cells) out << ' ' << markdown_escape(c) << " |";
    out << '\n';
  };
  auto grid = grid_rows(t);
  row(grid.front());
  out << "|---|";
  for (std::size_t m = 0; m < t.rows.size(); ++m) out << "---:|";
  out << '\n';
  for (const auto& cells : fact_rows(t)) row(cells);
  for (std::size_t i = 1; i < grid.size(); ++i) row(grid[i]);
  bool notes = false;
  for (const ModelRow& r : t.rows) {
    for (const FleetOutlier& o : r.excluded) {
      out << (notes ? "" : "\n") << "- excluded outlier GPU (" << markdown_escape(r.gpu_model)
          << ") " << markdown_escape(outlier_text(o)) << '\n';
      notes = true;
    }
    if (!r.composite_missing.empty()) {
      out << (notes ? "" : "\n") << "- " << markdown_escape(r.gpu_model) << ": "
          << markdown_escape(composite_note(r)) << '\n';
      notes = true;
    }
  }
}

void render_csv(std::ostream& out, const ModelsTable& t) {
  const double conf = t.options.confidence;
  out << "gpu_model,gpus_per_node,interconnect,figure,benchmark,unit,value,low,high,"
         "per_watt,per_watt_low,per_watt_high,per_price,per_price_low,per_price_high,currency,"
         "ratio,ratio_low,ratio_high,per_watt_ratio,per_watt_ratio_low,per_watt_ratio_high,"
         "per_price_ratio,per_price_ratio_low,per_price_ratio_high,memory_GiB\n";
  auto cell = [](double v) { return std::isfinite(v) ? format_significant(v, 6) : std::string(); };
  auto fig = [&](const Figure& f) {
    return cell(f.estimate.valid() ? f.estimate.value() : NAN) + "," + cell(f.estimate.low(conf)) +
           "," + cell(f.estimate.high(conf));
  };
  auto ratio_cells = [&](const std::optional<Ratio>& r) {
    return r ? fig(Figure{r->estimate, "", "", ""}) : std::string(",,");
  };
  for (const ModelRow& r : t.rows) {
    auto line = [&](const std::string& key, const Figure& f, const HeadlineFigure* h,
                    const std::optional<Ratio>& ratio) {
      out << csv_field(r.gpu_model) << ',' << r.gpus_per_node << ',' << csv_field(r.interconnect)
          << ',' << csv_field(key) << ',' << csv_field(f.benchmark) << ',' << csv_field(f.unit)
          << ',' << fig(f) << ',' << (h ? fig(h->per_watt) : ",,") << ','
          << (h ? fig(h->per_price) : ",,") << ',' << csv_field(r.price ? r.price->currency : "")
          << ',' << ratio_cells(ratio) << ',' << (h ? ratio_cells(h->per_watt_ratio) : ",,") << ','
          << (h ? ratio_cells(h->per_price_ratio) : ",,") << ','
          << (r.memory_gib ? cell(*r.memory_gib) : "") << '\n';
    };
    for (const HeadlineFigure& h : r.headline) {
      if (h.value.estimate.valid()) line(h.key, h.value, &h, h.ratio);
    }
    for (const SuiteFigure& s : r.suites) line("suite:" + s.suite, s.geomean, nullptr, s.ratio);
    if (r.composite) line("composite", *r.composite, nullptr, r.composite_ratio);
  }
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
    render_markdown(out, table);
  } else if (format == "text") {  // fits the terminal (issue 26)
    std::ostringstream text;
    render_text(text, table, output_width());
    out << wrap_lines(text.str(), output_width());
  } else if (format == "csv") {
    render_csv(out, table);
  } else if (format == "html") {
    render_models_html(out, table);
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
