// Runs left out of every history on purpose (issue 38, `gpubench history exclude RUN --reason
// TEXT`, undone by `history include RUN`): table `history_exclusions` (schema v7). The run and its
// results stay; run-to-run noise (compare/run_noise.hpp), `history` series and their change points
// skip it. Exported and merged with their run (results/exchange/exchange_tables.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::results {

class Database;

struct HistoryExclusion {
  int64_t run_id = 0;
  std::string reason;       // as given, never empty
  std::string excluded_at;  // ISO 8601 UTC
};

// Excludes run `run_id` (which must exist) with `reason`; excluding it again replaces the reason
// and the time. Error(bad_input) when the reason is empty (blank).
void exclude_from_history(Database& db, int64_t run_id, const std::string& reason);

// Undoes exclude_from_history; returns false when the run was not excluded.
bool include_in_history(Database& db, int64_t run_id);

// The exclusions of `run_ids` (every exclusion when empty), by run id; none on a database without
// the table (older than v7).
std::vector<HistoryExclusion> list_history_exclusions(Database& db,
                                                      const std::vector<int64_t>& run_ids = {});

// The exclusion of one run, if any.
std::optional<HistoryExclusion> history_exclusion(Database& db, int64_t run_id);

// SQL condition true for a run NOT left out of history: `column` names the run id (e.g. "r.id").
// "1" on a database without the table (older than v7), where nothing is excluded.
std::string not_excluded_sql(Database& db, const std::string& column);

}  // namespace gpubench::results
