#include "results/history_exclusions.hpp"

#include <nlohmann/json.hpp>

#include "results/sqlite/sqlite.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::results {

void exclude_from_history(Database& db, int64_t run_id, const std::string& reason) {
  if (trim(reason).empty()) {
    throw bad_input("history exclude needs a reason",
                    "the reason is what `runs`, `show` and `history` print for the excluded run",
                    "e.g. --reason 'GPU 3 throttled: failed fan, replaced'");
  }
  Statement st = db.prepare(
      "INSERT INTO history_exclusions(run_id, reason, excluded_at) VALUES (?1, ?2, ?3) "
      "ON CONFLICT(run_id) DO UPDATE SET reason = excluded.reason, "
      "excluded_at = excluded.excluded_at");
  st.bind(1, run_id).bind(2, std::string(trim(reason))).bind(3, now_iso8601_utc()).run();
}

bool include_in_history(Database& db, int64_t run_id) {
  Statement st = db.prepare("DELETE FROM history_exclusions WHERE run_id = ?1");
  st.bind(1, run_id).run();
  return db.changes() > 0;
}

std::vector<HistoryExclusion> list_history_exclusions(Database& db,
                                                      const std::vector<int64_t>& run_ids) {
  std::vector<HistoryExclusion> out;
  if (!db.table_exists("history_exclusions")) return out;
  Statement st = db.prepare(
      "SELECT run_id, reason, excluded_at FROM history_exclusions WHERE ?1 = 0 OR run_id IN "
      "(SELECT value FROM json_each(?2)) ORDER BY run_id");
  st.bind(1, static_cast<int64_t>(run_ids.size())).bind(2, nlohmann::json(run_ids).dump());
  while (st.step()) out.push_back({st.column_int64(0), st.column_text(1), st.column_text(2)});
  return out;
}

std::optional<HistoryExclusion> history_exclusion(Database& db, int64_t run_id) {
  std::vector<HistoryExclusion> found = list_history_exclusions(db, {run_id});
  if (found.empty()) return std::nullopt;
  return found.front();
}

std::string not_excluded_sql(Database& db, const std::string& column) {
  if (!db.table_exists("history_exclusions")) return "1";
  return "NOT EXISTS (SELECT 1 FROM history_exclusions hx WHERE hx.run_id = " + column + ")";
}

}  // namespace gpubench::results
