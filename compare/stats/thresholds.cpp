#include "compare/stats/thresholds.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/text_safety.hpp"

namespace gpubench::compare {

bool glob_match(std::string_view pattern, std::string_view text) {
  // Iterative matcher with single backtrack point for the last '*': linear for typical globs.
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star = std::string_view::npos;
  std::size_t star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_t = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_t;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::optional<double> percent_fraction(std::string_view text, std::string& why) {
  std::string_view s = trim(text);
  bool percent = false;
  if (!s.empty() && s.back() == '%') {
    percent = true;
    s = trim(s.substr(0, s.size() - 1));
  }
  std::optional<double> v = parse_double(s);
  if (!v) {
    why = "not a number";
  } else if (!std::isfinite(*v)) {
    why = "a percentage must be a finite number";
  } else if (*v < 0) {
    why = "a percentage cannot be negative";
  } else if (*v >= 100) {
    why = "it must be below 100%";
  } else if (!percent && *v > 0 && *v < 1) {
    // Both readings are plausible, and the wrong one is off by 100x: ask instead of guessing.
    char times_100[32];
    std::snprintf(times_100, sizeof times_100, "%.12g", *v * 100.0);
    why = "a bare number is read as percent: did you mean " + std::string(s) + "% or " + times_100 +
          "%?";
  } else {
    return *v / 100.0;
  }
  return std::nullopt;
}

double read_percent(std::string_view text, const std::string& option) {
  std::string why;
  std::optional<double> v = percent_fraction(text, why);
  if (!v) {
    throw bad_input("invalid " + option + " '" + std::string(text) + "'", why,
                    "give a percentage from 0 to below 100, like 5% (or 5, also read as 5%)");
  }
  return *v;
}

namespace {

[[noreturn]] void syntax_error(const std::string& origin, int line, std::size_t column,
                               const std::string& why) {
  throw bad_input("syntax error in thresholds file " + origin + ":" + std::to_string(line) + ":" +
                      std::to_string(column),
                  why, "write one rule per line: <glob> <threshold%>|ignore, '#' starts a comment");
}

}  // namespace

Thresholds Thresholds::parse(std::string_view text, const std::string& origin) {
  check_utf8(text, "thresholds file '" + origin + "'");
  Thresholds out;
  int line_no = 0;
  for (const std::string& raw : split(text, '\n')) {
    ++line_no;
    std::string line = raw;
    if (std::size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Tokenise on whitespace, remembering 1-based columns for messages.
    std::vector<std::pair<std::string, std::size_t>> tokens;
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      std::size_t start = i;
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i > start) tokens.emplace_back(line.substr(start, i - start), start + 1);
    }
    if (tokens.empty()) continue;
    if (tokens.size() == 1) {
      syntax_error(origin, line_no, tokens[0].second + tokens[0].first.size(),
                   "rule '" + tokens[0].first + "' has no threshold");
    }
    if (tokens.size() > 2) {
      syntax_error(origin, line_no, tokens[2].second,
                   "unexpected '" + tokens[2].first + "' after the threshold");
    }
    ThresholdRule rule;
    rule.glob = tokens[0].first;
    rule.line = line_no;
    if (to_lower(tokens[1].first) == "ignore") {
      rule.ignore = true;
    } else {
      // The same reading as --threshold: "3%" and "3" are three percent.
      std::string why;
      std::optional<double> v = percent_fraction(tokens[1].first, why);
      if (!v) {
        syntax_error(origin, line_no, tokens[1].second,
                     "'" + tokens[1].first + "' is not a threshold like 3% or the word 'ignore' (" +
                         why + ")");
      }
      rule.threshold = *v;
    }
    out.m_rules.push_back(std::move(rule));
  }
  return out;
}

Thresholds Thresholds::load(const std::string& path) {
  return parse(read_file(path), path);
}

const ThresholdRule* Thresholds::match(std::string_view benchmark) const {
  for (auto it = m_rules.rbegin(); it != m_rules.rend(); ++it) {
    if (glob_match(it->glob, benchmark)) return &*it;
  }
  return nullptr;
}

}  // namespace gpubench::compare
