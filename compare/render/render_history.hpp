// Renderers of `gpubench history` (compare/history/series_history.hpp): text with a sparkline per
// series, Markdown, JSON (schema "gpubench-history" version 1, compare/SCHEMA.md), CSV (one row
// per series and run). `changes_only` (--changes): the change points of every series grouped by
// the run where they happened, instead of the series.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "compare/history/series_history.hpp"

namespace gpubench::compare {

inline constexpr int k_history_json_version = 1;

enum class HistoryFormat { text, md, json, csv, html };

// "▁▂▃▄▅▆▇█": one character per value, the lowest value ▁ and the highest █ (all ▄ when flat).
std::string sparkline(const std::vector<double>& values);

// "run 41 (2026-11-12, driver 570 → 575)": the run, its date and its first-ranked difference.
std::string run_headline(const History& h, const RunChanges& changes);

void render_history(const History& h, HistoryFormat format, bool changes_only, std::ostream& out);

}  // namespace gpubench::compare
