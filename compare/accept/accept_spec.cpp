// Acceptance spec files (syntax in accept.hpp).
#include <cctype>
#include <cmath>

#include "compare/accept/accept.hpp"
#include "compare/hardware.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/text_safety.hpp"

namespace gpubench::compare {

const char* const k_spec_example =
    "# acceptance.spec: one rule per line, '#' starts a comment.\n"
    "# Globs match full benchmark names (`gpubench show RUN` lists them); '*' spans '/'.\n"
    "# Overlapping lines: for each benchmark and metric, the LAST line whose glob matches the\n"
    "# benchmark and that names the metric decides, so write general lines first and exceptions\n"
    "# after. A '% of peak' line checks the metric pct_of_peak: it stands beside a line on\n"
    "# TFLOP_per_s instead of replacing it.\n"
    "# <glob> <metric> >=|<= <value> <unit>\n"
    "memory/*                     GB_per_s     >= 20 GB/s\n"
    "memory/device_triad/*        GB_per_s     >= 3000 GB/s    # replaces the line above here\n"
    "# <glob> <metric> >= <pct>% of peak   (the suite's computed peak: its pct_of_peak metric;\n"
    "# at most 100%)\n"
    "gemm/*                       TFLOP_per_s  >= 50% of peak\n"
    "# <glob> <metric> >=|<= <pct>% of <peak figure> <unit>\n"
    "gemm/*/dtype:bf16/*          TFLOP_per_s  >= 70% of 989 TFLOP/s  # and the line above\n"
    "calibration/*                ms_per_call  <= 1000 ms\n"
    "# the server's GPUs: fewer (or another model) fail, naming the GPU that went missing\n"
    "expect_gpus 8\n"
    "expect_gpu_model \"H200\"\n"
    "# another tool's verdict imported with the run (`gpubench import diag.json`): every GPU's\n"
    "# dcgmi diag result of the test must be a pass\n"
    "dcgm memory must pass\n";

namespace {

[[noreturn]] void spec_error(const std::string& origin, int line, std::size_t column,
                             const std::string& why) {
  throw bad_input("syntax error in spec file " + origin + ":" + std::to_string(line) + ":" +
                      std::to_string(column),
                  why,
                  "write one rule per line, e.g. 'gemm/bf16/* TFLOP_per_s >= 70% of 989 TFLOP/s', "
                  "'gemm/* TFLOP_per_s >= 50% of peak' or 'memory/triad/* GB_per_s >= 3000 GB/s' "
                  "(`gpubench accept --help` shows a complete spec)");
}

}  // namespace

std::vector<SpecRule> parse_spec(std::string_view text, const std::string& origin) {
  check_utf8(text, "spec file '" + origin + "'");
  std::vector<SpecRule> rules;
  bool hardware_lines = false;
  int line_no = 0;
  for (const std::string& raw : split(text, '\n')) {
    ++line_no;
    std::string line = raw;
    if (std::size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::vector<std::pair<std::string, std::size_t>> tokens;
    for (std::size_t i = 0; i < line.size();) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      std::size_t start = i;
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i > start) tokens.emplace_back(line.substr(start, i - start), start + 1);
    }
    if (tokens.empty()) continue;
    if (is_spec_hardware_line(tokens[0].first)) {  // parse_spec_hardware's (compare/hardware.hpp)
      hardware_lines = true;
      continue;
    }
    if (is_spec_fact_line(tokens[0].first)) {  // parse_spec_facts's (accept_facts.cpp)
      hardware_lines = true;
      continue;
    }
    auto col_after = [&](std::size_t k) { return tokens[k].second + tokens[k].first.size(); };
    if (tokens.size() < 5) {
      spec_error(origin, line_no, col_after(tokens.size() - 1),
                 "incomplete rule: expected glob, metric, >= or <=, value and unit");
    }
    SpecRule r;
    r.glob = tokens[0].first;
    r.metric = tokens[1].first;
    r.line = line_no;
    r.text = std::string(trim(line));
    if (tokens[2].first != ">=" && tokens[2].first != "<=") {
      spec_error(origin, line_no, tokens[2].second,
                 "expected >= or <=, found '" + tokens[2].first + "'");
    }
    r.at_least = tokens[2].first == ">=";
    const std::string& value = tokens[3].first;
    std::size_t unit_at = 4;
    const bool pct_form = !value.empty() && value.back() == '%' && tokens[4].first == "of";
    if (pct_form && tokens.size() >= 6 && tokens[5].first == "peak") {
      std::optional<double> pct = parse_double(value.substr(0, value.size() - 1));
      if (!pct || !std::isfinite(*pct) || *pct <= 0)  // NaN would pass every check
        spec_error(origin, line_no, tokens[3].second,
                   "'" + value + "' is not a percentage (a finite number above 0)");
      if (*pct > 100) {  // the computed peak is what the GPU can do at most: never passes
        spec_error(origin, line_no, tokens[3].second,
                   "'" + value +
                       "' of peak is above 100%: the suite's computed peak is the most "
                       "the GPU can do, so no run could pass it");
      }
      r.of_peak = true;
      r.limit = *pct;
      r.unit = "%";
      if (tokens.size() > 7) {
        spec_error(origin, line_no, tokens[7].second,
                   "unexpected '" + tokens[7].first + "' after 'of peak'");
      }
      rules.push_back(std::move(r));  // an optional unit after "peak" is the metric's, ignored
      continue;
    }
    if (pct_form && tokens.size() >= 7) {
      std::optional<double> pct = parse_double(value.substr(0, value.size() - 1));
      std::optional<double> peak = parse_double(tokens[5].first);
      if (!pct || !std::isfinite(*pct) || *pct <= 0)
        spec_error(origin, line_no, tokens[3].second,
                   "'" + value + "' is not a percentage (a finite number above 0)");
      if (!peak || !std::isfinite(*peak) || *peak <= 0) {
        spec_error(origin, line_no, tokens[5].second,
                   "'" + tokens[5].first + "' is not a peak figure (a number, or the word peak)");
      }
      r.limit = *pct / 100.0 * *peak;
      unit_at = 6;
    } else {
      std::optional<double> v = parse_double(value);
      if (!v || !std::isfinite(*v)) {  // a NaN limit would pass or fail everything unseen
        spec_error(origin, line_no, tokens[3].second,
                   "'" + value + "' is not a number (finite: not nan or inf)");
      }
      r.limit = *v;
    }
    if (tokens.size() != unit_at + 1) {
      spec_error(
          origin, line_no,
          tokens.size() > unit_at + 1 ? tokens[unit_at + 1].second : col_after(tokens.size() - 1),
          tokens.size() > unit_at + 1
              ? "unexpected '" + tokens[unit_at + 1].first + "' after the unit"
              : "missing unit");
    }
    r.unit = tokens[unit_at].first;
    rules.push_back(std::move(r));
  }
  if (rules.empty() && !hardware_lines) {
    throw bad_input("spec file " + origin + " has no rules", "every line is empty or a comment",
                    "add lines like 'memory/triad/* GB_per_s >= 3000 GB/s' "
                    "(`gpubench accept --help` shows a complete spec)");
  }
  return rules;
}

std::vector<SpecRule> load_spec(const std::string& path) {
  return parse_spec(read_file(path), path);
}

}  // namespace gpubench::compare
