// Lossless exchange between gpubench databases (DESIGN.md "Scale-out"; issues 9 and 23):
//  - merge_database: every finished run of another gpubench database that this one lacks, with
//    every table that belongs to it (results/exchange/exchange_tables.hpp lists each table and how
//    it is carried): environment, suites with their output tails, benchmark outcomes, samples,
//    invalid samples, doctor checks, telemetry, metric roles, annotations, exclusions from
//    history; baselines when asked;
//  - import_run_json: a run written by `gpubench export --format json`.
// Both are idempotent by run UUID (a run already present is left alone and counted as skipped)
// and all or nothing: one transaction on the target database. The source is read through a
// read-only connection (mode=ro, its WAL honoured) that takes no write lock, so the source
// machine's own `gpubench run` keeps writing meanwhile; a run still `running` there is left out
// and named, and merged whole by a later merge once it has finished.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "results/store.hpp"

namespace gpubench {
class JsonWriter;  // util/json_writer.hpp
}

namespace gpubench::results {

struct MergeSummary {
  std::vector<std::string> added;    // run UUIDs copied in, in the other database's id order
  std::vector<std::string> skipped;  // run UUIDs already present
  std::vector<std::string> running;  // run UUIDs left out: still `running` in the source
  // Left out too: `running` in the source but its gpubench is gone (`abandoned?`), so the run
  // will not finish there by itself: (run UUID, the evidence).
  std::vector<std::pair<std::string, std::string>> abandoned;
  int64_t samples = 0;               // sample rows copied
  // Annotations added to runs already present (made on the source after they were merged).
  int64_t annotations = 0;
  // Exclusions from history (`history exclude`) added to runs already present.
  int64_t exclusions = 0;
  std::vector<std::string> baselines_added;  // names, with --with-baselines
  // Names left as they were: the target already uses the name (for another run, or the same).
  std::vector<std::string> baselines_kept;
};

struct MergeOptions {
  bool with_baselines = false;  // also copy baselines that name a merged or present run
};

// Copies the runs of the gpubench database at `other` that `store` does not have. Throws
// Error(bad_input) naming `other` when it is not a gpubench database, is the same file, was
// written by a newer gpubench or is corrupt; the target is unchanged on any error.
MergeSummary merge_database(Store& store, const std::filesystem::path& other,
                            const MergeOptions& options = {});

// True when the document looks like `gpubench export --format json` output.
bool is_run_export(const nlohmann::json& doc);

// Stores an exported run (is_run_export) with its UUID, environment, suites, samples and
// telemetry. Throws Error(bad_input) naming what is wrong in the document; all or nothing.
// An export carries its rows table by table (member "tables", written by write_run_tables) and
// is then rebuilt row for row; older exports without it are rebuilt from "results".
MergeSummary import_run_json(Store& store, const nlohmann::json& doc, const std::string& source,
                             const MergeOptions& options = {});

// Writes the rows of every exported table that run `run_id` needs (exchange_tables.hpp) as one
// JSON object {table: {"columns": [...], "rows": [[...], ...]}}, streamed row by row.
void write_run_tables(Store& store, int64_t run_id, JsonWriter& w);

}  // namespace gpubench::results
