// `gpubench export RUN --format openmetrics [--against BASELINE]` (compare/render/openmetrics.hpp).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "results/store.hpp"

namespace gpubench::cli {

// The run as OpenMetrics text. `against` (optional): a baseline name, or any selection compare
// takes (baseline:NAME, a run id, latest~1, tag:K=V); the run is compared with it as `gpubench
// compare AGAINST RUN` would (default threshold, history noise) and each series gets its
// verdict (primary metrics only). When the selection holds the run itself (the first night: the
// baseline was set to this run) there is nothing to compare: no ratios or verdicts are written and
// a note on `err` says so, where `compare` refuses the pair. Throws Error(bad_input) for an unknown
// selection. Written to `out` (nothing is written when the selection is unknown).
void write_openmetrics_export(results::Store& store, int64_t run_id, const std::string& against,
                              std::ostream& out, std::ostream& err);

}  // namespace gpubench::cli
