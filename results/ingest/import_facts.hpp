// A whole imported run with the acceptance facts another tool stated (issue 40: `dcgmi diag`),
// in ONE transaction: Store::import_run's run, suite and samples, then the facts
// (results/acceptance_facts.hpp). A document of no benchmarks with facts is a run of facts only.
// Kept out of results/store.hpp, which nearly every file includes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "results/acceptance_facts.hpp"
#include "results/store.hpp"

namespace gpubench::results {

// As Store::import_run; a fact whose result is not pass/fail/warn/skip: Error(bad_input) and
// nothing is stored.
StoredSuite import_run_with_facts(Store& store, const RunInfo& info, const SuiteRunInfo& suite,
                                  const nlohmann::json& doc, const std::string& default_suite,
                                  int64_t& run_id, const std::vector<AcceptanceFact>& facts);

}  // namespace gpubench::results
