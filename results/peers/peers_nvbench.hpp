// nvbench (NVIDIA/nvbench) results read into a peer document (issue 40): the --json file with
// its per-state summaries (and the sample files it references, read where they lie next to it),
// or the markdown tables nvbench prints. See peers_nvbench.cpp for names and units.
#pragma once

#include <string>
#include <string_view>

#include "results/peers/peers.hpp"

namespace gpubench::results::peers {

bool detect_nvbench(std::string_view head);
// `source`: the file's path; a sample file a summary names ("result.json-bin/0.bin") is looked
// for relative to its directory.
PeerDocument parse_nvbench(std::string_view text, const std::string& source);

}  // namespace gpubench::results::peers
