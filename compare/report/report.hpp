// `gpubench report RUN`: one run rendered the same ways as a comparison (text, md, html, json,
// junit, csv), with sweeps as charts. Pure over loaded data.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "compare/dataloader/worker_sizing.hpp"
#include "compare/noisy_series.hpp"
#include "compare/peers/lineup.hpp"
#include "compare/render/render.hpp"
#include "results/acceptance_facts.hpp"

namespace gpubench::compare {

struct ReportRow {
  Key key;
  std::string case_name;
  std::vector<results::Param> params;
  std::string unit;
  results::Direction direction = results::Direction::unknown;
  // Not a secondary metric of its suite (results/metric_roles.hpp), as compare counts entries:
  // text and Markdown list only these unless --all (issue 39).
  bool primary = true;
  results::BenchmarkStatus status = results::BenchmarkStatus::ok;
  std::string message;
  SideStats stats;
};

struct RunReport {
  results::RunDetail run;
  std::vector<std::string> problems;  // run_problems(run): shown first in every format
  std::vector<ReportRow> rows;  // sorted by key
  // Series noisy between executions (compare/noisy_series.hpp, at the default 2% threshold), of
  // noisy_sized series with two or more executions.
  std::vector<NoisySeries> noisy;
  std::size_t noisy_sized = 0;
  // The run beside imported peer tools of its host (issue 40): filled by the caller from the
  // store (compare::peer_lineup); text and JSON show it when it has peer runs.
  PeerLineup peers;
  // What another tool stated about the run's node and GPUs (`dcgmi diag`, imported; schema v8):
  // a short section in text and Markdown, an array in JSON. Filled by the caller.
  std::vector<results::AcceptanceFact> facts;
  // Loader worker sizing (issue 41, compare/dataloader/worker_sizing.hpp): the worker count at
  // 95% of each dataloader pipeline's best. Filled by the caller (compare::worker_sizing); every
  // format but CSV and JUnit shows a "Loader workers" section when it has pipelines.
  WorkerSizing workers;
};

// "acceptance facts (dcgmi diag): 7 of 8 GPUs pass all 3 tests; GPU 3 memory: FAIL (...)";
// empty when the run has none.
std::string acceptance_facts_line(const RunReport& report);

// The threshold the report's noisy series are sized for (compare's default --threshold).
inline constexpr double k_report_noisy_threshold = 0.02;

// "N of M series are noisy between executions ..." and one line per series; empty when none.
std::vector<std::string> noisy_report_lines(const RunReport& report);

// Pools rows per identity like compare does (cpu_time left out unless it is the only metric).
RunReport build_report(const results::RunDetail& run, const std::vector<results::ResultRow>& rows);
// rows_csv: where a large Markdown or HTML report (render_large.hpp) writes its ok rows
// (sidecar_path(output, ".results.csv")); "" (output to stdout): HTML lists them in a collapsed
// block, Markdown says how to get them.
// detail: text and Markdown (issue 39): Detail::summary lists primary metrics and groups skipped
// cases one line per reason; Detail::all (`--all`) lists every row.
void render_report(const RunReport& report, Format format, std::ostream& out, bool colour = false,
                   const std::string& rows_csv = "", Detail detail = Detail::summary);

}  // namespace gpubench::compare
