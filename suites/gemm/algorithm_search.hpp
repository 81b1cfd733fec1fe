// The cuBLASLt algorithm search as a procedure over a timing source (METHODOLOGY rule 8; issue 36
// "fixed algorithms"): the runner (gemm_runner.cpp) gives it the heuristic's usable candidates and
// a source that runs and times them with CUDA events; tests give it a fake one. CUDA-free.
//
// The procedure: every candidate gets one warm-up call; the first one that runs also gets one
// timed probe call, which sizes every candidate's batches alike (calls_per_batch: about
// k_search_batch_ms, at most k_search_max_calls calls) and their number (search_samples: 5, or 3
// for calls of >= 10 ms); each candidate is then timed in that many batches, and choose_candidate
// picks among the medians (the fastest, unless better-ranked candidates are within
// k_search_tie_fraction of it: the tie goes to the best rank, a key fixed for a GPU, driver and
// library, so noise cannot flip the kernel). The same timings always give the same choice.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "suites/gemm/gemm_cases.hpp"

namespace gpubench::gemm {

// Most calls in one search batch. A batch is queued behind the timing spin kernel, whose queue
// holds suite::cuda::k_max_queued_kernels (400) launches; a cuBLASLt call is one kernel, two with
// a split-K reduction, so 128 calls stay below it at up to 3 kernels a call. At 128 calls a 2 us
// call (the smallest cases) is timed in batches of ~0.26 ms, where the events' ~0.5 us resolution
// is 0.2% of the batch: a tenth of the tie fraction, so the resolution cannot decide a choice.
inline constexpr int k_search_max_calls = 128;

// What the search times with. One candidate is current at a time.
class SearchTimer {
 public:
  virtual ~SearchTimer() = default;
  // Makes the candidate of heuristic rank `rank` current and runs its warm-up call; false when it
  // cannot run here (it is left out of the choice). Errors that must stop the case are thrown.
  virtual bool prepare(int rank) = 0;
  // GPU milliseconds of one batch of `calls` back-to-back calls of the current candidate;
  // nullopt when the batch failed (the candidate is left out).
  virtual std::optional<double> time_batch_ms(int calls) = 0;
};

struct SearchResult {
  std::size_t chosen = 0;             // index into `timed`
  std::size_t tied = 0;               // candidates in the chosen one's tie (choose_candidate)
  int batch_calls = 0;                // calls per timed batch, the same for every candidate
  int samples = 0;                    // timed batches per candidate
  std::vector<CandidateTimes> timed;  // the candidates that ran, in the order given
  double median_call_ms() const;      // of the chosen one
  int chosen_rank() const { return timed.at(chosen).rank; }
};

// Searches the candidates of heuristic ranks `ranks` (in the heuristic's order); nullopt when
// none of them ran.
std::optional<SearchResult> search_algorithm(const std::vector<int>& ranks, SearchTimer& timer);

}  // namespace gpubench::gemm
