// Reading Google Benchmark JSON output before Store::ingest_benchmark_json.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "util/error.hpp"

namespace gpubench::results {

// Parses the text of a Google Benchmark JSON file. Google Benchmark writes non-finite numbers as
// bare NaN / -NaN / Infinity / -Infinity tokens, which are not JSON (e.g. the cv of a constant
// counter); they become marker strings ("\x01NaN", "\x01Infinity", "\x01-Infinity") that no
// Google Benchmark string holds, read back with non_finite_value(), so ingest can keep them as
// invalid samples with a reason instead of mistaking them for nulls. `source` names the input in
// errors ("memory.json", "output of gpubench-memory"). Throws Error(bad_input) when the text
// is not JSON (empty, truncated, garbage) or holds a number beyond double's range (1e400),
// naming `source` and the cause, or nests deeper than k_max_json_depth.
nlohmann::json parse_benchmark_json(std::string_view text, const std::string& source);

// The deepest nesting of arrays and objects a JSON input may have (Google Benchmark output nests 4
// levels, an export 5). nlohmann copies, compares and writes documents recursively, one stack
// frame a level: a 200 KB file nesting 10^5 levels would overflow the stack, so every JSON input
// (a file, streamed or whole; an export; a JSON text inside a context string) is refused with
// exit 2 beyond this depth.
inline constexpr std::size_t k_max_json_depth = 64;

// Throws Error(bad_input) "cannot read <source>" when `text` nests arrays and objects deeper than
// k_max_json_depth, naming the depth, the byte and `where` ("context 'gpubench.metrics'").
// Brackets inside strings do not count.
void check_json_depth(std::string_view text, const std::string& source, const std::string& where);

// What check_json_depth throws (exit 2), a type of its own so that callers which reword a
// file's parse errors ("not valid JSON") pass this one on as it is.
class JsonTooDeep : public Error {
 public:
  using Error::Error;
};

// Throws JsonTooDeep, the message of check_json_depth, for parsers that count the depth
// themselves.
[[noreturn]] void too_deep(const std::string& source, const std::string& where);

// NaN / +-infinity for a marker string of parse_benchmark_json, nullopt for anything else.
std::optional<double> non_finite_value(const nlohmann::json& value);

}  // namespace gpubench::results
