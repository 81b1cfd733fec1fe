// Per-benchmark thresholds, a file people edit by hand:
//
//   # comments start with '#'; blank lines are ignored
//   memory/*            3%        # noise margin for every memory benchmark
//   launch/graph/*      5%
//   transfer/*/pageable ignore    # not compared at all
//
// One rule per line: a glob on the full benchmark name ('*' any run of characters, '?' one
// character) and either a percentage or `ignore`. The last matching rule wins, so put general
// rules first. Syntax errors throw gpubench::Error(bad_input) naming file:line:column.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench::compare {

// Glob match on the whole text: '*' matches any run (also '/'), '?' one character.
bool glob_match(std::string_view pattern, std::string_view text);

// The one reading of a percentage (--threshold, --tolerance, the thresholds file): "5%", "5 %"
// and "5" all mean five percent; the result is a fraction (0.05). Refused, with `why` set to the
// reason for people: not a number, NaN or infinite (a NaN limit would turn a check off), negative,
// 100% or more, and a bare number between 0 and 1 ("0.05" reads as 0.05% to some and 5% to
// others, so the '%' must say which). nullopt when refused.
std::optional<double> percent_fraction(std::string_view text, std::string& why);
// percent_fraction for an option: throws Error(bad_input) naming `option` and the text.
double read_percent(std::string_view text, const std::string& option);

struct ThresholdRule {
  std::string glob;
  bool ignore = false;
  double threshold = 0;  // fraction (0.03 = 3%) when !ignore
  int line = 0;
};

class Thresholds {
 public:
  // `origin` names the source in error messages (the file path).
  static Thresholds parse(std::string_view text, const std::string& origin);
  static Thresholds load(const std::string& path);

  // The last matching rule, or nullopt (use the default threshold).
  const ThresholdRule* match(std::string_view benchmark) const;
  const std::vector<ThresholdRule>& rules() const { return m_rules; }

 private:
  std::vector<ThresholdRule> m_rules;
};

}  // namespace gpubench::compare
