// Lossless exchange between gpubench databases (DESIGN.md "Scale-out"; issue 9):
//  - merge_database: every run of another gpubench database that this one lacks, with its
//    environment, suites, benchmark outcomes, samples, telemetry and metric roles;
//  - import_run_json: a run written by `gpubench export --format json`.
// Both are idempotent by run UUID (a run already present is left alone and counted as skipped)
// and all or nothing: one transaction on the target database.
// Not carried: baselines, annotations and change points (they are this database's own opinions),
// and tables this build does not know.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "results/store.hpp"

namespace gpubench::results {

struct MergeSummary {
  std::vector<std::string> added;    // run UUIDs copied in, in the other database's id order
  std::vector<std::string> skipped;  // run UUIDs already present
  int64_t samples = 0;               // sample rows copied
};

// Copies the runs of the gpubench database at `other` that `store` does not have. Throws
// Error(bad_input) when `other` is not a gpubench database, is the same file, or was written by a
// newer gpubench; the target is unchanged on any error.
MergeSummary merge_database(Store& store, const std::filesystem::path& other);

// True when the document looks like `gpubench export --format json` output.
bool is_run_export(const nlohmann::json& doc);

// Stores an exported run (is_run_export) with its UUID, environment, suites, samples and
// telemetry. Throws Error(bad_input) naming what is wrong in the document; all or nothing.
MergeSummary import_run_json(Store& store, const nlohmann::json& doc, const std::string& source);

}  // namespace gpubench::results
