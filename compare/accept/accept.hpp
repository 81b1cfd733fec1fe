// Acceptance (`gpubench accept`): per GPU and per benchmark, against a reference run (pass when
// the interval's bad-side bound clears (1 - tolerance) x reference) or against spec floors (pass
// when the bound clears the floor), plus a sibling check: each GPU of the run against the median
// of its siblings, so one slow GPU in eight is named by index, UUID and PCI bus.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compare/compare.hpp"
#include "results/acceptance_facts.hpp"

namespace gpubench::compare {

// Spec file, one rule per line ('#' comments):
//   <glob> <metric> >=|<= <value> <unit>                 absolute floor (>=) or ceiling (<=)
//   <glob> <metric> >=|<= <percent>% of <peak> <unit>     a fraction of a peak figure
//   <glob> <metric> >= <percent>% of peak                 the suite's own computed peak: checks
//                                                         the benchmark's pct_of_peak metric
// e.g.  memory/triad/*  GB_per_s     >= 3000 GB/s
//       gemm/bf16/*     TFLOP_per_s  >= 70% of 989 TFLOP/s
//       gemm/*          TFLOP_per_s  >= 60% of peak
//       launch/*        real_time    <= 5000 ns
// A spec line can also require another tool's acceptance fact (issue 40):
//   dcgm <test> must pass          every `dcgmi diag` result of <test> imported with the run
//                                  (`gpubench import diag.json`) must be a pass: a fail, warn or
//                                  skip on any GPU (or the node) fails, naming the GPU and the
//                                  tool's words; <test> as dcgmi prints it ("memory",
//                                  "Targeted Power"; case, spaces and '_' do not matter)
// Overlaps: per (benchmark, metric) the last line whose glob matches and that names the metric
// decides ("N% of peak" lines name pct_of_peak); a benchmark without samples gets one check per
// metric its deciding lines name. Syntax errors, and "% of peak" above 100: Error(bad_input) with
// file:line:column and an example.
struct SpecRule {
  std::string glob;
  std::string metric;
  bool at_least = true;  // ">=": floor; "<=": ceiling
  double limit = 0;      // in `unit` (percent for of_peak)
  std::string unit;
  bool of_peak = false;  // "N% of peak": the rule checks metric pct_of_peak against limit %
  std::string text;      // the rule as written, for reports
  int line = 0;
};
// `dcgm <test> must pass` lines (parse_spec skips them; parse_spec_facts reads them).
struct FactRule {
  std::string test;  // as written
  std::string text;  // the line, for messages
  int line = 0;
};
bool is_spec_fact_line(std::string_view first_word);
std::vector<FactRule> parse_spec_facts(std::string_view text, const std::string& origin);
// One line per fact that is not a pass (or per rule whose test the run lacks) in `failed`; one
// per rule with passes in `passed`. Rules but no facts at all: Error(bad_input) "no dcgmi diag
// facts in run N: import `dcgmi diag -j` output (gpubench import diag.json) first".
struct FactJudgement {
  std::vector<std::string> failed;
  std::vector<std::string> passed;
};
FactJudgement judge_fact_rules(const std::vector<FactRule>& rules,
                               const std::vector<results::AcceptanceFact>& facts, int64_t run_id);
// A complete example spec, shown by `accept --help` and in spec errors.
extern const char* const k_spec_example;
std::vector<SpecRule> parse_spec(std::string_view text, const std::string& origin);
std::vector<SpecRule> load_spec(const std::string& path);

struct AcceptOptions {
  double tolerance = 0.05;   // fraction below the reference that still passes
  double confidence = 0.99;  // interval level
  // Sibling outlier: worse than the siblings' median by more than this (and beyond 3x CV).
  double sibling_tolerance = 0.05;
  // --expect-gpus N: against a reference, a benchmark measured on fewer than min(N, the
  // reference's GPUs) GPUs is missing; unset: fewer than the reference's.
  std::optional<int> expect_gpus;
  bool strict = false;        // MARGINAL fails too
  bool allow_failed = false;  // a failed/interrupted/running run or failed suite does not fail
  // Run-to-run noise of the reference's series (compare/run_noise.hpp, as compare uses it), added
  // to each check's interval against a run; null or no entry: within-run noise only (said so).
  const HistoryNoise* history = nullptr;
  int history_window = 0;  // --history N, for the reason
};

// PASS: the interval lies wholly on the good side of the requirement; FAIL: wholly on the bad
// side (or the benchmark failed, was skipped, or cannot be judged); MARGINAL: the interval
// contains the requirement, so more repetitions or runs are needed to decide.
enum class CheckOutcome { pass, marginal, fail };
const char* to_string(CheckOutcome outcome);

struct AcceptCheck {
  Key key;
  std::string unit;
  results::Direction direction = results::Direction::unknown;
  std::string gpu_uuid;
  std::string pci_bus_id;
  std::size_t n = 0;  // samples: repetitions, or executions when per_execution
  // The run measured the suite in several executions (issue 35): each is one sample (its median),
  // and n and repetitions_needed count executions (`gpubench run --executions`).
  bool per_execution = false;
  double median = 0;
  double low = 0;  // candidate interval, in the unit (NaN when none)
  double high = 0;
  double reference = 0;  // reference median (run) or limit (spec)
  double required = 0;   // what the interval is held against
  CheckOutcome outcome = CheckOutcome::fail;
  std::size_t repetitions_needed = 0;  // MARGINAL: about this many repetitions (executions) a side
  bool skipped = false;                // FAIL because the benchmark was skipped (grouped in text)
  std::string reason;
};

// One GPU worse than its siblings: the same benchmark (its name without `device:N`) on the other
// GPUs of the same model in the run (compare/hardware.hpp without_device).
struct SiblingOutlier {
  Key key;
  std::string gpu_uuid;
  std::string pci_bus_id;
  int index = -1;            // the GPU's NVML index in the run (else the CUDA ordinal); -1 unknown
  std::string gpu_model;     // NVML name ("unknown" when the run did not record it)
  std::size_t siblings = 0;  // other GPUs of the group
  double median = 0;
  double siblings_median = 0;
  double siblings_mad = 0;  // median absolute deviation of the siblings' medians (unit of median)
  double shortfall = 0;     // fraction worse than the siblings
};

struct AcceptResult {
  std::string run_selection;
  std::string reference;  // "baseline:x", "run 3" or "spec FILE"
  AcceptOptions options;
  std::vector<std::string> problems;  // failed/interrupted/running run, failed suites
  // Fewer GPUs than expected, a wrong model, a GPU benchmark skipped for want of a GPU
  // (compare/hardware.hpp): always fails, --allow-failed or not.
  std::vector<std::string> hardware;
  // `dcgm <test> must pass` lines (judge_fact_rules): any failed line fails the run.
  FactJudgement facts;
  std::vector<AcceptCheck> checks;
  std::vector<SiblingOutlier> outliers;
  std::vector<Unmatched> missing;  // in the reference/spec but never measured in the run
  // What differed around the measurements and may explain them, not a failure: "machine load
  // (memory): the run had 1.8 CPUs busy elsewhere (...), the reference 0.1 ..." (set by the CLI
  // against a reference run from compare's environment_differences).
  std::vector<std::string> environment;
  std::size_t count(CheckOutcome outcome) const;
  // No FAIL (nor MARGINAL with strict), no sibling outlier, nothing missing, no hardware
  // problem, and no run problem unless allow_failed.
  bool passed() const;
};


// Against a reference side (a baseline run): reference values are pooled over its devices.
AcceptResult accept_against_reference(const Side& run, const Side& reference,
                                      const AcceptOptions& options);
// The rows acceptance looks at (not cpu_time, not parameter metrics): a row filter for
// load_side/load_sides, so the others are dropped as they are read.
bool accept_counts(const results::ResultRow& row);
// A line whose glob matches measured benchmarks none of which records its metric:
// Error(bad_input) with their metrics and a did-you-mean.
AcceptResult accept_against_spec(const Side& run, const std::vector<SpecRule>& spec,
                                 const std::string& spec_name, const AcceptOptions& options);

// Detail::summary (issue 39): the verdict, one line per failing GPU and one for the passing ones,
// the failing checks worst first (each reason on its own line), outliers; passing checks counted.
// Detail::all (`--all`) lists the passing checks too.
void render_accept_text(const AcceptResult& result, std::ostream& out,
                        Detail detail = Detail::summary);
// Written check by check as it is produced (the one writer of this layout), then a newline;
// accept_json: the same document parsed back, for small results and tests.
void render_accept_json(const AcceptResult& result, std::ostream& out);
nlohmann::json accept_json(const AcceptResult& result);
void render_accept_junit(const AcceptResult& result, std::ostream& out);

}  // namespace gpubench::compare
