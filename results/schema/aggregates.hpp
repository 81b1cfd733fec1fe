// Benchmarks stored as aggregates only (issue 23): Google Benchmark files written with
// --benchmark_report_aggregates_only, and complexity fits (BigO, RMS), carry statistics of
// repetitions that are not in the file. They are stored as such: their samples keep the
// statistic as kind ('mean', 'median', 'stddev', 'cv', 'BigO', 'RMS', 'aggregate' when the file
// names none) and their benchmark_outcomes row has kind 'aggregate' (schema v4). Nothing about
// them claims repetitions: history and series medians read iteration samples only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gpubench::results {

class Database;

// Google Benchmark's complexity statistics: a fitted coefficient and its error, not a time.
bool is_complexity_statistic(std::string_view kind);

// "O(N)", "O(N^2)", "O(1)" from Google Benchmark's big_o field ("N", "N^2", "(1)").
std::string complexity_text(std::string_view big_o);

// Marks the ok benchmarks of a suite run that have aggregate samples and no iteration sample
// as kind 'aggregate', the others 'repetitions' (every suite run when suite_run_id is 0). The one
// place that decides what an aggregate-only benchmark is: ingest, JSON import and the v4
// migration all call it, so a file, an exchange and an old database agree.
void mark_aggregate_only(Database& db, int64_t suite_run_id);

// Records the complexity a benchmark's BigO row named (its big_o field) for a suite run.
void record_complexity(Database& db, int64_t suite_run_id, int64_t benchmark_id,
                       const std::string& big_o);


}  // namespace gpubench::results
