// A stored run as JSON (used by `show --format json` and `export --format json`) and as CSV.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/store.hpp"

namespace gpubench::cli {

// {"run": {...}, "environment": {...}, "suites": [...], "results": [...]} with every sample
// and its median/min/max/cv.
nlohmann::json run_to_json(const results::RunDetail& detail,
                           const std::vector<results::ResultRow>& rows);

// One CSV row per sample (RFC 4180 quoting), header first.
std::string run_to_csv(const results::RunDetail& detail,
                       const std::vector<results::ResultRow>& rows);

// "bytes=268435456;threads=2"
std::string params_text(const std::vector<results::Param>& params);

}  // namespace gpubench::cli
