// Renderers of `gpubench history` (compare/history/series_history.hpp): text with a sparkline per
// series, Markdown, JSON (schema "gpubench-history" version 2), CSV (one row
// per series and run). `changes_only` (--changes): the change points of every series grouped by
// the run where they happened, instead of the series.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "compare/history/series_history.hpp"

namespace gpubench::compare {

// 2 (issue 39): changes_by_run summarises primary metrics by direction (primary_worse,
// primary_better: series, geomean_speedup > 1 better, low, high; secondary_series,
// unknown_direction_series, summary) instead of one geomean over every series of both directions.
inline constexpr int k_history_json_version = 2;

enum class HistoryFormat { text, md, json, csv, html };

// "▁▂▃▄▅▆▇█": one character per value, the lowest value ▁ and the highest █ (all ▄ when flat).
std::string sparkline(const std::vector<double>& values);

// A run's change points in one phrase, primary metrics only and by direction (issue 39): "3
// primary series: 3 worse (geomean -24.0% speed [-25.1, -22.9]), 0 better; 12 secondary not
// counted". Speed: the change read so that > 0 is better (a time's -24% is speed +31.6%).
std::string change_summary(const RunChanges& rc);

// "run 41 (2026-11-12, driver 570 → 575)": the run, its date and its first-ranked difference.
std::string run_headline(const History& h, const RunChanges& changes);

void render_history(const History& h, HistoryFormat format, bool changes_only, std::ostream& out);

}  // namespace gpubench::compare
