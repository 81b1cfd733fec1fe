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
  // One repetition of a case: its busbw (max time across ranks) and, when one stood out, the slow
  // rank with the case name.
  void add(const SeriesKey& key, std::size_t bytes, double busbw_GB_per_s);
  void add_slow_rank(const std::string& case_name, const SlowRank& slow);
  // Median busbw over the repetitions recorded so far; nullopt when none.
  std::optional<double> busbw(const SeriesKey& key, std::size_t bytes) const;
  // busbw of this case over the same series at 2 ranks (run earlier: ranks ascend).
  std::optional<double> efficiency_vs_two(const SeriesKey& key, std::size_t bytes) const;
  // [{"series": "...", "peak_busbw_GB_per_s", "peak_bytes", "knee_bytes", "scaling_efficiency"
  //   (at the largest size, vs 2 ranks; null when not measured)}, ...] and the slow ranks.
  nlohmann::json summary() const;
  bool empty() const { return m_busbw.empty() && m_slow.empty(); }

 private:
  std::map<SeriesKey, std::map<std::size_t, std::vector<double>>> m_busbw;
  std::vector<nlohmann::json> m_slow;
};

// "allreduce/dtype:fp32/mode:out_of_place/ranks:2/device:host" (a series, no size).
std::string series_name(const SeriesKey& key);

}  // namespace gpubench::allreduce
