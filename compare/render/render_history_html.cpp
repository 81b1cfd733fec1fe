#include "compare/render/render_history_html.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>

#include "compare/render/render.hpp"
#include "compare/render/render_history.hpp"
#include "compare/stats/stats.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {
namespace {

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Layout of a history chart, px. Text is 11px sans-serif: k_char_w is a digit's width with room
// to spare (DejaVu Sans digits measure 7.0 px at 11px in headless Chromium).
namespace layout {
constexpr double width = 760, height = 270, left = 78, right = 24, top = 30, bottom = 52;
constexpr double inset = 10;  // between the frame and the first and last run: points stay whole
constexpr double char_w = 7.0, gap = 12;
}  // namespace layout

std::vector<std::size_t> run_ticks(std::size_t n, const std::vector<std::string>& labels) {
  std::size_t longest = 0;
  for (const std::string& l : labels) longest = std::max(longest, l.size());
  const double plot = layout::width - layout::left - layout::right - 2 * layout::inset;
  const double slot = layout::char_w * static_cast<double>(longest) + layout::gap;
  // As many evenly spaced labels as fit (the first and the last always), each one slot wide.
  const auto fit = static_cast<std::size_t>(std::max(2.0, std::floor(plot / slot) + 1));
  std::vector<std::size_t> ticks;
  if (n == 0) return ticks;
  const std::size_t count = std::min(n, fit);
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = count == 1 ? 0
                                     : static_cast<std::size_t>(std::lround(
                                           static_cast<double>(k) * static_cast<double>(n - 1) /
                                           static_cast<double>(count - 1)));
    if (ticks.empty() || ticks.back() != i) ticks.push_back(i);
  }
  return ticks;
}

}  // namespace

void history_chart_svg(std::ostream& out, const History& h, const SeriesHistory& s) {
  using namespace layout;
  double lo = INFINITY, hi = -INFINITY;
  for (const RunPoint& p : s.points) {
    lo = std::min({lo, p.low, p.median});
    hi = std::max({hi, p.high, p.median});
  }
  if (!(hi > lo)) {
    lo -= std::fabs(lo) * 0.01 + 1e-12;
    hi += std::fabs(hi) * 0.01 + 1e-12;
  }
  const double pad = (hi - lo) * 0.05;
  lo -= pad;
  hi += pad;
  const std::size_t n = s.points.size();
  // The first and last runs sit `inset` px inside the frame (issue 39: at the frame their points
  // and intervals were half cut off).
  auto x = [&](std::size_t i) {
    return left + inset +
           (n <= 1 ? 0.5 : static_cast<double>(i) / static_cast<double>(n - 1)) *
               (width - left - right - 2 * inset);
  };
  auto y = [&](double v) { return top + (hi - v) / (hi - lo) * (height - top - bottom); };
  out << "<svg class=\"history\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
      << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << ' ' << height
      << "\" role=\"img\"><title>" << html_escape(s.key.benchmark + " " + s.key.metric)
      << "</title>\n";
  out << "<rect class=\"frame\" x=\"" << left << "\" y=\"" << top << "\" width=\""
      << width - left - right << "\" height=\"" << height - top - bottom
      << "\" fill=\"none\" stroke=\"#bbb\"/>\n";
  for (double v : {lo + pad, (lo + hi) / 2, hi - pad}) {
    out << "<text class=\"tick\" x=\"" << left - 4 << "\" y=\"" << fixed(y(v) + 4)
        << "\" font-size=\"11\" text-anchor=\"end\">" << html_escape(format_value(v))
        << "</text>\n";
  }
  // The unit above the frame, over the value axis (issue 39: inside it, it overlapped the top
  // tick).
  out << "<text class=\"unit\" x=\"4\" y=\"" << top - 10 << "\" font-size=\"11\">"
      << html_escape(s.unit) << " (" << to_string(s.direction) << " is better)</text>\n";
  // Segment levels between change points.
  std::size_t from = 0;
  for (std::size_t c = 0; c <= s.changes.size(); ++c) {
    const std::size_t to = c < s.changes.size() ? s.changes[c].point : n;
    std::vector<double> seg;
    for (std::size_t i = from; i < to; ++i) seg.push_back(s.points[i].median);
    const double level = median(seg);
    out << "<line class=\"level\" x1=\"" << fixed(x(from)) << "\" x2=\"" << fixed(x(to - 1))
        << "\" y1=\"" << fixed(y(level)) << "\" y2=\"" << fixed(y(level))
        << "\" stroke=\"#2a6\" stroke-width=\"2\"/>\n";
    from = to;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const RunPoint& p = s.points[i];
    const HistoryRun& run = h.runs[p.run];
    out << "<g class=\"run\"><title>run " << run.id << " " << html_escape(run.started_at) << ": "
        << html_escape(format_value(p.median)) << ' ' << html_escape(s.unit) << " ["
        << html_escape(format_value(p.low)) << ", " << html_escape(format_value(p.high)) << "]"
        << "</title><line x1=\"" << fixed(x(i)) << "\" x2=\"" << fixed(x(i)) << "\" y1=\""
        << fixed(y(p.low)) << "\" y2=\"" << fixed(y(p.high)) << "\" stroke=\"#89a\"/><circle cx=\""
        << fixed(x(i)) << "\" cy=\"" << fixed(y(p.median)) << "\" r=\"2.5\" fill=\"#246\"/></g>\n";
    if (!run.detail.annotations.empty()) {
      // Inside the frame, on its bottom edge: the run labels sit below it.
      const double base = height - bottom - 1;
      out << "<g class=\"annotation\"><title>" << html_escape(join(run.detail.annotations, "; "))
          << "</title><path d=\"M" << fixed(x(i) - 5) << ' ' << base << " L" << fixed(x(i) + 5)
          << ' ' << base << " L" << fixed(x(i)) << ' ' << base - 9 << " Z\" fill=\"#c80\"/></g>\n";
    }
  }
  // Change-point labels: one line down when a label would run into the one before it.
  double last_end = -INFINITY;
  int line = 0;
  for (const SeriesChange& c : s.changes) {
    const HistoryRun& run = h.runs[s.points[c.point].run];
    const double cx = (x(c.point - 1) + x(c.point)) / 2;
    std::string title = "change at run " + std::to_string(run.id) + ": " + change_pct(c.ratio);
    if (!c.differences.empty()) {
      title += ", " + c.differences.front().difference.field + " " +
               c.differences.front().difference.base + " → " +
               c.differences.front().difference.candidate;
    }
    const std::string label = "run " + std::to_string(run.id) + " " + change_pct(c.ratio);
    const double label_w = char_w * static_cast<double>(label.size());
    // Right of the line, or left of it when it would leave the frame.
    const bool left_side = cx + 3 + label_w > width - right;
    const double start = left_side ? cx - 3 - label_w : cx + 3;
    line = start < last_end + 4 ? line + 1 : 0;
    last_end = start + label_w;
    out << "<g class=\"change-point\"><title>" << html_escape(title) << "</title><line x1=\""
        << fixed(cx) << "\" x2=\"" << fixed(cx) << "\" y1=\"" << top << "\" y2=\""
        << height - bottom << "\" stroke=\"#d22\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>"
        << "<text class=\"cp\" x=\"" << fixed(left_side ? cx - 3 : cx + 3) << "\" y=\""
        << top + 12 + 13 * (line % 6) << "\" font-size=\"11\" fill=\"#d22\""
        << (left_side ? " text-anchor=\"end\"" : "") << ">" << html_escape(label)
        << "</text></g>\n";
  }
  // Run labels on the x axis (issue 39: only the first and last run were named), as many as fit
  // without touching; the dates of the first and last run on the line below.
  std::vector<std::string> labels;
  for (const RunPoint& p : s.points) labels.push_back("run " + std::to_string(h.runs[p.run].id));
  for (std::size_t i : run_ticks(n, labels)) {
    out << "<line x1=\"" << fixed(x(i)) << "\" x2=\"" << fixed(x(i)) << "\" y1=\""
        << height - bottom << "\" y2=\"" << height - bottom + 4 << "\" stroke=\"#888\"/>"
        << "<text class=\"run-tick\" x=\"" << fixed(x(i)) << "\" y=\"" << height - bottom + 16
        << "\" font-size=\"11\" text-anchor=\"middle\">" << html_escape(labels[i]) << "</text>\n";
  }
  if (n > 0) {
    out << "<text class=\"dates\" x=\"" << (left + width - right) / 2 << "\" y=\"" << height - 10
        << "\" font-size=\"11\" text-anchor=\"middle\">runs in time order, "
        << html_escape(h.runs[s.points.front().run].started_at.substr(0, 10)) << " .. "
        << html_escape(h.runs[s.points.back().run].started_at.substr(0, 10)) << "</text>\n";
  }
  out << "</svg>\n";
}

void render_history_html(const History& h, bool changes_only, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpubench "
         "history of "
      << html_escape(h.options.selector)
      << "</title><style>body{font-family:sans-serif;margin:1.5em;max-width:64em}"
         "pre{white-space:pre-wrap}</style></head><body>\n";
  out << "<h1>History of " << html_escape(h.options.selector) << "</h1>\n";
  std::ostringstream changes;
  render_history(h, HistoryFormat::text, true, changes);
  out << "<pre class=\"changes\">" << html_escape(changes.str()) << "</pre>\n";
  for (const SeriesHistory& s : h.series) {
    if (changes_only && s.changes.empty()) continue;
    out << "<section class=\"series\"><h2>" << html_escape(s.key.benchmark) << ' '
        << html_escape(s.key.metric) << ' ' << html_escape(s.key.device) << " <small>"
        << html_escape(s.group) << "</small></h2>\n";
    history_chart_svg(out, h, s);
    out << "</section>\n";
  }
  out << "</body></html>\n";
}

}  // namespace gpubench::compare
