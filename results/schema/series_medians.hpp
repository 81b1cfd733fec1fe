// Per-run series medians (internal to results/): for every (suite run, benchmark, metric,
// device) the median of its valid repetitions (iteration samples not marked throttled), kept in
// table `series_medians` so that history reads one row per run and series instead of every
// sample (compare/run_noise.cpp, issue 16). Kept current by every path that writes samples: ingest
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
  // Flat, so that a fleet's 150,000 series cost no allocation each: one slot per series, the
  // slots of a benchmark chained in order of first appearance, and every value in one list with
  // its slot (sorted by slot only when stored). Samples of one benchmark come together, so the
  // last benchmark's chain answers most adds without hashing.
  struct Slot {
    int64_t benchmark, metric, device;
    int32_t next = -1;  // the benchmark's next slot
  };
  int32_t slot_of(int64_t benchmark, int64_t metric, int64_t device);
  std::unordered_map<int64_t, int32_t> m_first;  // benchmark -> its first slot
  std::vector<Slot> m_slots;                     // in order of first appearance
  std::vector<std::pair<int32_t, double>> m_values;
  int64_t m_last_benchmark = -1;
  int32_t m_last_first = -1;
};

// Recomputes the suite run's series medians from its stored samples.
void refresh_series_medians(Database& db, int64_t suite_run_id);

// Recomputes them for every suite run (the v2 -> v3 migration).
void refresh_all_series_medians(Database& db);

}  // namespace detail
}  // namespace gpubench::results
