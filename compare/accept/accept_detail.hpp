// Internal to compare/accept/accept*.cpp: a series' samples pooled over a run's rows, and the
// checks of a run's GPUs as such (accept_gpus.cpp) that both acceptance modes (accept.cpp) end
// with.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "compare/accept/accept.hpp"

namespace gpubench::compare::accept_detail {

struct Pooled {
  const results::ResultRow* first = nullptr;
  // Repetitions; with several executions of the suite in a run, one value per execution (its
  // median, issue 35).
  std::vector<double> values;
  bool per_execution = false;
  std::size_t throttled = 0;
  bool error = false;
  bool skipped = false;
  std::string message;
};

// Fills `c`'s GPU identity (UUID, PCI bus id) from the row and the run's recorded GPUs.
void fill_device(AcceptCheck& c, const Side& run, const results::ResultRow& row);
// A FAIL check for every GPU of the run whose telemetry saw a failed row remap.
void remap_failure_checks(const Side& run, AcceptResult& result);
// Each GPU's median against its siblings' (same model, same benchmark): outliers into `result`.
void sibling_check(const Side& run, const std::map<Key, Pooled>& pooled,
                   const AcceptOptions& options, AcceptResult& result);

}  // namespace gpubench::compare::accept_detail
