// Names as the analyses compare them, shared by rooms that may not include each other
// (compare/peers/, compare/dataloader/, compare/render/): a host without its domain, and the
// Google Benchmark parameters that are run control, not experiment axes.
#pragma once

#include <string>
#include <string_view>

namespace gpubench::compare {

// A host name without its domain, lower case: "Node1.example.com" and "node1" are one host (a
// tool may print the short name).
std::string short_host(std::string_view host);

// Google Benchmark's run-control suffixes (iterations, repeats, min_time, manual_time, ...):
// they are not experiment axes, so sweeps ignore them when grouping and a dataloader pipeline's
// name leaves them out.
bool is_run_control_param(std::string_view key);

}  // namespace gpubench::compare
