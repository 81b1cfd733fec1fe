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

}  // namespace

void history_chart_svg(std::ostream& out, const History& h, const SeriesHistory& s) {
  constexpr double width = 760, height = 260, left = 70, right = 20, top = 20, bottom = 40;
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
  auto x = [&](std::size_t i) {
    return left + (n <= 1 ? 0.5 : static_cast<double>(i) / static_cast<double>(n - 1)) *
                      (width - left - right);
  };
  auto y = [&](double v) { return top + (hi - v) / (hi - lo) * (height - top - bottom); };
  out << "<svg class=\"history\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
      << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << ' ' << height
      << "\" role=\"img\"><title>" << html_escape(s.key.benchmark + " " + s.key.metric)
      << "</title>\n";
  out << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << width - left - right
      << "\" height=\"" << height - top - bottom << "\" fill=\"none\" stroke=\"#bbb\"/>\n";
  for (double v : {lo + pad, (lo + hi) / 2, hi - pad}) {
    out << "<text x=\"" << left - 4 << "\" y=\"" << fixed(y(v) + 4)
        << "\" font-size=\"11\" text-anchor=\"end\">" << html_escape(format_value(v))
        << "</text>\n";
  }
  out << "<text x=\"12\" y=\"" << top + 10 << "\" font-size=\"11\">" << html_escape(s.unit)
      << "</text>\n";
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
      out << "<g class=\"annotation\"><title>" << html_escape(join(run.detail.annotations, "; "))
          << "</title><path d=\"M" << fixed(x(i) - 5) << ' ' << height - bottom + 14 << " L"
          << fixed(x(i) + 5) << ' ' << height - bottom + 14 << " L" << fixed(x(i)) << ' '
          << height - bottom + 5 << " Z\" fill=\"#c80\"/></g>\n";
    }
  }
  for (const SeriesChange& c : s.changes) {
    const HistoryRun& run = h.runs[s.points[c.point].run];
    const double cx = (x(c.point - 1) + x(c.point)) / 2;
    std::string title = "change at run " + std::to_string(run.id) + ": " + change_pct(c.ratio);
    if (!c.differences.empty()) {
      title += ", " + c.differences.front().difference.field + " " +
               c.differences.front().difference.base + " → " +
               c.differences.front().difference.candidate;
    }
    out << "<g class=\"change-point\"><title>" << html_escape(title) << "</title><line x1=\""
        << fixed(cx) << "\" x2=\"" << fixed(cx) << "\" y1=\"" << top << "\" y2=\""
        << height - bottom << "\" stroke=\"#d22\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>"
        << "<text x=\"" << fixed(cx + 3) << "\" y=\"" << top + 12
        << "\" font-size=\"11\" fill=\"#d22\">run " << run.id << ' ' << change_pct(c.ratio)
        << "</text></g>\n";
  }
  if (n > 0) {
    out << "<text x=\"" << left << "\" y=\"" << height - 8 << "\" font-size=\"11\">run "
        << h.runs[s.points.front().run].id << ' '
        << html_escape(h.runs[s.points.front().run].started_at.substr(0, 10)) << "</text>\n";
    out << "<text x=\"" << width - right << "\" y=\"" << height - 8
        << "\" font-size=\"11\" text-anchor=\"end\">run " << h.runs[s.points.back().run].id << ' '
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
