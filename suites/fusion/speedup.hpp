// Speed-up over v1 (CUDA-free). Google Benchmark runs a benchmark's repetitions back to back and
// the suite registers v1 before the variants of the same family, dtype, shape and device, so each
// v1 repetition records its median per-call time here, and repetition i of a later variant divides
// v1's repetition i by its own median. Pairing repetitions (instead of one pooled v1 figure) keeps
// v1's run-to-run noise in the spread of the speed-up, so `compare` does not read noise as change.
// A variant whose v1 did not run (filtered out) times v1 itself first (see the runners).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "suites/fusion/fusion_cases.hpp"
#include "util/median.hpp"  // median(), for the runners and their tests

namespace gpubench::fusion {

class Baselines {
 public:
  // Appends one v1 repetition's median per-call time under `key` (fusion_cases.hpp baseline_key).
  void record(const std::string& key, double median_ms);
  // v1's repetition `index` (its last one when v1 ran fewer repetitions); empty when none ran.
  std::optional<double> for_repetition(const std::string& key, std::size_t index) const;
  // 0, 1, 2, ... for successive runs of the benchmark `name` in this process.
  std::size_t next_repetition(const std::string& name);

 private:
  std::map<std::string, std::vector<double>> m_v1;
  std::map<std::string, std::size_t> m_runs;
};

// The process's registry (suites run one benchmark at a time; not thread-safe).
Baselines& baselines();

// One repetition of `c` (median per-call time `call_ms`) against the process's baselines, shared
// by the host and device runners. v1 records call_ms. A variant whose v1 has no repetition this
// far first records time_v1(v1), where v1 is `c` with variant v1 and time_v1 returns its median
// per-call time in ms. Returns the speed-up over v1 (1 for v1 itself); empty without a baseline
// or when call_ms is not positive.
std::optional<double> speedup_over_v1(const FusionCase& c, double call_ms,
                                      const std::function<double(const FusionCase& v1)>& time_v1);

}  // namespace gpubench::fusion
