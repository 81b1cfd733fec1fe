// Reading Google Benchmark JSON output before Store::ingest_benchmark_json.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpubench::results {

// Parses the text of a Google Benchmark JSON file. Google Benchmark writes non-finite numbers as
// bare NaN / -NaN / Infinity / -Infinity tokens, which are not JSON (e.g. the cv of a constant
// counter); they become marker strings ("\x01NaN", "\x01Infinity", "\x01-Infinity") that no
// Google Benchmark string holds, read back with non_finite_value(), so ingest can keep them as
// invalid samples with a reason instead of mistaking them for nulls. `source` names the input in
// errors ("memory.json", "output of gpubench-memory"). Throws Error(bad_input) when the text
// is not JSON (empty, truncated, garbage) or holds a number beyond double's range (1e400),
// naming `source` and the cause.
nlohmann::json parse_benchmark_json(std::string_view text, const std::string& source);

// NaN / +-infinity for a marker string of parse_benchmark_json, nullopt for anything else.
std::optional<double> non_finite_value(const nlohmann::json& value);

}  // namespace gpubench::results
