// Readiness checks (`gpubench doctor`) as data: what the harness measured about the server before a
// run, stored with the run (table doctor_checks, schema v2) so `show` and `compare` can name them.
//
// A check has a verdict, the value it read, the expectation and a one-line fix (DCGM's diagnostic
// and SuperBench's node checks are the model). A value that could not be read is status unknown
// with the reason in `value` ("unknown: no NVIDIA driver (...)"), never a guess.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::results {

class Store;

enum class CheckStatus { pass, warn, fail, unknown };
const char* to_string(CheckStatus status);
std::optional<CheckStatus> check_status_from_string(const std::string& text);

struct DoctorCheck {
  std::string name;  // "gpu.persistence_mode": <area>.<what>, stable across versions
  std::string area;  // "CPU and memory", "GPU state", ... (for grouping in output)
  CheckStatus status = CheckStatus::unknown;
  std::string value;     // what was read, with units; "unknown: <reason>" when unknown
  std::string expected;  // the expectation, for people
  std::string fix;       // one line; empty when there is nothing to do
};

// How many checks have each status.
struct DoctorCounts {
  int pass = 0, warn = 0, fail = 0, unknown = 0;
};
DoctorCounts count_checks(const std::vector<DoctorCheck>& checks);
// "18 pass, 3 warn, 0 fail, 6 unknown".
std::string counts_text(const DoctorCounts& counts);

// Stores `checks` for `run_id` (one transaction). Throws Error(bad_input) for an unknown run.
void add_doctor_checks(Store& store, int64_t run_id, const std::vector<DoctorCheck>& checks);
// The checks stored with a run, in the order they were run; empty when the run has none (runs
// recorded before doctor existed, imported runs).
std::vector<DoctorCheck> get_doctor_checks(Store& store, int64_t run_id);

}  // namespace gpubench::results
