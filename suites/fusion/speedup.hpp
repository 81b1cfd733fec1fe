// Speed-up over v1 (CUDA-free): each v1 case records its per-call times under its name; a later
// variant of the same family, dtype, shape and device divides v1's median by its own. Google
// Benchmark runs a benchmark's repetitions back to back and the suite registers v1 first, so the
// baseline is the median over every v1 sample of this process. A variant whose v1 did not run
// (filtered out) times v1 itself first (see the runners).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::fusion {

class Baselines {
 public:
  void record(const std::string& key, double ms_per_call);
  // Median per-call time of the baseline, if any sample was recorded.
  std::optional<double> median_ms(const std::string& key) const;

 private:
  std::map<std::string, std::vector<double>> m_samples;
};

// The process's registry (suites run one benchmark at a time; not thread-safe).
Baselines& baselines();

// Median of the values (0 for none).
double median(std::vector<double> values);

}  // namespace gpubench::fusion
