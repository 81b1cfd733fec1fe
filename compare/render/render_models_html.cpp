// `gpubench models --format html` (compare/render/models_layout.hpp): models side by side in a
// table, one chart per headline figure and view, intervals as capped whiskers.
#include <algorithm>
#include <cmath>
#include <ostream>

#include "compare/render/html_style.hpp"
#include "compare/render/models_layout.hpp"
#include "compare/render/render.hpp"
#include "compare/render/render_models.hpp"
#include "compare/render/svg.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {

using namespace models_layout;  // NOLINT: this file is its other half

// One row per model: its figure as a dot, its interval as a whisker with caps, on an axis
// spanning the intervals (not from 0: a 99% interval of +-0.3% on a bar from 0 was a 2 px tick,
// issue 39; the head says where the axis starts). The value and interval are written in a column
// of their own right of the plot, so no text overlaps a whisker.
namespace {

void model_chart(std::ostream& out, const std::string& title, const std::string& unit,
                 const std::vector<BarRow>& rows) {
  // Monospace labels at 11px are ~6.9 px a character in Chromium; 7.2 leaves room.
  constexpr double k_char_w = 7.2, k_plot_w = 520, k_row_h = 26, k_top = 34, k_cap_h = 12;
  std::size_t longest = 0, longest_value = 0;
  std::vector<std::string> values;
  double lo = INFINITY, hi = -INFINITY;
  for (const BarRow& r : rows) {
    longest = std::max(longest, r.label.size());
    std::string v = format_significant(r.value, 4);
    if (std::isfinite(r.low)) {
      v += " [" + format_significant(r.low, 4) + ", " + format_significant(r.high, 4) + "]";
    }
    longest_value = std::max(longest_value, v.size());
    values.push_back(v);
    lo = std::min({lo, r.value, std::isfinite(r.low) ? r.low : r.value});
    hi = std::max({hi, r.value, std::isfinite(r.high) ? r.high : r.value});
  }
  const double label_w = std::max(120.0, 16.0 + k_char_w * static_cast<double>(longest));
  double span = hi - lo;
  if (!(span > 0)) span = std::max(std::fabs(hi) * 0.02, 1e-12);
  const double axis_lo = lo - 0.15 * span, axis_hi = hi + 0.15 * span;
  auto tx = [&](double v) { return label_w + (v - axis_lo) / (axis_hi - axis_lo) * k_plot_w; };
  const std::string heading =
      (unit.empty() || title.find(unit) != std::string::npos ? title : title + " (" + unit + ")") +
      ", axis from " + svg::tick_number(axis_lo);
  const double height = k_top + k_row_h * static_cast<double>(rows.size()) + 30;
  const double value_x = label_w + k_plot_w + 16;
  // Values at 11px system-ui: ~6.5 px a character; 7 leaves room.
  const double width = std::max(value_x + 7.0 * static_cast<double>(longest_value) + 10,
                                8.0 * static_cast<double>(heading.size()) + 10);
  char buf[320];
  out << "<svg class=\"chart\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 "
      << width << ' ' << height << "\" role=\"img\"><title>" << html_escape(heading)
      << "</title>\n<text x=\"4\" y=\"16\" class=\"ct\">" << html_escape(heading) << "</text>\n";
  const double bottom = height - 26;
  std::snprintf(buf, sizeof buf,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>", label_w,
                bottom, label_w + k_plot_w, bottom);
  out << buf;
  for (int i = 0; i <= 4; ++i) {
    const double v = axis_lo + (axis_hi - axis_lo) * i / 4;
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">",
                  tx(v), k_top - 4, tx(v), bottom, tx(v), bottom + 16);
    out << buf << html_escape(svg::tick_number(v)) << "</text>";
  }
  out << '\n';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const BarRow& r = rows[i];
    const double y = k_top + k_row_h * static_cast<double>(i), mid = y + k_row_h / 2;
    out << "<g><title>" << html_escape(r.label) << ": " << html_escape(values[i]) << ' '
        << html_escape(unit) << "</title>";
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"lab\">",
                  label_w - 8, mid + 4);
    out << buf << html_escape(r.label) << "</text>";
    if (std::isfinite(r.low) && std::isfinite(r.high)) {
      // The whisker and its caps: 2 px lines (class ci), caps 12 px tall at both ends.
      std::snprintf(buf, sizeof buf,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"ci\"/>"
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"ci cap\"/>"
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"ci cap\"/>",
                    tx(r.low), mid, tx(r.high), mid, tx(r.low), mid - k_cap_h / 2, tx(r.low),
                    mid + k_cap_h / 2, tx(r.high), mid - k_cap_h / 2, tx(r.high),
                    mid + k_cap_h / 2);
      out << buf;
    }
    std::snprintf(buf, sizeof buf, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" class=\"pt\"/>",
                  tx(r.value), mid);
    out << buf;
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">", value_x, mid + 4);
    out << buf << html_escape(values[i]) << "</text></g>\n";
  }
  out << "</svg>\n";
}

}  // namespace

// Models side by side: a <table> with one column per model, then per headline figure one chart
// for throughput, per W and per price, each model a bar with its interval as a capped whisker.
// Fits a 1400 px page: names wrap in the first column, a table wider than the page scrolls
// inside its own box.
void render_models_html(std::ostream& out, const ModelsTable& t) {
  const double conf = t.options.confidence;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>GPU "
         "models</title>\n<style>"
      << k_html_style
      << "div.scroll{overflow-x:auto;max-width:100%}table.models td{white-space:nowrap}"
         "table.models td.lab{white-space:normal;min-width:12em;max-width:22em}"
         "table.models td.sub{padding-left:1.6em;color:#444}"
         "ul.answer li{margin:.3em 0}"
      << "</style></head><body>\n<h1>GPU models</h1>\n<p class=\"note\">99% intervals over GPUs "
         "x runs; "
      << html_escape(power_words(t))
      << (t.reference_model.empty() ? "" : "; ratios against " + html_escape(t.reference_model))
      << "; * = one unit, interval from its repetitions only</p>\n";
  const auto answer = purchase_answer(t);
  if (!answer.empty()) {
    out << "<h2>Purchase answer</h2>\n<ul class=\"answer\">\n";
    for (const Answer& a : answer) {
      out << "<li><b>" << html_escape(a.head) << "</b>: " << html_escape(join(a.clauses, "; "))
          << " <span class=\"note\">(" << html_escape(a.label) << ", headline benchmark "
          << html_escape(a.benchmarks) << ")</span></li>\n";
    }
    out << "</ul>\n";
  }
  out << "<h2>Models</h2>\n<div class=\"scroll\"><table class=\"models\">\n";
  const auto grid = grid_rows(t);
  auto row = [&](const std::vector<std::string>& cells, bool head) {
    out << "<tr>";
    for (std::size_t c = 0; c < cells.size(); ++c) {
      // A sub-row ("  per W") indented by its class: HTML collapses the leading blanks.
      const bool sub = c == 0 && cells[c].starts_with("  ");
      out << (head ? "<th" : "<td")
          << (c == 0 ? (sub ? " class=\"lab sub\"" : " class=\"lab\"") : " class=\"num\"") << '>'
          << html_escape(sub ? cells[c].substr(2) : cells[c]) << (head ? "</th>" : "</td>");
    }
    out << "</tr>\n";
  };
  row(grid.front(), true);
  for (const auto& cells : fact_rows(t)) row(cells, false);
  for (std::size_t i = 1; i < grid.size(); ++i) row(grid[i], false);
  out << "</table></div>\n";
  for (const ModelRow& r : t.rows) {
    for (const FleetOutlier& o : r.excluded) {
      out << "<p class=\"note\">excluded outlier GPU (" << html_escape(r.gpu_model) << ") "
          << html_escape(outlier_text(o)) << "</p>\n";
    }
    if (!r.composite_missing.empty()) {
      out << "<p class=\"note\">" << html_escape(r.gpu_model) << ": "
          << html_escape(composite_note(r)) << "</p>\n";
    }
  }
  // One chart per headline figure and view (throughput, per W, per price), models side by side.
  for (std::size_t i = 0; !t.rows.empty() && i < t.rows.front().headline.size(); ++i) {
    for (int view = 0; view < 3; ++view) {
      std::vector<BarRow> bars;
      std::string unit;
      for (const ModelRow& r : t.rows) {
        const HeadlineFigure& h = r.headline[i];
        const Figure& f = view == 0 ? h.value : view == 1 ? h.per_watt : h.per_price;
        if (!f.estimate.valid()) continue;
        unit = f.unit;
        bars.push_back({r.gpu_model + " x" + std::to_string(r.gpus_per_node), f.estimate.value(),
                        f.estimate.low(conf), f.estimate.high(conf)});
      }
      const std::string& label = t.rows.front().headline[i].label;
      const std::string title = view == 0   ? label
                                : view == 1 ? label + " per W"
                                            : label + " per " + currency_of(t);
      if (!bars.empty()) model_chart(out, title, unit, bars);
    }
  }
  out << "</body></html>\n";
}

}  // namespace gpubench::compare
