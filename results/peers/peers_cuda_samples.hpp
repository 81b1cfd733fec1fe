// The CUDA samples' bandwidthTest and p2pBandwidthLatencyTest text read into peer documents
// (issue 40). See peers_cuda_samples.cpp for names and units.
#pragma once

#include <string>
#include <string_view>

#include "results/peers/peers.hpp"

namespace gpubench::results::peers {

// bandwidthTest: "[CUDA Bandwidth Test]", its "Transfer Size (Bytes)  Bandwidth(GB/s)" tables
// (MB/s in CUDA 10 and older) or its --csv lines ("bandwidthTest-H2D-Pinned, Bandwidth = ...").
bool detect_bandwidth_test(std::string_view head);
PeerDocument parse_bandwidth_test(std::string_view text, const std::string& source);

// p2pBandwidthLatencyTest: "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]" and its matrices.
bool detect_p2p_bandwidth_latency_test(std::string_view head);
PeerDocument parse_p2p_bandwidth_latency_test(std::string_view text, const std::string& source);

}  // namespace gpubench::results::peers
