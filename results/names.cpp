// Benchmark names -> suite, case and typed parameters (the rules are in results/model.hpp).
#include <string_view>

#include "results/model.hpp"
#include "util/strings.hpp"

namespace gpubench::results {

namespace {

// Google Benchmark flags that appear in names without a value.
bool is_valueless_gb_suffix(std::string_view part) {
  return part == "real_time" || part == "manual_time" || part == "process_time";
}

Param make_param(std::string key, std::string text) {
  Param p;
  p.key = std::move(key);
  p.text = std::move(text);
  p.number = parse_double(p.text);
  return p;
}

}  // namespace

ParsedName parse_benchmark_name(const std::string& name, const std::string& default_suite) {
  ParsedName out;
  std::vector<std::string> parts = split(name, '/');
  size_t first = 0;
  if (!parts.empty() && !default_suite.empty() && parts[0] == default_suite) {
    out.suite = parts[0];
    first = 1;
  } else if (default_suite.empty() && parts.size() > 1 && parts[0].find(':') == std::string::npos) {
    out.suite = parts[0];  // no hint: the first part is the suite
    first = 1;
  } else {
    out.suite = default_suite;
  }
  for (size_t i = first; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const size_t colon = part.find(':');
    if (colon != std::string::npos) {
      out.params.push_back(make_param(part.substr(0, colon), part.substr(colon + 1)));
    } else if (is_valueless_gb_suffix(part) && i != first) {
      out.params.push_back(make_param(part, ""));
    } else if (out.case_name.empty()) {
      out.case_name = part;
    } else {
      out.case_name += "/" + part;  // "fusion/bias_gelu/v2" -> case "bias_gelu/v2"
    }
  }
  return out;
}

}  // namespace gpubench::results
