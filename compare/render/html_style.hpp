// The inline stylesheet of every HTML report (compare and report): one place, no external CSS.
// Pages fit 1400 px (issue 39): tables sit in a .table-wrap (the only place that scrolls
// sideways), benchmark names (td.name) wrap, long cells (td.why) are one line that opens, and
// charts scale down to the page.
#pragma once

namespace gpubench::compare {

inline constexpr const char* k_html_style = R"css(
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1400px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.5em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
td,th{border:1px solid #ddd;padding:2px 6px;text-align:left}th{background:#f3f3f3}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.regression td{background:#fde2e2}tr.improvement td{background:#e2f5e2}
tr.invalid td{background:#efe2f5}p.problem{background:#fde2e1;border-left:4px solid #c0392b;padding:.4em .8em}tr.inconclusive td,tr.changed td,tr.missing td{background:#fff6dc}
.counts span{margin-right:1em;padding:2px 6px;border-radius:3px;background:#eee}
.counts .regression{background:#f8b4b4}.counts .improvement{background:#b7e4b7}
svg.chart{display:block;margin:1em 0;font-size:11px}svg.chart .lab{font-family:monospace;font-size:11px}
svg .ct{font-weight:bold;font-size:13px}svg .tick{fill:#444}svg .lbl{fill:#222}
svg .axis{stroke:#444}svg .grid{stroke:#eee}svg .ref{stroke:#888;stroke-dasharray:4 3}
svg .ci{stroke:#666;stroke-width:2}svg .pt{fill:#666}
svg .regression .pt,svg .regression .ci{fill:#c62828;stroke:#c62828}
svg .improvement .pt,svg .improvement .ci{fill:#2e7d32;stroke:#2e7d32}
svg .inconclusive .pt{fill:#b8860b}
.note{color:#666;font-size:.9em}
table.results td,table.results th{white-space:nowrap;vertical-align:top}
.table-wrap{max-width:100%;overflow-x:auto}
table.results{width:100%}
table.results td.name{white-space:normal;overflow-wrap:anywhere;min-width:12em}
table.results td.why{white-space:normal;width:12em}
table.results td.why summary{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;
display:block;cursor:pointer;max-width:12em}
svg.chart{max-width:100%;height:auto}
ol.failing li{margin:.2em 0}ol.failing .name{overflow-wrap:anywhere}
ol.failing li.regression strong,ol.failing li.invalid strong{color:#c62828}
p.per-gpu{overflow-wrap:anywhere}
.legend .sw{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 .8em;
border:1px solid #bbb;vertical-align:middle}
.sw.regression{background:#fde2e2}.sw.improvement{background:#e2f5e2}
.sw.inconclusive{background:#fff6dc}.sw.invalid{background:#efe2f5}.sw.unchanged{background:#fff}
svg.strip{display:block}svg.strip rect{stroke:#999;stroke-width:.5;fill:#fff}
svg.strip rect.regression{fill:#c62828}svg.strip rect.improvement{fill:#2e7d32}
svg.strip rect.inconclusive,svg.strip rect.changed,svg.strip rect.missing{fill:#e0b000}
svg.strip rect.invalid{fill:#8e44ad}
)css";

}  // namespace gpubench::compare
