// Acceptance facts stored with a run (table acceptance_facts, created in schema_v8.cpp).
#include "results/acceptance_facts.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <utility>

#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"

namespace gpubench::results {

bool is_fact_result(std::string_view result) {
  return result == "pass" || result == "fail" || result == "warn" || result == "skip";
}

std::string fact_test_key(std::string_view test) {
  std::string key;
  bool gap = false;
  for (const char c : test) {
    if (c == ' ' || c == '-' || c == '_' || c == '\t') {
      gap = !key.empty();
      continue;
    }
    if (gap) key += '_';
    gap = false;
    key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return key;
}

void insert_acceptance_facts(Database& db, int64_t run_id,
                             const std::vector<AcceptanceFact>& facts) {
  if (facts.empty()) return;
  Statement ins = db.prepare(
      "INSERT INTO acceptance_facts (run_id, position, source, test, gpu_index, gpu_uuid, result, "
      "info) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  int position = 0;
  for (const AcceptanceFact& f : facts) {
    if (!is_fact_result(f.result)) {
      throw bad_input("acceptance fact '" + f.test + "' has result '" + f.result + "'",
                      "a fact's result is pass, fail, warn or skip", "fix the reader that made it");
    }
    ins.bind(1, run_id)
        .bind(2, position++)
        .bind(3, f.source)
        .bind(4, f.test)
        .bind(5, f.gpu_index)
        .bind(6, f.gpu_uuid)
        .bind(7, f.result)
        .bind(8, f.info);
    ins.run();
  }
}

std::vector<AcceptanceFact> get_acceptance_facts(Database& db, int64_t run_id) {
  std::vector<AcceptanceFact> out;
  if (!db.table_exists("acceptance_facts")) return out;
  Statement q = db.prepare(
      "SELECT source, test, gpu_index, gpu_uuid, result, info FROM acceptance_facts WHERE run_id = "
      "? ORDER BY position");
  q.bind(1, run_id);
  while (q.step()) {
    AcceptanceFact f;
    f.source = q.column_text(0);
    f.test = q.column_text(1);
    f.gpu_index = static_cast<int>(q.column_int64(2));
    f.gpu_uuid = q.column_text(3);
    f.result = q.column_text(4);
    f.info = q.column_text(5);
    out.push_back(std::move(f));
  }
  return out;
}

nlohmann::json acceptance_facts_json(const std::vector<AcceptanceFact>& facts) {
  nlohmann::json out = nlohmann::json::array();
  for (const AcceptanceFact& f : facts) {
    out.push_back({{"source", f.source},
                   {"test", f.test},
                   {"gpu", f.gpu_index >= 0 ? nlohmann::json(f.gpu_index) : nlohmann::json()},
                   {"gpu_uuid", f.gpu_uuid},
                   {"result", f.result},
                   {"info", f.info}});
  }
  return out;
}

namespace {

// "0-3,5": GPU indices as ranges.
std::string index_ranges(const std::vector<int>& sorted) {
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(sorted[i]);
    if (j > i) out += (j == i + 1 ? "," : "-") + std::to_string(sorted[j]);
    i = j + 1;
  }
  return out;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<std::string> summarize_acceptance_facts(const std::vector<AcceptanceFact>& facts,
                                                    std::size_t max_info_chars) {
  std::vector<std::string> lines;
  if (facts.empty()) return lines;
  // GPUs and the tests they ran; a GPU passes when every fact about it is a pass.
  // A skip is a test not run, not a failure: a GPU passes when none of its results is a fail or
  // a warn, and the head says skips were left out (they are listed below it).
  std::map<int, bool> gpu_passes;
  std::set<std::string> gpu_tests;
  bool gpu_skips = false;
  int node_facts = 0, node_passes = 0;
  for (const AcceptanceFact& f : facts) {
    if (f.gpu_index >= 0) {
      auto [it, fresh] = gpu_passes.emplace(f.gpu_index, true);
      (void)fresh;
      if (f.result == "fail" || f.result == "warn") it->second = false;
      gpu_skips = gpu_skips || f.result == "skip";
      gpu_tests.insert(fact_test_key(f.test));
    } else {
      ++node_facts;
      if (f.result == "pass") ++node_passes;
    }
  }
  std::string head;
  if (!gpu_passes.empty()) {
    const auto passing =
        std::count_if(gpu_passes.begin(), gpu_passes.end(), [](const auto& g) { return g.second; });
    head = std::to_string(passing) + " of " + std::to_string(gpu_passes.size()) +
           " GPUs pass all " + std::to_string(gpu_tests.size()) +
           (gpu_tests.size() == 1 ? " test" : " tests") +
           (gpu_skips ? " (skips left out, listed below)" : "");
  }
  if (node_facts > 0) {
    if (!head.empty()) head += "; ";
    head += "node: " + std::to_string(node_passes) + " of " + std::to_string(node_facts) +
            (node_facts == 1 ? " test passes" : " tests pass");
  }
  lines.push_back(head);
  // Results that are not a pass, in the order printed, GPUs with the same test, result and words
  // together.
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<int>> groups;
  for (const AcceptanceFact& f : facts) {
    if (f.result == "pass") continue;
    const auto key = std::make_tuple(f.test, f.result, f.info);
    auto it = groups.find(key);
    if (it == groups.end()) {
      order.push_back(key);
      it = groups.emplace(key, std::vector<int>{}).first;
    }
    it->second.push_back(f.gpu_index);
  }
  for (const auto& key : order) {
    std::vector<int> gpus = groups[key];
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
    std::string who;
    if (gpus.size() == 1 && gpus[0] < 0) {
      who = "node";
    } else {
      std::vector<int> real;
      for (int g : gpus) {
        if (g >= 0) real.push_back(g);
      }
      who = (real.size() == 1 ? "GPU " : "GPUs ") + index_ranges(real);
      if (real.size() != gpus.size()) who = "node and " + who;
    }
    const auto& [test, result, info] = key;
    std::string line = who + " " + test + ": " + upper(result);
    if (!info.empty()) {
      std::string shown =
          info.size() > max_info_chars ? info.substr(0, max_info_chars) + "..." : info;
      line += " (" + shown + ")";
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace gpubench::results
