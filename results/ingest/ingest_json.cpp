// Reading Google Benchmark's JSON text, which is JSON except for its non-finite numbers.
#include "results/ingest/ingest.hpp"

#include <limits>
#include <utility>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::results {

using nlohmann::json;

json parse_benchmark_json(std::string_view text, const std::string& source) {
  // Replace the non-JSON tokens outside strings with null, keeping everything else byte for
  // byte (so parse error offsets still point into the original text, give or take a token).
  std::string clean;
  clean.reserve(text.size());
  bool in_string = false;
  std::size_t depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      clean += c;
      if (c == '\\' && i + 1 < text.size()) {
        clean += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      clean += c;
      continue;
    }
    if (c == '[' || c == '{') {
      if (++depth > k_max_json_depth) too_deep(source, "at byte " + std::to_string(i));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    bool replaced = false;
    static constexpr std::pair<std::string_view, std::string_view> k_tokens[] = {
        {"-Infinity", "\"\\u0001-Infinity\""},
        {"Infinity", "\"\\u0001Infinity\""},
        {"-NaN", "\"\\u0001NaN\""},
        {"NaN", "\"\\u0001NaN\""}};
    for (const auto& [token, marker] : k_tokens) {
      if (text.substr(i, token.size()) == token) {
        clean += marker;
        i += token.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) clean += c;
  }
  try {
    return json::parse(clean);
  } catch (const json::out_of_range& e) {
    // nlohmann refuses numbers beyond double's range (1e400) instead of making them infinite.
    throw bad_input("cannot read " + source,
                    std::string("it holds a number too large to convert (") + e.what() + ")",
                    "fix the value in the file; gpubench does not round it to infinity");
  } catch (const json::parse_error& e) {
    const bool empty = trim(text).empty();
    throw bad_input("cannot read " + source,
                    empty ? std::string("it is empty")
                          : "it is not valid JSON (truncated or not JSON; parser stopped at byte " +
                                std::to_string(e.byte) + ")",
                    "give the complete output of a Google Benchmark binary run with "
                    "--benchmark_format=json or --benchmark_out=FILE");
  }
}

void too_deep(const std::string& source, const std::string& where) {
  throw JsonTooDeep(ExitCode::bad_input, "cannot read " + source,
                  "it nests arrays and objects more than " + std::to_string(k_max_json_depth) +
                      " levels deep (" + where + ")",
                  "Google Benchmark output nests 4 levels and a gpubench export 5: give the file "
                  "a benchmark binary or `gpubench export` wrote");
}

void check_json_depth(std::string_view text, const std::string& source, const std::string& where) {
  bool in_string = false;
  std::size_t depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > k_max_json_depth) too_deep(source, where + ", at byte " + std::to_string(i));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace gpubench::results

namespace gpubench::results {

std::optional<double> non_finite_value(const nlohmann::json& value) {
  if (!value.is_string()) return std::nullopt;
  const std::string& text = value.get_ref<const std::string&>();
  if (text.empty() || text[0] != '\x01') return std::nullopt;
  if (text == "\x01NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "\x01Infinity") return std::numeric_limits<double>::infinity();
  if (text == "\x01-Infinity") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

}  // namespace gpubench::results
