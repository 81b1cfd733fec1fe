// Turning what the user typed into runs, and named baselines (table `baselines` of schema v1).
//
// A selection is one of:
//   <id> | <uuid prefix> | latest | latest~N      one run
//   baseline:NAME                                 the run a baseline points to
//   tag:KEY=VALUE | tag:KEY                       the newest N complete runs with that tag
//   host:NAME                                     the newest N complete runs on that host
//   gpu:SUBSTRING                                 the newest N complete runs with such a GPU
//   tag:KEY=VALUE~K, host:NAME~K, gpu:SUBSTRING~K  the same, K runs further back (tag:nightly~1
//                                                 is the previous nightly run)
//   baseline:previous-good                        the rolling baseline: the newest good run
//                                                 (complete, every suite ok, not a rerun, not
//                                                 imported) on the other side's host, before
//                                                 the other side's (oldest) run; a side of a
//                                                 pair only (resolve_pair)
// N is --last (default 1). `latest` and the groups skip `run --until-decided` reruns (tagged
// until_decided=<first run>: a few benchmarks each, not the server's results); tag:until_decided
// selects them, an id always does. Unknown ids, unknown baselines and empty selections throw
// Error(bad_input) naming the selection and how to list what exists.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "compare/compare.hpp"
#include "results/store.hpp"

namespace gpubench::compare {

std::vector<int64_t> resolve_selection(results::Store& store, const std::string& selection,
                                       int last = 1);
// The reserved baseline name of the rolling baseline (baseline:previous-good).
inline constexpr const char* k_previous_good = "previous-good";
// Both sides of a pair, base first: as resolve_selection, except that baseline:previous-good on
// one side is previous_good_run of the other side's oldest run.
std::pair<std::vector<int64_t>, std::vector<int64_t>> resolve_pair(results::Store& store,
                                                                   const std::string& first,
                                                                   const std::string& second,
                                                                   int last = 1);
// The newest run on `candidate`'s host started before it that is complete, has no failed suite,
// and is neither an --until-decided rerun nor an imported file; Error(bad_input) when none.
int64_t previous_good_run(results::Store& store, int64_t candidate);
// Every complete run a group selector (tag:, host:, gpu:) matches, whatever --last and ~K pick
// from them; empty for a selector of one run (an id, latest~N, baseline:NAME). History uses it to
// keep the candidate's group out of the base's noise.
std::vector<int64_t> selector_group(results::Store& store, const std::string& selection);
// Resolves and loads runs (environment + results) into a comparison side; `keep` (when set)
// drops the rows it rejects as they are read.
using RowFilter = std::function<bool(const results::ResultRow&)>;
Side load_side(results::Store& store, const std::string& selection, int last = 1,
               const RowFilter& keep = {});
// Both sides of a comparison: selections resolved first (base, then candidate, so errors name the
// base first), then the candidate's runs read on a second read-only connection in a second
// thread while this one reads the base: two large runs load in the time of one on two cores.
// `keep` as for load_side (compare: the metrics it does not compare), so they cost no memory.
std::pair<Side, Side> load_sides(results::Store& store, const std::string& base,
                                 const std::string& candidate, int last = 1,
                                 const RowFilter& keep = {});

// Throws Error(bad_input) naming the runs when the two sides share a run: comparing a run with
// itself (compare latest latest, tag:x tag:x) or pooling the candidate into the base (--last)
// says nothing.
void check_disjoint(const Side& base, const Side& candidate);
// The same from the selections and their resolved run ids (resolve_selection): before the
// samples are loaded, so a refused pair costs no memory.
void check_disjoint(const std::string& base, const std::vector<int64_t>& base_ids,
                    const std::string& candidate, const std::vector<int64_t>& candidate_ids);

struct BaselineRow {
  std::string name;
  int64_t run_id = 0;
  std::string run_uuid;
  std::string run_started_at;
  std::string created_at;
  std::string note;
};

// Points NAME at RUN (a new name, or moves an existing one). Returns the previous run id, or 0.
int64_t set_baseline(results::Store& store, const std::string& name, int64_t run_id,
                     const std::string& note = {});
std::vector<BaselineRow> list_baselines(results::Store& store);
// Deletes the pointer only, never the run. Throws Error(bad_input) for an unknown name.
void delete_baseline(results::Store& store, const std::string& name);
// The run a baseline points to. Throws Error(bad_input) naming the known baselines.
int64_t baseline_run(results::Store& store, const std::string& name);

}  // namespace gpubench::compare
