// `gpubench run --plan`: what a run would do and how long it should take, before it starts. Each
// selected suite is asked for its plan (`gpubench-<suite> --gpubench_plan`, suites/common/plan.hpp:
// its own case enumeration for the server's GPUs, costed with the reference time model). Nothing
// runs on a GPU, nothing is stored, no database is opened.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "harness/run/discovery.hpp"
#include "harness/run/settle.hpp"

namespace gpubench::harness {

struct PlannedSuite {
  std::string suite;
  std::vector<std::string> case_names;  // after --filter
  std::vector<double> case_seconds;     // parallel to case_names
  double fixed_s = 0;                   // the suite's estimate outside its cases (process start)
  // Written before its cases (datasets not cached yet); nullopt from a suite whose plan does not
  // say (one built by an older gpubench).
  std::optional<std::uint64_t> disk_bytes;
  // Of the estimate, what only the run's first execution pays (later ones reuse it: gemm's
  // algorithm search); 0 from a suite whose plan does not say.
  double reused_s = 0;
  std::string assumptions;
  int cases() const { return static_cast<int>(case_names.size()); }
  double estimated_s() const;
};

struct RunPlan {
  std::string profile;
  int gpus = 0;
  std::string gpus_source;  // "flag" (--gpus N) or "detected" (NVML on this machine)
  std::string gpus_note;    // how the count was found ("8 GPUs found by NVML", "NVML: ...")
  int repetitions = 0;  // inside each execution
  int executions = 1;   // processes per suite; each suite's estimate counts them all
  bool more_when_cheap = false;  // cheap suites get more (runner.hpp executions_for_cost)
  // A suite's executions in this plan.
  int executions_of(const PlannedSuite& suite) const;
  // In the order the run makes them (run_order.hpp: order_suites before asking their plans).
  std::vector<PlannedSuite> suites;
  int total_cases() const;
  // Per suite: its estimate for one execution (cases and process start) times the executions,
  // less what the later executions reuse from the first (PlannedSuite::reused_s).
  double suite_estimated_s(const PlannedSuite& suite) const;
  // Every execution in run order: round 1 (execution 1 of every suite), round 2, ...; the first
  // execution of a suite costs its estimate, later ones that less what they reuse.
  std::vector<PlannedExecution> sequence() const;
  // The settle steps the order needs (settle.hpp: a device suite after a power-heavy one), each
  // charged the bound less the host-suite time between.
  PlannedSettle settle() const;
  double settle_bound_s = k_settle_bound_s;
  // The suites' estimates and the settle steps.
  double total_estimated_s() const;
};

// The plan's JSON text of one suite (as `--gpubench_plan` prints it) turned into a PlannedSuite,
// keeping only the cases `filter` selects (Google Benchmark's syntax: extended regex, a leading
// '-' negates; empty: all). The suite's fixed cost stays. Throws Error(infrastructure) when the
// text is not a plan.
PlannedSuite parse_suite_plan(const std::string& json_text, const std::string& filter);

// Asks one suite for its plan (`env` added to the suite's environment). Throws
// Error(infrastructure) when it does not answer.
PlannedSuite ask_suite_plan(const SuiteExecutable& suite, const std::string& profile, int gpus,
                            int repetitions, const std::string& filter, double timeout_s = 60,
                            const std::vector<std::pair<std::string, std::string>>& env = {});

// Whether Google Benchmark's own filter, applied by the suite to its registered names
// (`--benchmark_list_tests --benchmark_filter=FILTER`), selects at least one case. A plan names
// cases without the suffixes Google Benchmark adds (`/iterations:16/manual_time`), so a filter
// written against the names a run stores can match none of the plan's names and still run cases.
// nullopt when the suite does not answer (it cannot be judged).
std::optional<bool> suite_lists_a_match(const SuiteExecutable& suite, const std::string& profile,
                                        const std::string& filter, double timeout_s = 60);

// The GPU count of this machine from NVML, with a note saying how it was found (0 when NVML is
// missing or sees no GPU).
std::pair<int, std::string> detect_gpu_count();

// {"profile":"quick","gpus":8,"gpus_source":"flag","suites":[{"suite":"gemm","kind":
//  "power_heavy","cases":N,"estimated_s":X,"assumptions":"..."}],"settle":{"settles":N,
//  "bound_s":10,"estimated_s":X},"total_cases":N,"total_estimated_s":X}; suites in run order.
std::string run_plan_json(const RunPlan& plan);
// A table per suite in run order (cases, estimated time), the settle steps and the totals, and
// the order, for people.
void print_run_plan(std::ostream& out, const RunPlan& plan);

}  // namespace gpubench::harness
