#include "compare/thresholds.hpp"

#include <cctype>

#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

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

std::optional<double> parse_percent(std::string_view text) {
  std::string_view s = trim(text);
  bool percent = false;
  if (!s.empty() && s.back() == '%') {
    percent = true;
    s = trim(s.substr(0, s.size() - 1));
  }
  std::optional<double> v = parse_double(s);
  if (!v || *v < 0) return std::nullopt;
  return percent ? *v / 100.0 : *v;
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
      std::optional<double> v = parse_percent(tokens[1].first);
      if (!v) {
        syntax_error(origin, line_no, tokens[1].second,
                     "'" + tokens[1].first + "' is not a threshold like 3% or a word 'ignore'");
      }
      if (*v >= 1) {  // the same limit as --threshold
        syntax_error(origin, line_no, tokens[1].second,
                     "'" + tokens[1].first + "' is not below 100% (as --threshold requires)");
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
