// Acceptance (`gpubench accept`): per GPU and per benchmark, against a reference run (pass when
// the interval's bad-side bound clears (1 - tolerance) x reference) or against spec floors (pass
// when the bound clears the floor), plus a sibling check: each GPU of the run against the median
// of its siblings, so one slow GPU in eight is named by index, UUID and PCI bus.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare/compare.hpp"

namespace gpubench::compare {

// Spec file, one rule per line ('#' comments):
//   <glob> <metric> >=|<= <value> <unit>                 absolute floor (>=) or ceiling (<=)
//   <glob> <metric> >=|<= <percent>% of <peak> <unit>     a fraction of a peak figure
// e.g.  memory/triad/*  GB_per_s     >= 3000 GB/s
//       gemm/bf16/*     TFLOP_per_s  >= 70% of 989 TFLOP/s
//       launch/*        real_time    <= 5000 ns
// The last matching rule per (benchmark, metric) applies. Syntax errors: Error(bad_input) with
// file:line:column.
struct SpecRule {
  std::string glob;
  std::string metric;
  bool at_least = true;  // ">=": floor; "<=": ceiling
  double limit = 0;      // in `unit`
  std::string unit;
  std::string text;  // the rule as written, for reports
  int line = 0;
};
std::vector<SpecRule> parse_spec(std::string_view text, const std::string& origin);
std::vector<SpecRule> load_spec(const std::string& path);

struct AcceptOptions {
  double tolerance = 0.05;   // fraction below the reference that still passes
  double confidence = 0.99;  // interval level
  // Sibling outlier: worse than the siblings' median by more than this (and beyond 3x CV).
  double sibling_tolerance = 0.05;
};

struct AcceptCheck {
  Key key;
  std::string unit;
  results::Direction direction = results::Direction::unknown;
  std::string gpu_uuid;
  std::string pci_bus_id;
  std::size_t n = 0;
  double median = 0;
  double bound = 0;      // the interval's bad-side bound (lower for higher-is-better)
  double reference = 0;  // reference median (run) or limit (spec)
  double required = 0;   // what the bound had to clear
  bool pass = false;
  std::string reason;
};

struct SiblingOutlier {
  Key key;
  std::string gpu_uuid;
  std::string pci_bus_id;
  double median = 0;
  double siblings_median = 0;
  double shortfall = 0;  // fraction worse than the siblings
};

struct AcceptResult {
  std::string run_selection;
  std::string reference;  // "baseline:x", "run 3" or "spec FILE"
  std::vector<AcceptCheck> checks;
  std::vector<SiblingOutlier> outliers;
  std::vector<Unmatched> missing;  // in the reference/spec but not measured in the run
  // Every check passes, no sibling outlier, nothing the reference or spec names is missing.
  bool passed() const;
};

// Against a reference side (a baseline run): reference values are pooled over its devices.
AcceptResult accept_against_reference(const Side& run, const Side& reference,
                                      const AcceptOptions& options);
AcceptResult accept_against_spec(const Side& run, const std::vector<SpecRule>& spec,
                                 const std::string& spec_name, const AcceptOptions& options);

void render_accept_text(const AcceptResult& result, std::ostream& out);
void render_accept_json(const AcceptResult& result, std::ostream& out);
void render_accept_junit(const AcceptResult& result, std::ostream& out);

}  // namespace gpubench::compare
