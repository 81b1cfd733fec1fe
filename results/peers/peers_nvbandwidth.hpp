// nvbandwidth (NVIDIA/nvbandwidth, v0.4 onwards) read into a peer document (issue 40): its text
// matrices, single- and multi-node, and its --json output. See peers_nvbandwidth.cpp for the
// names and what each matrix title means.
#pragma once

#include <string>
#include <string_view>

#include "results/peers/peers.hpp"

namespace gpubench::results::peers {

// The text ("nvbandwidth Version:", or a "Running <testcase>." with a "memcpy ... (row)"
// title) or the --json document ({"nvbandwidth": {... "testcases": ...}}).
bool detect_nvbandwidth(std::string_view head);
PeerDocument parse_nvbandwidth(std::string_view text, const std::string& source);

}  // namespace gpubench::results::peers
