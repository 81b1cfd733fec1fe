// Acceptance facts: what another tool stated about the node or one GPU of a run, kept with the run
// (table acceptance_facts, schema v8; issue 40). Today one tool states them: `dcgmi diag`, whose
// text or `-j` JSON `gpubench import` reads (results/peers/peers_dcgm.cpp) into one fact per
// (test, GPU). `show` and `report` list them; `accept` can require a test to pass
// (compare/accept/, a spec line `dcgm <test> must pass`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace gpubench::results {

class Database;
class Store;

// One fact a tool states about the node or one GPU: a `dcgmi diag` test's result.
struct AcceptanceFact {
  std::string source;    // the tool: "dcgmi diag"
  std::string test;      // the tool's test name as printed: "Memory", "pcie", "Targeted Power"
  int gpu_index = -1;    // the tool's GPU index; -1 for a fact about the whole node
  std::string gpu_uuid;  // where the tool names it, else empty
  std::string result;    // "pass", "fail", "warn" or "skip"
  std::string info;      // the tool's own words (warnings, error text), may be empty
};

inline constexpr const char* k_dcgm_diag_source = "dcgmi diag";

// True for the four results a fact can hold.
bool is_fact_result(std::string_view result);

// A test name compared loosely: lower case, runs of spaces, '-' and '_' as one '_'
// ("Targeted Power" and "targeted_power" are the same test; DCGM 4 renamed them so).
std::string fact_test_key(std::string_view test);

// Writes `facts` for `run_id` inside the caller's open transaction (the import that stores the
// run stores its facts in the same one). Throws Error(bad_input) for a result that is not one of
// the four.
void insert_acceptance_facts(Database& db, int64_t run_id,
                             const std::vector<AcceptanceFact>& facts);

// The facts stored with a run, in the order the tool printed them; empty when it has none (and
// for a database older than schema v8, read without migrating).
std::vector<AcceptanceFact> get_acceptance_facts(Database& db, int64_t run_id);

// What `show` and `report` print: the first line counts GPUs with no fail or warn ("7 of 8 GPUs
// pass all 3 tests", "(skips left out, listed below)" when a test was skipped; "node: 9 of 9
// tests pass" for facts about the whole node), each
// further line one result that is not a pass, GPUs with the same result and words grouped
// ("GPU 3 memory: FAIL (...)", "GPUs 0-7 GPU Memory: SKIP"). The tool's words are cut at
// `max_info_chars` characters. Empty for no facts.
std::vector<std::string> summarize_acceptance_facts(const std::vector<AcceptanceFact>& facts,
                                                    std::size_t max_info_chars = 160);

// The facts as `show --format json` and `report --format json` write them: an array of
// {source, test, gpu (the tool's GPU index, null for the whole node), gpu_uuid, result, info}.
nlohmann::json acceptance_facts_json(const std::vector<AcceptanceFact>& facts);

}  // namespace gpubench::results
