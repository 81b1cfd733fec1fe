// Reading Google Benchmark JSON output before Store::ingest_benchmark_json.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpubench::results {

// Parses the text of a Google Benchmark JSON file. Google Benchmark writes non-finite numbers as
// bare NaN / -NaN / Infinity / -Infinity tokens, which are not JSON (e.g. the cv of a constant
// counter); they become null, and null values are not stored. `source` names the input in
// errors ("memory.json", "output of gpubench-memory"). Throws Error(bad_input) when the text
// is not JSON (empty, truncated, garbage), naming `source` and the byte where parsing failed.
nlohmann::json parse_benchmark_json(std::string_view text, const std::string& source);

}  // namespace gpubench::results
