#include "results/change_points.hpp"

#include <string>

#include "results/sqlite/sqlite.hpp"
#include "util/clock.hpp"

namespace gpubench::results {

void replace_change_points(Database& db, const std::vector<SeriesOfChangePoints>& series,
                           const std::vector<StoredChangePoint>& points,
                           const std::vector<ChangePointScan>& scans) {
  Transaction tx(db);
  // A group's change points and scans go together: a scan left behind would vouch for change
  // points that are gone (a device series missing from this record).
  for (const char* table : {"change_points", "change_point_scans"}) {
    Statement del = db.prepare(std::string("DELETE FROM ") + table +
                               " WHERE benchmark_id = ?1 AND metric_id = ?2 AND "
                               "hardware_class = ?3");
    for (const SeriesOfChangePoints& s : series) {
      del.bind(1, s.benchmark_id).bind(2, s.metric_id).bind(3, s.hardware_class).run();
      del.reset();
    }
  }
  Statement ins = db.prepare(
      "INSERT INTO change_points(benchmark_id, metric_id, hardware_class, run_id, magnitude, "
      "p_value, created_at, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  const std::string now = now_iso8601_utc();
  for (const StoredChangePoint& p : points) {
    ins.bind(1, p.benchmark_id)
        .bind(2, p.metric_id)
        .bind(3, p.hardware_class)
        .bind(4, p.run_id)
        .bind(5, p.magnitude)
        .bind(6, p.p_value)
        .bind(7, now)
        .bind(8, p.detail)
        .run();
    ins.reset();
  }
  Statement scan = db.prepare(
      "INSERT OR REPLACE INTO change_point_scans(benchmark_id, metric_id, hardware_class, device, "
      "parameters, first_run_id, last_run_id, points, scanned_at) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  for (const ChangePointScan& s : scans) {
    scan.bind(1, s.benchmark_id)
        .bind(2, s.metric_id)
        .bind(3, s.hardware_class)
        .bind(4, s.device)
        .bind(5, s.parameters)
        .bind(6, s.first_run_id)
        .bind(7, s.last_run_id)
        .bind(8, s.points)
        .bind(9, now)
        .run();
    scan.reset();
  }
  tx.commit();
}

std::vector<ChangePointScan> list_change_point_scans(Database& db) {
  std::vector<ChangePointScan> out;
  Statement st = db.prepare(
      "SELECT benchmark_id, metric_id, hardware_class, device, parameters, first_run_id, "
      "last_run_id, points FROM change_point_scans ORDER BY benchmark_id, metric_id, "
      "hardware_class, device");
  while (st.step()) {
    out.push_back({st.column_int64(0), st.column_int64(1), st.column_text(2), st.column_text(3),
                   st.column_text(4), st.column_int64(5), st.column_int64(6), st.column_int64(7)});
  }
  return out;
}

std::vector<StoredChangePoint> list_change_points(Database& db) {
  std::vector<StoredChangePoint> out;
  Statement st = db.prepare(
      "SELECT benchmark_id, metric_id, hardware_class, run_id, magnitude, p_value, "
      "COALESCE(detail, ''), created_at FROM change_points ORDER BY run_id, id");
  while (st.step()) {
    out.push_back({st.column_int64(0), st.column_int64(1), st.column_text(2), st.column_int64(3),
                   st.column_double(4), st.column_double(5), st.column_text(6), st.column_text(7)});
  }
  return out;
}

}  // namespace gpubench::results
