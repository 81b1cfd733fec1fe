// Spec lines on other tools' acceptance facts (issue 40): `dcgm <test> must pass` (syntax in
// accept.hpp), judged per GPU against the `dcgmi diag` facts imported with the run.
#include <algorithm>
#include <cctype>
#include <set>

#include "compare/accept/accept.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/text_safety.hpp"

namespace gpubench::compare {

bool is_spec_fact_line(std::string_view first_word) {
  return first_word == "dcgm";
}

std::vector<FactRule> parse_spec_facts(std::string_view text, const std::string& origin) {
  check_utf8(text, "spec file '" + origin + "'");
  std::vector<FactRule> out;
  int line_no = 0;
  for (const std::string& raw : split(text, '\n')) {
    ++line_no;
    std::string line = raw;
    if (std::size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const std::string body(trim(line));
    const std::size_t space = body.find_first_of(" \t");
    if (!is_spec_fact_line(body.substr(0, space))) continue;
    // The test name may hold spaces ("Targeted Power"): everything between `dcgm` and
    // `must pass`.
    const std::string rest(space == std::string::npos ? "" : trim(body.substr(space)));
    const std::string tail = "must pass";
    std::string test;
    if (rest.size() > tail.size() &&
        rest.compare(rest.size() - tail.size(), tail.size(), tail) == 0) {
      test = std::string(trim(rest.substr(0, rest.size() - tail.size())));
    }
    if (test.empty()) {
      throw bad_input("bad dcgm line in spec file " + origin + ":" + std::to_string(line_no),
                      "'" + body.substr(0, 80) + "' is not 'dcgm <test> must pass'",
                      "write e.g. 'dcgm memory must pass' or 'dcgm Targeted Power must pass' "
                      "(the test as `dcgmi diag` prints it; case, spaces and '_' do not matter)");
    }
    out.push_back({test, body, line_no});
  }
  return out;
}

FactJudgement judge_fact_rules(const std::vector<FactRule>& rules,
                               const std::vector<results::AcceptanceFact>& facts, int64_t run_id) {
  FactJudgement j;
  if (rules.empty()) return j;
  if (facts.empty()) {
    throw bad_input("no dcgmi diag facts in run " + std::to_string(run_id),
                    "the spec requires " + rules.front().text + " (line " +
                        std::to_string(rules.front().line) + ")",
                    "import `dcgmi diag -j` output (gpubench import diag.json) first, then accept "
                    "that run, or leave the dcgm lines out");
  }
  for (const FactRule& rule : rules) {
    const std::string key = results::fact_test_key(rule.test);
    std::vector<const results::AcceptanceFact*> mine;
    for (const auto& f : facts) {
      if (results::fact_test_key(f.test) == key) mine.push_back(&f);
    }
    if (mine.empty()) {
      std::set<std::string> names;
      for (const auto& f : facts) names.insert(f.test);
      j.failed.push_back("dcgm " + rule.test + ": run " + std::to_string(run_id) +
                         " has no dcgmi diag result for this test (it has: " +
                         join(std::vector<std::string>(names.begin(), names.end()), ", ") +
                         "); spec line " + std::to_string(rule.line));
      continue;
    }
    std::size_t passing = 0;
    for (const results::AcceptanceFact* f : mine) {
      if (f->result == "pass") {
        ++passing;
        continue;
      }
      std::string result = f->result;
      std::transform(result.begin(), result.end(), result.begin(),
                     [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
      j.failed.push_back("dcgm " + f->test + " on " +
                         (f->gpu_index >= 0 ? "GPU " + std::to_string(f->gpu_index) : "the node") +
                         (f->gpu_uuid.empty() ? "" : " (" + f->gpu_uuid + ")") + ": " + result +
                         (f->info.empty() ? "" : " (" + f->info + ")") + "; must pass (spec line " +
                         std::to_string(rule.line) + ")");
    }
    if (passing > 0) {
      j.passed.push_back("dcgm " + mine.front()->test + ": pass on " + std::to_string(passing) +
                         " of " + std::to_string(mine.size()) + " GPU/node results");
    }
  }
  return j;
}

}  // namespace gpubench::compare
