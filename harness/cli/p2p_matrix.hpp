// Peer-to-peer results as GPU x GPU matrices for `gpubench show`, and the pairs far below their
// siblings, named with both GPUs' UUIDs (a bad link or a GPU in the wrong slot shows up as one
// slow row, column or cell).
//
// A result belongs to a matrix when its benchmark has `src:` and `dst:` parameters (the transfer
// suite's dir:p2p cases) and its metric is a bandwidth (unit GB/s, higher is better). One matrix
// per (suite, case, other parameters, metric); rows are source GPUs, columns destination GPUs;
// a cell is the median of the pair's samples, pooled over the executions of the suite (issue 35).
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/model.hpp"
#include "results/store.hpp"

namespace gpubench::harness {

struct P2pMatrix {
  std::string title;   // "transfer/device_to_device_memcpy_write_ce peer_access:on bytes:..."
  std::string metric;  // "GB_per_s"
  std::string unit;    // "GB/s"
  int size = 0;        // GPUs 0 .. size-1
  // cells[src * size + dst]: the median, empty when the pair has no ok samples.
  std::vector<std::optional<double>> cells;
  // Pairs that were skipped or failed, with the reason (for the note under the matrix).
  std::vector<std::string> not_measured;
  // CUDA ordinal -> GPU UUID, as ingest tied each result to its GPU (gpubench.devices); never
  // looked up by index in the run's GPU list, whose order is NVML's.
  std::map<int, std::string> uuids;
  // link[src * size + dst]: the pair's theoretical link rate in GB/s (GB_per_s / pct_of_link of
  // the same case; x2 included for bidirectional cases), empty when the suite did not know it.
  // Pairs are only compared with pairs over the same link class (an NVLink pair with 2 links is
  // not "slow" next to pairs with 4, nor PCIe next to NVLink).
  std::vector<std::optional<double>> link;
  // perf_rank[src * size + dst]: CUDA's P2P performance rank of the pair
  // (cudaDevP2PAttrPerformanceRank, 0 = the best link of the host; the transfer suite puts it in
  // the case's label), empty when not known. PCIe pairs share the source's "gen x width" rate
  // whether they meet under one switch or across the root complex or the sockets; the rank tells
  // those apart, so a cross-socket pair is not "slow" next to same-switch pairs.
  std::vector<std::optional<int>> perf_rank;

  std::optional<double> at(int src, int dst) const { return cells[src * size + dst]; }
  std::optional<double> link_at(int src, int dst) const {
    return link.empty() ? std::nullopt : link[src * size + dst];
  }
  std::optional<int> perf_rank_at(int src, int dst) const {
    return perf_rank.empty() ? std::nullopt : perf_rank[src * size + dst];
  }
};

// The CUDA P2P performance rank a transfer case's label names ("...; CUDA performance rank 1"),
// nullopt when it names none.
std::optional<int> perf_rank_in_label(const std::string& label);

std::vector<P2pMatrix> build_p2p_matrices(const std::vector<results::ResultRow>& rows);
// True when a result can be a cell of a matrix (numeric src: and dst: parameters); the other
// rows only tell build_p2p_matrices the UUID of each CUDA ordinal.
bool is_p2p_result(const results::ResultRow& r);

// A pair below `fraction` of the median of the other pairs of its matrix over the same link class
// (same theoretical link rate within 1% and the same CUDA performance rank; a pair whose rate or
// rank is unknown is compared with all pairs on that count)
// (default 80%: same-SKU GPUs differ by ~8% and run-to-run noise is a few %, a bad link costs far
// more).
struct SlowPair {
  int src = 0;
  int dst = 0;
  double value = 0;
  double siblings_median = 0;
};
inline constexpr double k_slow_pair_fraction = 0.8;
std::vector<SlowPair> find_slow_pairs(const P2pMatrix& m, double fraction = k_slow_pair_fraction);

// Text: each matrix as a table, then one line per slow pair with both GPUs' UUIDs.
void print_p2p_matrices(std::ostream& out, const std::vector<P2pMatrix>& matrices);
// JSON: [{"title","metric","unit","size","cells":[[..]],"slow_pairs":[...],"not_measured":[..]}]
nlohmann::json p2p_matrices_json(const std::vector<P2pMatrix>& matrices);

}  // namespace gpubench::harness
