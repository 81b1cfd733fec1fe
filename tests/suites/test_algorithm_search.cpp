// The cuBLASLt algorithm search (suites/gemm/algorithm_search.hpp) against a fake timing source:
// the same timings give the same choice, near-ties go to the best heuristic rank wherever the
// candidates stand, and the batches are long enough that the events' resolution cannot decide a
// choice. The fake GPU is a FIXTURE: made-up call times, not measurements.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "suites/gemm/algorithm_search.hpp"
#include "util/median.hpp"

namespace gpubench::gemm {
namespace {

// CUDA events time "with a resolution of around 0.5 microseconds" (cudaEventElapsedTime).
constexpr double k_event_resolution_ms = 0.5e-3;

// A fake GPU: each candidate rank runs at a fixed time per call; a batch lasts calls x that time,
// times (1 + seeded normal noise of `noise` relative sd), read as the difference of two event
// timestamps that tick every k_event_resolution_ms from a random phase (so a batch reads up to one
// tick long or short).
class FakeGpu final : public SearchTimer {
 public:
  FakeGpu(std::map<int, double> call_ms, double noise, unsigned seed)
      : m_call_ms(std::move(call_ms)), m_noise(noise), m_rng(seed) {}
  std::set<int> broken;          // ranks whose warm-up call fails
  std::vector<int> batch_calls;  // every timed batch's calls, in order

  bool prepare(int rank) override {
    if (broken.count(rank)) return false;
    m_current = rank;
    return true;
  }
  std::optional<double> time_batch_ms(int calls) override {
    batch_calls.push_back(calls);
    std::normal_distribution<double> noise(0.0, m_noise);
    std::uniform_real_distribution<double> phase(0.0, k_event_resolution_ms);
    const double ms = calls * m_call_ms.at(m_current) * (1.0 + (m_noise > 0 ? noise(m_rng) : 0.0));
    const double start = m_noise > 0 ? phase(m_rng) : 0.0;
    const double ticks = std::floor((start + ms) / k_event_resolution_ms) -
                         std::floor(start / k_event_resolution_ms);
    return std::max(1.0, ticks) * k_event_resolution_ms;
  }

 private:
  std::map<int, double> m_call_ms;
  double m_noise;
  std::mt19937 m_rng;
  int m_current = -1;
};

std::vector<int> ranks_of(const std::map<int, double>& call_ms) {
  std::vector<int> out;
  for (const auto& [rank, ms] : call_ms) out.push_back(rank);
  return out;
}

TEST(AlgorithmSearch, TheSameTimingsGiveTheSameChoice) {
  const std::map<int, double> call_ms = {{0, 0.105}, {1, 0.100}, {2, 0.0995}, {3, 0.120}};
  FakeGpu first(call_ms, 0.004, 17);
  FakeGpu second(call_ms, 0.004, 17);
  const auto a = search_algorithm(ranks_of(call_ms), first);
  const auto b = search_algorithm(ranks_of(call_ms), second);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->chosen_rank(), b->chosen_rank());
  EXPECT_EQ(a->tied, b->tied);
  ASSERT_EQ(a->timed.size(), b->timed.size());
  for (std::size_t i = 0; i < a->timed.size(); ++i) {
    EXPECT_EQ(a->timed[i].per_call_ms, b->timed[i].per_call_ms);
  }
  // Ranks 1 and 2 are 0.5% apart: a tie that rank 1 takes although rank 2 is faster.
  EXPECT_EQ(a->chosen_rank(), 1);
  EXPECT_EQ(a->tied, 2u);
  EXPECT_DOUBLE_EQ(a->median_call_ms(), median(a->timed[a->chosen].per_call_ms));
}

// The tie's key is the heuristic rank, not the position in the list or the order of timing.
TEST(AlgorithmSearch, ANearTieGoesToTheBestRankWhereverItStands) {
  const std::map<int, double> call_ms = {{4, 0.0990}, {7, 0.1000}, {9, 0.0985}};
  for (const std::vector<int>& order :
       {std::vector<int>{4, 7, 9}, std::vector<int>{9, 7, 4}, std::vector<int>{7, 9, 4}}) {
    FakeGpu gpu(call_ms, 0.0, 1);
    const auto r = search_algorithm(order, gpu);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->chosen_rank(), 4);
    EXPECT_EQ(r->tied, 3u);
  }
  // A candidate that cannot run is left out; the others still decide.
  FakeGpu gpu(call_ms, 0.0, 1);
  gpu.broken = {4};
  const auto r = search_algorithm({4, 7, 9}, gpu);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->chosen_rank(), 7);
  EXPECT_EQ(r->timed.size(), 2u);
  // None runs: no choice.
  FakeGpu none(call_ms, 0.0, 1);
  none.broken = {4, 7, 9};
  EXPECT_FALSE(search_algorithm({4, 7, 9}, none));
}

// Every candidate is timed in the same batches: search_samples batches of the calls the first
// candidate's probe call sized, at most k_search_max_calls.
TEST(AlgorithmSearch, EveryCandidateGetsTheSameBatches) {
  const std::map<int, double> call_ms = {{0, 0.002}, {1, 0.004}, {2, 0.003}};
  FakeGpu gpu(call_ms, 0.0, 1);
  const auto r = search_algorithm(ranks_of(call_ms), gpu);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->batch_calls, k_search_max_calls);  // 1 ms of 2 us calls is 500: capped
  EXPECT_EQ(r->samples, k_search_samples_per_candidate);
  ASSERT_EQ(gpu.batch_calls.size(), 1u + 3u * k_search_samples_per_candidate);
  EXPECT_EQ(gpu.batch_calls.front(), 1);  // the probe call
  for (std::size_t i = 1; i < gpu.batch_calls.size(); ++i) {
    EXPECT_EQ(gpu.batch_calls[i], k_search_max_calls);
  }
  for (const CandidateTimes& t : r->timed) {
    EXPECT_EQ(t.per_call_ms.size(), static_cast<std::size_t>(k_search_samples_per_candidate));
  }
}

// Timed enough to separate them: from the smallest calls the suite makes (~2 us of GPU time) to
// long ones, a candidate 0.5% beyond the tie band (2.5% faster) wins each of 200 seeded searches
// and one 0.5% inside it (1.5% faster) none, with 0.1% noise per batch and the events' resolution.
// With batches of at most 32 calls (before issue 36) a 2-5 us call was timed in 64-160 us, where
// one event tick is 0.3-0.8% of the batch, and the ticks, not the candidates, decided up to a
// quarter of these searches at some call times (this test fails with that cap).
TEST(AlgorithmSearch, CandidatesBeyondTheTieBandAreSeparatedAtEveryCallTime) {
  std::vector<double> call_times;
  for (int i = 0; i < 30; ++i) call_times.push_back(0.002 + 0.0001 * i);  // 2.0 .. 4.9 us
  for (double ms : {0.01, 0.05, 1.0, 25.0}) call_times.push_back(ms);
  for (double call_ms : call_times) {
    int beyond_won = 0;
    int inside_won = 0;
    for (unsigned seed = 0; seed < 200; ++seed) {
      FakeGpu beyond({{0, call_ms}, {1, call_ms * 0.975}}, 0.001, seed);
      FakeGpu inside({{0, call_ms}, {1, call_ms * 0.985}}, 0.001, seed + 1000);
      beyond_won += search_algorithm({0, 1}, beyond)->chosen_rank() == 1 ? 1 : 0;
      inside_won += search_algorithm({0, 1}, inside)->chosen_rank() == 1 ? 1 : 0;
    }
    EXPECT_EQ(beyond_won, 200) << call_ms << " ms a call";
    EXPECT_EQ(inside_won, 0) << call_ms << " ms a call";
  }
}

}  // namespace
}  // namespace gpubench::gemm
