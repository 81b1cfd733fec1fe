// Schema v3: one migration step (v2 -> v3) for fleet-size speed (issue 16). Each area adds its
// tables and indexes in its own function below, so the step stays one transaction and one
// version number.
#include "results/schema.hpp"
#include "results/sqlite.hpp"

namespace gpubench::results::schema {
namespace {

// Per-run series medians stored at ingest, so that history reads one row per (run, series)
// instead of every sample (filled by the ingest area).
void v3_series_medians(Database& /*db*/) {}

// Indexes for the read paths (show, export, compare, selections).
void v3_read_paths(Database& /*db*/) {}

}  // namespace

void apply_v3(Database& db) {
  v3_series_medians(db);
  v3_read_paths(db);
}

}  // namespace gpubench::results::schema
