// Runs left out of every history on purpose (issue 38, `gpubench history exclude RUN --reason
// TEXT`, undone by `history include RUN`): table `history_exclusions` (schema v7). The run and its
// results stay; run-to-run noise (compare/run_noise.hpp), `history` series and their change points
// skip it. Exported and merged with their run (results/exchange/exchange_tables.cpp).
// A run whose newest `gpubench accept` verdict is FAIL (tag k_accept_tag_key, results/model.hpp)
// is left out the same way, without a row here: its exclusion reads "failed acceptance: <verdict>"
// until a later PASS or `history include RUN` (tag k_history_included_tag_key). Tags travel with
// their run, so exports and merges carry both.
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

// Undoes exclude_from_history and, when the run's newest accept verdict is FAIL, adds the tag
// k_history_included_tag_key ("included at <time>") so that it counts again; returns false when
// the run was left out by neither.
bool include_in_history(Database& db, int64_t run_id);

// Appends `verdict` ("PASS|FAIL against <reference> at <time>") as run `run_id`'s newest
// k_accept_tag_key tag (issue 38: `gpubench accept` records its overall verdict).
void record_accept_verdict(Database& db, int64_t run_id, const std::string& verdict);

// The exclusions of `run_ids` (every exclusion when empty), by run id: the table's (none on a
// database older than v7) and the runs whose newest accept verdict is FAIL (reason "failed
// acceptance: <verdict>", excluded_at the verdict's time).
std::vector<HistoryExclusion> list_history_exclusions(Database& db,
                                                      const std::vector<int64_t>& run_ids = {});

// The exclusion of one run, if any.
std::optional<HistoryExclusion> history_exclusion(Database& db, int64_t run_id);

// SQL condition true for a run NOT left out of history: `column` names the run id (e.g. "r.id").
// Neither excluded (table, older than v7: none) nor its newest accept verdict FAIL.
std::string not_excluded_sql(Database& db, const std::string& column);

}  // namespace gpubench::results
