// Annotations of runs (issue 25, `gpubench annotate RUN "text"`): known changes ("driver
// upgrade", "BIOS") written next to a run, shown by history, compare and reports. Stored in table
// `annotations` (schema v1) with run_id set and no series; exported and merged with their run
// (results/exchange/exchange_tables.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpubench::results {

class Database;

struct Annotation {
  int64_t id = 0;
  int64_t run_id = 0;
  std::string text;
  std::string created_at;  // ISO 8601 UTC
};

// Adds `text` to run `run_id` (which must exist); returns the new row's id. The same text on the
// same run twice is kept once (returns the existing id).
int64_t add_annotation(Database& db, int64_t run_id, const std::string& text);

// The run annotations of `run_ids`, oldest first.
std::vector<Annotation> list_annotations(Database& db, const std::vector<int64_t>& run_ids);

}  // namespace gpubench::results
