#include "compare/render/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "compare/render/render.hpp"
#include "util/strings.hpp"

namespace gpubench::compare::svg {
namespace {

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Characters, not bytes: a UTF-8 continuation byte does not take room.
std::size_t utf8_length(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string tick_text(double v) {
  double a = std::fabs(v);
  if (a >= 1e9) return tick_number(v / 1e9) + "G";
  if (a >= 1e6) return tick_number(v / 1e6) + "M";
  if (a >= 1e3) return tick_number(v / 1e3) + "k";
  return tick_number(v);
}

}  // namespace

void line_chart(std::ostream& out, const std::string& title, const std::string& x_label,
                const std::string& y_label, const std::vector<Series>& series) {
  constexpr double k_h = 300, k_left = 70, k_right = 20, k_top = 30, k_bottom = 50;
  // Wide enough for the title (bold 13px, ~8 px a character): titles are never cut.
  const double k_w = std::max(640.0, k_left + 8.0 * static_cast<double>(utf8_length(title)) + 10);
  double x_min = INFINITY, x_max = -INFINITY, y_max = 0;
  for (const auto& s : series) {
    for (auto [x, y] : s.points) {
      x_min = std::min(x_min, x);
      x_max = std::max(x_max, x);
      if (std::isfinite(y)) y_max = std::max(y_max, y);
    }
  }
  if (!std::isfinite(x_min)) return;
  bool log_x = x_min > 0 && x_max / x_min > 16;
  auto tx = [&](double x) {
    double a = log_x ? std::log2(x) : x;
    double lo = log_x ? std::log2(x_min) : x_min;
    double hi = log_x ? std::log2(x_max) : x_max;
    double f = hi > lo ? (a - lo) / (hi - lo) : 0.5;
    return k_left + f * (k_w - k_left - k_right);
  };
  if (y_max <= 0) y_max = 1;
  y_max *= 1.1;
  auto ty = [&](double y) { return k_h - k_bottom - y / y_max * (k_h - k_top - k_bottom); };
  out << "<svg class=\"chart\" width=\"" << k_w << "\" height=\"" << k_h << "\" viewBox=\"0 0 "
      << k_w << ' ' << k_h << "\" role=\"img\">"
      << "<title>" << html_escape(title) << "</title>\n";
  out << "<text x=\"" << k_left << "\" y=\"18\" class=\"ct\">" << html_escape(title) << "</text>\n";
  // Axes and ticks: 5 on y, the data's own x values (at most 12) on x.
  out << "<line x1=\"" << k_left << "\" y1=\"" << ty(0) << "\" x2=\"" << k_w - k_right << "\" y2=\""
      << ty(0) << "\" class=\"axis\"/>";
  out << "<line x1=\"" << k_left << "\" y1=\"" << k_top << "\" x2=\"" << k_left << "\" y2=\""
      << ty(0) << "\" class=\"axis\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    double y = y_max / 1.1 * i / 4;
    out << "<text x=\"" << k_left - 6 << "\" y=\"" << fixed(ty(y) + 4)
        << "\" text-anchor=\"end\" class=\"tick\">" << tick_text(y) << "</text>"
        << "<line x1=\"" << k_left << "\" y1=\"" << fixed(ty(y)) << "\" x2=\"" << k_w - k_right
        << "\" y2=\"" << fixed(ty(y)) << "\" class=\"grid\"/>\n";
  }
  std::vector<double> xs;
  for (const auto& s : series) {
    for (auto [x, y] : s.points) xs.push_back(x);
  }
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::size_t step = std::max<std::size_t>(1, (xs.size() + 11) / 12);
  for (std::size_t i = 0; i < xs.size(); i += step) {
    out << "<text x=\"" << fixed(tx(xs[i])) << "\" y=\"" << k_h - k_bottom + 16
        << "\" text-anchor=\"middle\" class=\"tick\">" << tick_text(xs[i]) << "</text>";
  }
  out << "\n<text x=\"" << (k_left + k_w - k_right) / 2 << "\" y=\"" << k_h - 8
      << "\" text-anchor=\"middle\" class=\"lbl\">" << html_escape(x_label)
      << (log_x ? " (log scale)" : "") << "</text>";
  out << "<text x=\"14\" y=\"" << (k_top + k_h - k_bottom) / 2
      << "\" text-anchor=\"middle\" class=\"lbl\" transform=\"rotate(-90 14 "
      << (k_top + k_h - k_bottom) / 2 << ")\">" << html_escape(y_label) << "</text>\n";
  double legend_x = k_w - k_right - 160;
  int legend_i = 0;
  for (const auto& s : series) {
    std::string pts;
    for (auto [x, y] : s.points) {
      if (!std::isfinite(y)) continue;
      pts += fixed(tx(x)) + "," + fixed(ty(y)) + " ";
    }
    out << "<polyline fill=\"none\" stroke=\"" << s.colour << "\" stroke-width=\"2\" points=\""
        << pts << "\"/>";
    for (auto [x, y] : s.points) {
      if (!std::isfinite(y)) continue;
      out << "<circle cx=\"" << fixed(tx(x)) << "\" cy=\"" << fixed(ty(y)) << "\" r=\"3\" fill=\""
          << s.colour << "\"><title>" << html_escape(s.label) << ": " << tick_text(x) << " → "
          << format_significant(y, 4) << "</title></circle>";
    }
    double ly = k_top + 4 + 16.0 * legend_i++;
    out << "\n<rect x=\"" << legend_x << "\" y=\"" << ly - 9
        << "\" width=\"12\" height=\"12\" fill=\"" << s.colour << "\"/><text x=\"" << legend_x + 18
        << "\" y=\"" << ly + 1 << "\" class=\"tick\">" << html_escape(s.label) << "</text>\n";
  }
  out << "</svg>\n";
}

// An axis label: 3 significant digits without trailing zeros ("1×", "1.05×", "2.5k", not
// "1.00×"): the zeros claim a precision a tick does not have and widen every label (issue 26).
std::string tick_number(double v) {
  std::string s = format_significant(v, 3);
  if (s.find('.') != std::string::npos && s.find_first_of("eE") == std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string ratio_tick_text(double ratio) {
  return tick_number(ratio) + "×";
}

std::vector<double> ratio_ticks(double lo, double hi, const std::function<double(double)>& x,
                                double min_x, double max_x) {
  // Candidates by priority: no change, the ends, then round ratios (1/2/5 per decade and the
  // common small changes).
  std::vector<double> candidates = {1.0, lo, hi};
  for (double m : {0.5, 0.8, 0.9, 0.95, 0.98, 1.02, 1.05, 1.1, 1.25, 1.5, 2.0}) {
    candidates.push_back(m);
  }
  for (int k = -3; k <= 3; ++k) {
    for (double m : {1.0, 2.0, 5.0}) candidates.push_back(m * std::pow(10.0, k));
  }
  std::vector<std::pair<double, double>> taken;  // label extents, px
  std::vector<double> ticks;
  for (double t : candidates) {
    if (!(t >= lo && t <= hi)) continue;
    if (std::find(ticks.begin(), ticks.end(), t) != ticks.end()) continue;
    const double half = k_tick_char_w * static_cast<double>(utf8_length(ratio_tick_text(t))) / 2;
    const double a = x(t) - half - k_tick_gap / 2, b = x(t) + half + k_tick_gap / 2;
    if (a < min_x || b > max_x) continue;
    const bool clear = std::none_of(taken.begin(), taken.end(),
                                    [&](const auto& e) { return a < e.second && e.first < b; });
    if (!clear) continue;
    taken.emplace_back(a, b);
    ticks.push_back(t);
  }
  std::sort(ticks.begin(), ticks.end());
  return ticks;
}

void interval_chart(std::ostream& out, const std::string& title,
                    const std::vector<IntervalRow>& rows) {
  // Labels in monospace at 11px: ~6.9 px a character measured in Chromium (DejaVu Sans Mono);
  // 7.2 leaves room, so the column always fits the longest label.
  constexpr double k_char_w = 7.2, k_plot_w = 420, k_row_h = 16, k_top = 34;
  std::size_t longest = 0;
  for (const auto& r : rows) longest = std::max(longest, utf8_length(r.label));
  const double k_label_w = std::max(120.0, 16.0 + k_char_w * static_cast<double>(longest));
  double lo = 0.9, hi = 1.1;  // at least +-10% so small changes do not fill the axis
  for (const auto& r : rows) {
    if (r.low > 0 && std::isfinite(r.low)) lo = std::min(lo, r.low);
    if (r.high > 0 && std::isfinite(r.high)) hi = std::max(hi, r.high);
  }
  lo = std::max(lo, 1e-3);
  hi = std::min(hi, 1e3);
  double llo = std::log(lo), lhi = std::log(hi);
  auto tx = [&](double v) {
    double c = std::clamp(v, lo, hi);
    return k_label_w + (std::log(c) - llo) / (lhi - llo) * k_plot_w;
  };
  double height = k_top + k_row_h * static_cast<double>(rows.size()) + 30;
  double width =
      std::max(k_label_w + k_plot_w + 30, 8.0 * static_cast<double>(utf8_length(title)) + 10);
  out << "<svg class=\"chart\" width=\"" << width << "\" height=\"" << height << "\" viewBox=\"0 0 "
      << width << ' ' << height << "\" role=\"img\"><title>" << html_escape(title) << "</title>\n";
  out << "<text x=\"4\" y=\"16\" class=\"ct\">" << html_escape(title) << "</text>\n";
  double bottom = height - 26;
  out << "<line x1=\"" << fixed(tx(1)) << "\" y1=\"" << k_top - 6 << "\" x2=\"" << fixed(tx(1))
      << "\" y2=\"" << bottom << "\" class=\"ref\"/>\n";
  for (double t : ratio_ticks(lo, hi, tx, 4, width)) {  // below the row labels: the whole width
    out << "<text x=\"" << fixed(tx(t)) << "\" y=\"" << bottom + 16
        << "\" text-anchor=\"middle\" class=\"tick\">" << ratio_tick_text(t) << "</text>";
  }
  out << '\n';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    double y = k_top + k_row_h * static_cast<double>(i) + k_row_h / 2;
    out << "<g class=\"" << r.css_class << "\"><title>" << html_escape(r.label) << ": "
        << format_ratio(r.value) << "× [" << format_ratio(r.low) << ", " << format_ratio(r.high)
        << "]</title><text x=\"" << k_label_w - 8 << "\" y=\"" << fixed(y + 4)
        << "\" text-anchor=\"end\" class=\"lab\">" << html_escape(r.label) << "</text>"
        << "<line x1=\"" << fixed(tx(r.low)) << "\" y1=\"" << fixed(y) << "\" x2=\""
        << fixed(tx(r.high)) << "\" y2=\"" << fixed(y) << "\" class=\"ci\"/>"
        << "<circle cx=\"" << fixed(tx(r.value)) << "\" cy=\"" << fixed(y)
        << "\" r=\"4\" class=\"pt\"/></g>\n";
  }
  out << "</svg>\n";
}

void histogram_chart(std::ostream& out, const std::string& title, const std::string& x_label,
                     const std::vector<double>& edges, const std::vector<std::size_t>& counts,
                     const std::string& colour) {
  if (counts.empty() || edges.size() != counts.size() + 1) return;
  constexpr double k_h = 240, k_left = 60, k_right = 20, k_top = 30, k_bottom = 46;
  const double k_w = std::max(640.0, k_left + 8.0 * static_cast<double>(utf8_length(title)) + 10);
  const std::size_t y_max =
      std::max<std::size_t>(1, *std::max_element(counts.begin(), counts.end()));
  const double plot_w = k_w - k_left - k_right, plot_h = k_h - k_top - k_bottom;
  const double bar_w = plot_w / static_cast<double>(counts.size());
  auto ty = [&](double c) { return k_h - k_bottom - c / static_cast<double>(y_max) * plot_h; };
  out << "<svg class=\"chart\" width=\"" << k_w << "\" height=\"" << k_h << "\" viewBox=\"0 0 "
      << k_w << ' ' << k_h << "\" role=\"img\"><title>" << html_escape(title) << "</title>\n"
      << "<text x=\"" << k_left << "\" y=\"18\" class=\"ct\">" << html_escape(title) << "</text>\n";
  for (int i = 0; i <= 4; ++i) {
    double c = static_cast<double>(y_max) * i / 4;
    out << "<text x=\"" << k_left - 6 << "\" y=\"" << fixed(ty(c) + 4)
        << "\" text-anchor=\"end\" class=\"tick\">"
        << (c < 1000 ? std::to_string(std::lround(c)) : tick_text(c)) << "</text>"
        << "<line x1=\"" << k_left << "\" y1=\"" << fixed(ty(c)) << "\" x2=\"" << k_w - k_right
        << "\" y2=\"" << fixed(ty(c)) << "\" class=\"grid\"/>\n";
  }
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double x = k_left + bar_w * static_cast<double>(i);
    // The end bars are open: they also hold the values beyond the axis.
    std::string range =
        format_significant(edges[i], 3) + " to " + format_significant(edges[i + 1], 3);
    if (i == 0) range = "below " + format_significant(edges[1], 3);
    if (i + 1 == counts.size()) range = format_significant(edges[i], 3) + " and above";
    out << "<rect fill=\"" << colour << "\" x=\"" << fixed(x + 0.5) << "\" y=\""
        << fixed(ty(static_cast<double>(counts[i]))) << "\" width=\"" << fixed(bar_w - 1)
        << "\" height=\"" << fixed(static_cast<double>(counts[i]) / y_max * plot_h) << "\"><title>"
        << html_escape(range) << ": " << counts[i] << "</title></rect>";
  }
  out << "\n<line x1=\"" << k_left << "\" y1=\"" << ty(0) << "\" x2=\"" << k_w - k_right
      << "\" y2=\"" << ty(0) << "\" class=\"axis\"/>\n";
  // Five ticks on x at bin edges (the end bars are open, as their titles say).
  for (std::size_t k = 0; k <= 4; ++k) {
    std::size_t i = k * counts.size() / 4;
    out << "<text x=\"" << fixed(k_left + bar_w * static_cast<double>(i)) << "\" y=\""
        << k_h - k_bottom + 16 << "\" text-anchor=\"middle\" class=\"tick\">"
        << tick_number(edges[i]) << "</text>";
  }
  out << "\n<text x=\"" << (k_left + k_w - k_right) / 2 << "\" y=\"" << k_h - 8
      << "\" text-anchor=\"middle\" class=\"lbl\">" << html_escape(x_label) << "</text>\n</svg>\n";
}

}  // namespace gpubench::compare::svg
