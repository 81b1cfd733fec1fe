#include "suites/common/cold_series.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace gpubench::suite {

int cold_pairs_per_repetition(Profile profile) {
  // Quick and standard: 256, four batches of 64, the cost of a few hot batches (the plan holds
  // them); full: 1024.
  return profile == Profile::full ? 1024 : 256;
}

int cold_pairs_per_batch(int kernels_per_call, int max_queued_kernels) {
  // The flush's memset node, the call's kernels, and its two event records counted as one more
  // (they take launch-queue entries too, fewer than a launch: counted to be safe).
  const int per_pair = 1 + std::max(kernels_per_call, 1) + 1;
  return std::clamp(max_queued_kernels / per_pair, 1, k_cold_max_pairs_per_batch);
}

int cold_batches(int pairs, int pairs_per_batch) {
  pairs_per_batch = std::max(pairs_per_batch, 1);
  return std::max(0, (pairs + pairs_per_batch - 1) / pairs_per_batch);
}

double trimmed_mean(std::vector<double> values, double trim_fraction) {
  if (values.empty()) return 0.0;
  const std::size_t n = values.size();
  std::size_t drop =
      static_cast<std::size_t>(static_cast<double>(n) * std::clamp(trim_fraction, 0.0, 0.5));
  if (2 * drop >= n) drop = (n - 1) / 2;  // keep the middle value (or two)
  std::sort(values.begin(), values.end());
  double sum = 0.0;
  for (std::size_t i = drop; i < n - drop; ++i) sum += values[i];
  return sum / static_cast<double>(n - 2 * drop);
}

ColdSeries::ColdSeries(const SamplingPolicy& policy, int pairs_wanted)
    : m_batches(policy), m_pairs_wanted(pairs_wanted) {}

void ColdSeries::add_batch(const std::vector<double>& call_s, double sm_clock_mhz,
                           double elapsed_s) {
  if (call_s.empty()) return;
  double sum = 0.0;
  for (double t : call_s) sum += t;
  m_batches.add(sum / static_cast<double>(call_s.size()), sm_clock_mhz, elapsed_s);
  m_call_s.push_back(call_s);
}

int ColdSeries::pairs() const {
  std::size_t n = 0;
  for (const auto& batch : m_call_s) n += batch.size();
  return static_cast<int>(n);
}

int ColdSeries::pairs_per_batch() const {
  return m_call_s.empty() ? 0 : static_cast<int>(m_call_s.front().size());
}

std::vector<double> ColdSeries::kept() const {
  const std::vector<bool> off = m_batches.off_clock_flags();
  const bool all_off = std::all_of(off.begin(), off.end(), [](bool f) { return f; });
  std::vector<double> out;
  for (std::size_t b = 0; b < m_call_s.size(); ++b) {
    if (off[b] && !all_off) continue;
    out.insert(out.end(), m_call_s[b].begin(), m_call_s[b].end());
  }
  return out;
}

int ColdSeries::off_clock() const {
  const std::vector<bool> off = m_batches.off_clock_flags();
  if (std::all_of(off.begin(), off.end(), [](bool f) { return f; })) return 0;
  std::size_t n = 0;
  for (std::size_t b = 0; b < m_call_s.size(); ++b)
    if (off[b]) n += m_call_s[b].size();
  return static_cast<int>(n);
}

std::string ColdSeries::summary() const {
  const std::size_t per_batch = m_call_s.empty() ? 0 : m_call_s.front().size();
  char text[200];
  std::snprintf(text, sizeof text,
                "samples=%zu off_clock=%d noise=%.2f%% stop=pairs batches=%zux%zu "
                "estimator=trimmed_mean_%.0fpct clock=%.0fMHz",
                kept().size(), off_clock(), 100.0 * noise(), m_call_s.size(), per_batch,
                100.0 * k_cold_trim_fraction, steady_clock_mhz());
  return text;
}

}  // namespace gpubench::suite
