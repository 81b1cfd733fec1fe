// Change points stored with the parameters that found them (issue 25, `history --record`):
// table `change_points` (schema v1). A report can be repeated from a stored row: its `detail`
// JSON holds the method's parameters, the runs either side and the environment differences.
// Not exchanged (results/exchange/exchange_tables.cpp): a merged history finds its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench::results {

class Database;

struct StoredChangePoint {
  int64_t benchmark_id = 0;
  int64_t metric_id = 0;
  std::string hardware_class;  // the history's group: "host [GPU models]"
  int64_t run_id = 0;          // first run of the new level
  double magnitude = 1;        // median after / median before
  double p_value = 1;
  std::string detail;  // JSON
  std::string created_at;
};

struct SeriesOfChangePoints {
  int64_t benchmark_id = 0;
  int64_t metric_id = 0;
  std::string hardware_class;
};

// What one `history --record` looked at in one series (table change_point_scans, schema v5): the
// next record recomputes only what a new run can have changed (compare/history/series_history.hpp).
struct ChangePointScan {
  int64_t benchmark_id = 0;
  int64_t metric_id = 0;
  std::string hardware_class;
  std::string device;      // "all" or a device index
  std::string parameters;  // JSON text, compared as text
  int64_t first_run_id = 0;
  int64_t last_run_id = 0;
  int64_t points = 0;
};

// Replaces the stored change points and scans of every group in `series` with `points` and
// `scans` (one transaction).
void replace_change_points(Database& db, const std::vector<SeriesOfChangePoints>& series,
                           const std::vector<StoredChangePoint>& points,
                           const std::vector<ChangePointScan>& scans);

// Every stored scan (empty on a database no v5 gpubench has recorded into).
std::vector<ChangePointScan> list_change_point_scans(Database& db);

// Every stored change point, oldest run first.
std::vector<StoredChangePoint> list_change_points(Database& db);

}  // namespace gpubench::results
