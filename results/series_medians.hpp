// Per-run series medians (internal to results/): for every (suite run, benchmark, metric,
// device) the median of its valid repetitions (iteration samples not marked throttled), kept in
// table `series_medians` so that history reads one row per run and series instead of every
// sample (compare/history.cpp, issue 16). Kept current by every path that writes samples: ingest
// (from the values it stores), sample-state classification and merges (from the stored samples).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace gpubench::results {

class Database;

namespace detail {

// Collects the valid repetitions of one suite run as they are stored, then writes its medians.
class MedianAccumulator {
 public:
  // device: the sample's device index, -1 when not tied to a device.
  void add(int64_t benchmark, int64_t metric, int64_t device, double value);
  // Replaces the suite run's rows in series_medians with the medians of what was added.
  void store(Database& db, int64_t suite_run_id);

 private:
  // Per benchmark, its series (metric, device) and their values: samples of one benchmark come
  // together, so the last benchmark's slots answer most adds without hashing.
  struct Slot {
    int64_t metric, device;
    std::vector<double> values;
  };
  std::vector<Slot>& slots_of(int64_t benchmark);
  std::unordered_map<int64_t, std::size_t> m_index;            // benchmark -> position in m_slots
  std::vector<std::pair<int64_t, std::vector<Slot>>> m_slots;  // in order of first appearance
  int64_t m_last_benchmark = -1;
  std::size_t m_last = 0;
};

// Recomputes the suite run's series medians from its stored samples.
void refresh_series_medians(Database& db, int64_t suite_run_id);

// Recomputes them for every suite run (the v2 -> v3 migration).
void refresh_all_series_medians(Database& db);

}  // namespace detail
}  // namespace gpubench::results
