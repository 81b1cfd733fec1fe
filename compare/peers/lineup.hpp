// `gpubench peers [RUN]` and the peers section of `report` (issue 40): gpubench's own figures
// lined up with an imported peer tool's figure for the same quantity on the same host and GPUs.
//
// A peer run is a run whose suite is one of k_peer_suites (nccl-tests, nvbandwidth, bandwidthTest,
// p2pBandwidthLatencyTest, nvbench, pytorch: the suite names of results/peers and of the bundle's
// PyTorch script). For a gpubench run, the newest peer run of each tool on the same host (and on
// the same GPUs where both runs name them by UUID, else by PCI bus id) is lined up against it,
// quantity by quantity (README.md here: the matching rules). Each line's ratio is gpubench / peer;
// where both sides have k_min_repetitions or more values, the interval is compare's estimator
// (stats/ log_ratio_estimate) at 99%.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/store.hpp"

namespace gpubench::compare {

inline constexpr double k_peer_confidence = 0.99;
// Values a side needs for an interval: as compare, fewer than 3 give a ratio without one.
inline constexpr std::size_t k_peer_min_repetitions = 3;

// True for the suite names of imported peer tools (results/peers, the PyTorch script).
bool is_peer_suite(std::string_view suite);

// One side of a line: a benchmark's values (ok samples of one metric, slowed ones left out).
struct PeerSide {
  int64_t run_id = 0;
  std::string suite;      // "allreduce", "nccl-tests"
  std::string benchmark;  // full name
  std::string metric;     // "busbw_GB_per_s"
  std::string unit;
  std::vector<double> values;  // peer side: multiplied by PeerLine::peer_scale
  double median = 0;
};

struct PeerLine {
  std::string quantity;  // for people: "allreduce busbw fp32 out_of_place 64 MiB 8 ranks"
  std::string gpu;       // "0" (CUDA ordinal), "0->1" (a copy between GPUs), "" (whole node)
  PeerSide gpubench;
  PeerSide peer;
  // The factor the peer's values were multiplied by to count as gpubench counts (bandwidthTest
  // counts a device copy's bytes twice: 0.5; nvbandwidth's device_local_copy against STREAM copy,
  // which counts read and write: 2). 1 almost always.
  double peer_scale = 1;
  double ratio = 1;  // gpubench / peer: trimmed geometric means with an interval, else medians
  std::optional<double> ci_low;  // present when both sides have k_peer_min_repetitions values
  std::optional<double> ci_high;
  std::string note;  // how the two methods differ
};

// A peer run lined up (or looked at and left out, with the reason).
struct PeerRunUse {
  int64_t run_id = 0;
  std::string tool;  // the peer suite: "nccl-tests"
  std::string started_at;
  std::size_t lines = 0;
  std::string left_out;  // why the run was not lined up ("" when it was)
};

struct PeerLineup {
  int64_t run_id = 0;
  std::string host;
  std::vector<PeerRunUse> peer_runs;  // newest first
  std::vector<PeerLine> lines;        // by quantity, then GPU
};

// A run as loaded from the store.
struct LoadedRun {
  results::RunDetail detail;
  std::vector<results::ResultRow> rows;
};

// The lines between a gpubench run and one peer run (pure; the run-level checks of host and GPUs
// are peer_lineup's).
std::vector<PeerLine> line_up(const LoadedRun& own, const LoadedRun& peer);

// Why `peer` cannot be lined up with `own` (another host, other GPUs), or "" when it can.
std::string peer_mismatch(const results::RunDetail& own, const results::RunDetail& peer);

// The whole line-up of run `run_id` against the newest peer run of each tool in the store.
// Error(bad_input) when `run_id` is itself a peer run (name a gpubench run).
PeerLineup peer_lineup(results::Store& store, int64_t run_id);

}  // namespace gpubench::compare
