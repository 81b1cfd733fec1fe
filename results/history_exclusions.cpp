#include "results/history_exclusions.hpp"

#include <nlohmann/json.hpp>

#include "results/model.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::results {
namespace {

// SQL condition true for a run (`column`: its id) whose newest accept verdict is FAIL: the
// highest-positioned of its accept and history-included tags is an accept tag reading FAIL.
std::string failed_accept_sql(const std::string& column) {
  const std::string keys =
      std::string("('") + k_accept_tag_key + "', '" + k_history_included_tag_key + "')";
  return "EXISTS (SELECT 1 FROM run_tags fa WHERE fa.run_id = " + column + " AND fa.key = '" +
         k_accept_tag_key +
         "' AND fa.value GLOB 'FAIL*' AND fa.position = (SELECT MAX(fb.position) FROM run_tags "
         "fb WHERE fb.run_id = " +
         column + " AND fb.key IN " + keys + "))";
}

void append_tag(Database& db, int64_t run_id, const char* key, const std::string& value) {
  Statement st = db.prepare(
      "INSERT INTO run_tags(run_id, position, key, value) VALUES (?1, (SELECT COALESCE(MAX("
      "position) + 1, 0) FROM run_tags WHERE run_id = ?1), ?2, ?3)");
  st.bind(1, run_id).bind(2, std::string(key)).bind(3, value).run();
}

bool accept_failed(Database& db, int64_t run_id) {
  Statement st = db.prepare("SELECT " + failed_accept_sql("?1"));
  st.bind(1, run_id);
  return st.step() && st.column_int64(0) != 0;
}

}  // namespace

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
  bool included = false;
  if (db.table_exists("history_exclusions")) {
    Statement st = db.prepare("DELETE FROM history_exclusions WHERE run_id = ?1");
    st.bind(1, run_id).run();
    included = db.changes() > 0;
  }
  if (accept_failed(db, run_id)) {
    append_tag(db, run_id, k_history_included_tag_key, "included at " + now_iso8601_utc());
    included = true;
  }
  return included;
}

void record_accept_verdict(Database& db, int64_t run_id, const std::string& verdict) {
  append_tag(db, run_id, k_accept_tag_key, verdict);
}

std::vector<HistoryExclusion> list_history_exclusions(Database& db,
                                                      const std::vector<int64_t>& run_ids) {
  std::vector<HistoryExclusion> out;
  // The newest FAIL verdict of each such run; its time follows the last " at ".
  std::string sql =
      "SELECT t.run_id, 'failed acceptance: ' || t.value, t.value, 1 AS kind FROM run_tags t "
      "WHERE t.key = "
      "'" +
      std::string(k_accept_tag_key) +
      "' AND t.position = (SELECT MAX(u.position) FROM run_tags u "
      "WHERE u.run_id = t.run_id AND u.key = t.key) AND " +
      failed_accept_sql("t.run_id");
  if (db.table_exists("history_exclusions")) {
    sql = "SELECT run_id, reason, excluded_at, 0 AS kind FROM history_exclusions UNION ALL " + sql;
  }
  Statement st = db.prepare("SELECT * FROM (" + sql +
                            ") WHERE ?1 = 0 OR run_id IN (SELECT value FROM json_each(?2)) "
                            "ORDER BY run_id, kind");
  st.bind(1, static_cast<int64_t>(run_ids.size())).bind(2, nlohmann::json(run_ids).dump());
  while (st.step()) {
    HistoryExclusion x{st.column_int64(0), st.column_text(1), st.column_text(2)};
    const std::size_t at = x.excluded_at.rfind(" at ");
    if (st.column_int64(3) == 1 && at != std::string::npos) x.excluded_at.erase(0, at + 4);
    // A run both excluded on purpose and failed: one entry, the purposeful reason first.
    if (!out.empty() && out.back().run_id == x.run_id) continue;
    out.push_back(std::move(x));
  }
  return out;
}

std::optional<HistoryExclusion> history_exclusion(Database& db, int64_t run_id) {
  std::vector<HistoryExclusion> found = list_history_exclusions(db, {run_id});
  if (found.empty()) return std::nullopt;
  return found.front();
}

std::string not_excluded_sql(Database& db, const std::string& column) {
  const std::string failed = "NOT " + failed_accept_sql(column);
  if (!db.table_exists("history_exclusions")) return failed;
  return "(NOT EXISTS (SELECT 1 FROM history_exclusions hx WHERE hx.run_id = " + column + ") AND " +
         failed + ")";
}

}  // namespace gpubench::results
