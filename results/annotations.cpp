#include "results/annotations.hpp"

#include <nlohmann/json.hpp>

#include "results/sqlite/sqlite.hpp"
#include "util/clock.hpp"

namespace gpubench::results {

int64_t add_annotation(Database& db, int64_t run_id, const std::string& text) {
  Transaction tx(db);
  Statement same = db.prepare(
      "SELECT id FROM annotations WHERE run_id = ?1 AND benchmark_id IS NULL AND text = ?2");
  same.bind(1, run_id).bind(2, text);
  if (same.step()) return same.column_int64(0);
  Statement st =
      db.prepare("INSERT INTO annotations(run_id, text, created_at) VALUES (?1, ?2, ?3)");
  st.bind(1, run_id).bind(2, text).bind(3, now_iso8601_utc()).run();
  const int64_t id = db.last_insert_rowid();
  tx.commit();
  return id;
}

std::vector<Annotation> list_annotations(Database& db, const std::vector<int64_t>& run_ids) {
  std::vector<Annotation> out;
  Statement st = db.prepare(
      "SELECT id, run_id, text, created_at FROM annotations WHERE run_id IN "
      "(SELECT value FROM json_each(?1)) ORDER BY created_at, id");
  st.bind(1, nlohmann::json(run_ids).dump());
  while (st.step()) {
    out.push_back({st.column_int64(0), st.column_int64(1), st.column_text(2), st.column_text(3)});
  }
  return out;
}

}  // namespace gpubench::results
