// Schema v5: what the last `history --record` looked at, per series (issue 25), so the next one
// recomputes change points only for the series a new run touched, and there only the tail after the
// stored change points (compare/history/series_history.hpp, "Incremental recording"). A table of
// its own: older gpubench ignores it (compatible_version stays 3), and a scan it finds stale (a run
// deleted or merged in before its last run, other parameters) is simply done again in full.
#include "results/schema/schema.hpp"
#include "results/sqlite/sqlite.hpp"

namespace gpubench::results::schema {

void apply_v5(Database& db) {
  db.exec(R"sql(
CREATE TABLE change_point_scans (
  benchmark_id   INTEGER NOT NULL REFERENCES benchmarks(id),
  metric_id      INTEGER NOT NULL REFERENCES metrics(id),
  hardware_class TEXT NOT NULL,     -- the history's group, as change_points.hardware_class
  device         TEXT NOT NULL,     -- "all" or a device index, as change_points.detail.device
  parameters     TEXT NOT NULL,     -- JSON: the detector's parameters and the selection
  first_run_id   INTEGER NOT NULL,  -- the series' oldest and newest runs at the scan
  last_run_id    INTEGER NOT NULL,
  points         INTEGER NOT NULL,  -- runs in the series at the scan
  scanned_at     TEXT NOT NULL,
  PRIMARY KEY (benchmark_id, metric_id, hardware_class, device)
);
)sql");
}

}  // namespace gpubench::results::schema
