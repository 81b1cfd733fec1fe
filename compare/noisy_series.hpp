// Series that are noisy between executions (issue 35 item 4): in one run, the spread of each
// series' executions (one process of its suite each) against the smallest change a comparison of
// two such runs could flag, and how many executions a side would bring that under the threshold
// (Kalibera & Jones 2013: repeat where the variance is; compare/stats/executions.hpp
// size_executions). `show` and `report` list them; `compare` and `--until-decided` use the same
// sizing per entry (Entry::executions_needed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "results/store.hpp"

namespace gpubench::compare {

struct NoisySeries {
  Key key;
  std::size_t executions = 0;  // of this series in the run
  double execution_cv = 0;     // sd of its execution log means (fraction, ~ CV between processes)
  // Smallest change (fraction) a comparison of two runs like this one could flag at the
  // confidence, and the executions a side that bring it to the threshold (0: more than 100).
  double mde = 0;
  std::size_t executions_needed = 0;
};

// Collects one run's result rows as they stream from the store (one execution log mean per row),
// then sizes every series. Rows of a run stored before executions (one suite run per suite)
// have no spread between executions and give nothing.
class NoisySeriesFinder {
 public:
  void add(const results::ResultRow& row);
  // Series of primary metrics (not secondary ones, not parameters) whose mde exceeds
  // `threshold`, noisiest first.
  std::vector<NoisySeries> find(double threshold = 0.02, double confidence = 0.99) const;
  // Series with two or more executions that find() looked at.
  std::size_t sized() const { return m_sized; }

 private:
  struct Series {
    double sign = 1;                     // -1 for higher-is-better: a slow process is positive
    std::map<int64_t, double> means;     // suite run id -> execution log mean
  };
  std::map<Key, Series> m_series;
  mutable std::size_t m_sized = 0;
};

// "fusion/... real_time: 4.1% between executions; detects 9.8% with 3 a side, 14 executions a
// side would detect 2%" lines, at most `limit` of them then "... and N more"; empty when none.
std::vector<std::string> noisy_series_lines(const std::vector<NoisySeries>& noisy,
                                            double threshold, std::size_t limit = 10);

}  // namespace gpubench::compare
