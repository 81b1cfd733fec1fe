// Reading Google Benchmark's JSON text, which is JSON except for its non-finite numbers.
#include "results/ingest.hpp"
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
    bool replaced = false;
    for (std::string_view token : {"-Infinity", "Infinity", "-NaN", "NaN"}) {
      if (text.substr(i, token.size()) == token) {
        clean += "null";
        i += token.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) clean += c;
  }
  try {
    return json::parse(clean);
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

}  // namespace gpubench::results
