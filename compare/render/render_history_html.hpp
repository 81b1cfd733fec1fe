// HTML and SVG of `gpubench history` and `gpubench site`: a chart per series (per-run medians
// with their intervals, the level of each segment, change points marked and annotated), plain
// SVG inside plain HTML: no script, no external resource, works from file://.
#pragma once

#include <iosfwd>

#include "compare/history/series_history.hpp"

namespace gpubench::compare {

// An <svg> element: x is the run (in time order), y the value; a vertical red line at each change
// point with a <title> saying the change; annotated runs marked with a triangle and their text.
void history_chart_svg(std::ostream& out, const History& h, const SeriesHistory& s);

// A whole page: the change points grouped by run, then every series' chart (`changes_only`: only
// series with a change point get a chart).
void render_history_html(const History& h, bool changes_only, std::ostream& out);

}  // namespace gpubench::compare
