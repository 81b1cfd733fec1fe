// A stored run as JSON (used by `show --format json` and `export --format json`) and as CSV.
// write_run_json/write_run_csv stream: they write each result as the store reads it (issue 16),
// so a run of any size costs one benchmark's samples of memory, not a document of the run.
#pragma once

#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "results/store.hpp"
#include "util/json_writer.hpp"

namespace gpubench::cli {

// {"run": {...}, "environment": {...}, "suites": [...], "results": [...]} with every sample
// and its median/min/max/cv, as one document (small runs and tests; the commands stream it with
// write_run_json, which writes the same bytes).
nlohmann::json run_to_json(const results::RunDetail& detail,
                           const std::vector<results::ResultRow>& rows);

// One CSV row per sample (RFC 4180 quoting), header first.
std::string run_to_csv(const results::RunDetail& detail,
                       const std::vector<results::ResultRow>& rows);

// Calls its argument once per result row, in order (Store::for_each_result, or a vector).
using RowSource = std::function<void(const std::function<void(const results::ResultRow&)>&)>;
RowSource rows_of(results::Store& store, int64_t run_id);
RowSource rows_of(const std::vector<results::ResultRow>& rows);

// A top-level member of the run document beyond run, environment, suites and results.
using JsonMember = std::pair<std::string, std::function<void(JsonWriter&)>>;

// The document of run_to_json plus `extra` members, byte for byte what
// `nlohmann::json::dump(2)` of it would be (keys sorted), written as the rows come. With
// `telemetry_flag`, each result also has "telemetry_throttled" (show --format json). Ends with
// the document (no newline); the caller calls w.finish().
void write_run_json(JsonWriter& w, const results::RunDetail& detail, const RowSource& rows,
                    bool telemetry_flag, std::vector<JsonMember> extra = {});

// run_to_csv, written as the rows come.
void write_run_csv(std::ostream& out, const results::RunDetail& detail, const RowSource& rows);

// "bytes=268435456;threads=2"
std::string params_text(const std::vector<results::Param>& params);

}  // namespace gpubench::cli
