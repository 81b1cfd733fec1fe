// The table of formats `gpubench import` knows besides its own (issue 40).
#include "results/peers/peers.hpp"

#include "results/peers/peers_cuda_samples.hpp"
#include "results/peers/peers_dcgm.hpp"
#include "results/peers/peers_nccl_tests.hpp"
#include "results/peers/peers_nvbandwidth.hpp"
#include "results/peers/peers_nvbench.hpp"

namespace gpubench::results::peers {

const std::vector<PeerFormat>& peer_formats() {
  // One line per format, added with its reader (peers_<tool>.cpp). Text formats whose first lines
  // another tool could print come after the more specific ones.
  static const std::vector<PeerFormat> formats = {
      {"nccl-tests", "nccl-tests and rccl-tests *_perf text output", detect_nccl_tests,
       parse_nccl_tests},
      {"nvbandwidth", "nvbandwidth text or --json output (v0.4 onwards)", detect_nvbandwidth,
       parse_nvbandwidth},
      {"nvbench", "nvbench --json file or the markdown tables it prints", detect_nvbench,
       parse_nvbench},
      {"p2pBandwidthLatencyTest", "CUDA samples p2pBandwidthLatencyTest text",
       detect_p2p_bandwidth_latency_test, parse_p2p_bandwidth_latency_test},
      {"bandwidthTest", "CUDA samples bandwidthTest text (tables or --csv lines)",
       detect_bandwidth_test, parse_bandwidth_test},
      {k_dcgm_format,
       "dcgmi diag text (its box table) or -j JSON: acceptance facts per test and GPU",
       &detect_dcgm_diag, &parse_dcgm_diag},
  };
  return formats;
}

const PeerFormat* find_peer_format(std::string_view name) {
  for (const PeerFormat& f : peer_formats()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const PeerFormat* detect_peer_format(std::string_view head) {
  for (const PeerFormat& f : peer_formats()) {
    if (f.detect(head)) return &f;
  }
  return nullptr;
}

}  // namespace gpubench::results::peers
