// What the allreduce suite sweeps per profile, and what it learns across cases: the median busbw of
// every case (for scaling efficiency and the knee) and the ranks that stood out. The summary is
// written into the benchmark context ("gpubench.allreduce.summary") when the run ends, so it is
// stored with the suite run. CUDA- and MPI-free.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "suites/allreduce/collectives.hpp"
#include "suites/common/suite_support.hpp"

namespace gpubench::allreduce {

struct SweepPlan {
  std::size_t min_bytes = 8;
  std::size_t max_bytes = 0;
  std::size_t factor = 2;
  int warmups = 5;      // untimed calls before the timed ones (the first also checks the result)
  int iterations = 20;  // timed calls per repetition, each timed alone
};

// NCCL: 8 B -> 256 MiB (quick), 1 GiB (standard), 8 GiB (full), by x2 (METHODOLOGY rule 12).
SweepPlan nccl_plan(suite::Profile profile);
// MPI host reference (a CPU check of the MPI path, not a GPU figure): quick 8 B -> 512 KiB by x4
// so it takes seconds, standard 8 B -> 64 MiB by x2, full 8 B -> 1 GiB by x2.
SweepPlan host_plan(suite::Profile profile);

// One series of a sweep: everything but the size.
struct SeriesKey {
  Collective collective = Collective::allreduce;
  std::string dtype;
  Placement placement = Placement::out_of_place;
  int ranks = 1;
  bool host_reference = false;
  Scope scope = Scope::world;
  auto tie() const { return std::tie(collective, dtype, placement, ranks, host_reference, scope); }
  bool operator<(const SeriesKey& o) const { return tie() < o.tie(); }
};

class SweepRecorder {
 public:
  // One repetition of a case: its busbw (max time across ranks). `nominal_bytes` is the sweep's
  // size before rounding, `bytes` the case's (rounded: allgather and reduce_scatter at 6 ranks move
  // 1 048 512 B where 2 ranks move 1 048 576 B for 1 MiB); scaling compares equal nominal sizes.
  void add(const SeriesKey& key, std::size_t nominal_bytes, std::size_t bytes,
           double busbw_GB_per_s);
  void add_slow_rank(const std::string& case_name, const SlowRank& slow);
  // How many nodes the series (scope, ranks) spans (World::nodes_spanned); 1 unless set.
  void set_nodes(Scope scope, int ranks, int nodes);
  int nodes(Scope scope, int ranks) const;
  // Median busbw over the repetitions recorded so far at this nominal size; nullopt when none.
  std::optional<double> busbw(const SeriesKey& key, std::size_t nominal_bytes) const;
  // busbw of this case over the same series at 2 ranks and nominal size (run earlier: ranks
  // ascend), for world series of more than 2 ranks over a like link: both within one node, or both
  // across nodes. A series across nodes against 2 ranks on one node compares the network with
  // NVLink, not scaling: nullopt (the summary says why).
  std::optional<double> efficiency_vs_two(const SeriesKey& key, std::size_t nominal_bytes) const;
  // [{"series": "...", "peak_busbw_GB_per_s", "peak_bytes", "knee_bytes", "scaling_efficiency"
  //   (at the largest size, vs 2 ranks; null when not measured), "nodes", and "scaling_note" when
  //   the link is not like}, ...] and the slow ranks.
  nlohmann::json summary() const;
  bool empty() const { return m_busbw.empty() && m_slow.empty(); }

 private:
  struct Point {
    std::size_t bytes = 0;
    std::vector<double> busbw_GB_per_s;
  };
  // Why efficiency is not defined for `key` (over more than 2 ranks in a world series); "" when it
  // is.
  std::string unlike_link(const SeriesKey& key) const;

  std::map<SeriesKey, std::map<std::size_t, Point>> m_busbw;  // series -> nominal size -> point
  std::map<std::pair<Scope, int>, int> m_nodes;
  std::vector<nlohmann::json> m_slow;
};

// "allreduce/dtype:fp32/mode:out_of_place/ranks:2/device:host" (a series, no size).
std::string series_name(const SeriesKey& key);

}  // namespace gpubench::allreduce
