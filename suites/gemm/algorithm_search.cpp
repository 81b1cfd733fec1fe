// The cuBLASLt algorithm search over a timing source (algorithm_search.hpp).
#include "suites/gemm/algorithm_search.hpp"

#include "util/median.hpp"

namespace gpubench::gemm {

double SearchResult::median_call_ms() const {
  return median(timed.at(chosen).per_call_ms);
}

std::optional<SearchResult> search_algorithm(const std::vector<int>& ranks, SearchTimer& timer) {
  SearchResult r;
  for (int rank : ranks) {
    if (!timer.prepare(rank)) continue;
    if (r.batch_calls == 0) {
      // The first candidate that runs sizes the batches of all of them: the same number of calls
      // per batch, so every candidate is timed with the same resolution and launch pattern.
      const std::optional<double> probe_ms = timer.time_batch_ms(1);
      if (!probe_ms) continue;
      r.batch_calls = calls_per_batch(*probe_ms, k_search_batch_ms, k_search_max_calls);
      r.samples = search_samples(*probe_ms);
    }
    CandidateTimes t;
    t.rank = rank;
    bool ran = true;
    for (int s = 0; s < r.samples && ran; ++s) {
      const std::optional<double> ms = timer.time_batch_ms(r.batch_calls);
      ran = ms.has_value();
      if (ran) t.per_call_ms.push_back(*ms / r.batch_calls);
    }
    if (ran) r.timed.push_back(std::move(t));
  }
  if (r.timed.empty()) return std::nullopt;
  r.chosen = choose_candidate(r.timed, k_search_tie_fraction, &r.tied);
  return r;
}

}  // namespace gpubench::gemm
