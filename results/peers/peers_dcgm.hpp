// `dcgmi diag` outputs read into acceptance facts (issue 40): the box table it prints
// ("| Diagnostic | Result |", sections Metadata/Deployment/Integration/Hardware/Stress, per-GPU
// "Pass - All", "Fail - GPU: 1", "GPU0: Pass" rows, wrapped Warning/Info/Error rows) and its
// `-j` JSON (DCGM 3: "DCGM GPU Diagnostic" with results per gpu_id/gpu_ids; DCGM 4: "DCGM
// Diagnostic" with results per entity, test_summary and metadata.version). One fact per (test,
// GPU); the run it becomes holds no benchmarks.
#pragma once

#include <string>
#include <string_view>

#include "results/peers/peers.hpp"

namespace gpubench::results::peers {

inline constexpr std::string_view k_dcgm_format = "dcgm-diag";
inline constexpr std::string_view k_dcgm_suite = "dcgm-diag";

// The box table's header row, or a JSON key of either DCGM generation, in the first bytes.
bool detect_dcgm_diag(std::string_view head);

// The document (context only: suite "dcgm-diag", peer.tool "dcgmi diag", peer.version and
// gpubench.driver_version where stated; no benchmarks, and no gpubench.devices: dcgmi names its
// GPUs by index and PCI device id only, no UUID, name or bus) and the facts. Throws
// Error(bad_input) naming `source`, the line and what was expected for a broken table or JSON, an
// unknown result word, or an output that ran no test (a `runtime_error` and no results).
PeerDocument parse_dcgm_diag(std::string_view text, const std::string& source);

}  // namespace gpubench::results::peers
