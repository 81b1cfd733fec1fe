// `gpubench run ... --until-decided BASE [--max-extra-runs N] [--base-last K]`: sequential
// escalation (DESIGN.md "Statistics"). After the first run, compare it with BASE; rerun only the
// suites and benchmarks whose verdict is inconclusive (as a --benchmark_filter) in more
// executions (as many as the noisiest needs, compare/stats/executions.hpp size_executions, 2 to
// twice the run's), pool every run of this invocation as the candidate side, and compare again, until no series is inconclusive or N
// extra runs are spent. Every run is stored (tagged until_decided=<first run id>). The final
// comparison is printed and sets the exit code (1 on a regression, as `gpubench compare`).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "harness/run/runner.hpp"
#include "results/store.hpp"

namespace gpubench::harness {

struct UntilDecidedOptions {
  std::string base;         // a selection, as `gpubench compare` takes it
  int base_last = 1;        // --last for tag:/host:/gpu: BASE selections
  int max_extra_runs = 3;   // reruns at most
  int history_window = 10;  // as compare --history
  compare::FailOn fail_on = compare::FailOn::regression;
};

// Checks the options and that BASE resolves, before any suite runs. Throws Error(bad_input).
void check_until_decided(results::Store& store, const UntilDecidedOptions& options);

// The regex (Google Benchmark --benchmark_filter) that selects exactly these benchmark names
// (and any name they prefix as a path: "a/b" also selects "a/b/x"). Exposed for tests.
std::string benchmark_filter_for(const std::vector<std::string>& names);

// Why series are still inconclusive when the reruns are spent, and what would decide them (issue
// 26): lines "until-decided: ..." naming the limit (a base side of few samples that more
// candidate runs cannot outweigh; a base of one execution a suite, stored before executions;
// series too noisy between executions for any practical number) with the fix. Empty when nothing
// is inconclusive. Exposed for tests.
std::vector<std::string> what_limits(const compare::Comparison& cmp,
                                     const UntilDecidedOptions& options);

struct UntilDecidedOutcome {
  std::vector<int64_t> runs;  // candidate runs: the first, then each extra run
  int exit_code = 0;          // of the final comparison (or 3 when a rerun failed)
};

// Runs the escalation after `first` (a complete run of `run_options`). Writes the rounds and
// the final comparison (text) to `out`; `progress` as execute_run.
UntilDecidedOutcome run_until_decided(results::Store& store, const RunOptions& run_options,
                                      const RunOutcome& first, const UntilDecidedOptions& options,
                                      std::ostream& out, std::ostream* progress);

}  // namespace gpubench::harness
