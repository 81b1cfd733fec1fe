#include "suites/common/sampling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace gpubench::suite {

SamplingPolicy sampling_policy(Profile profile) {
  SamplingPolicy p;
  switch (profile) {
    case Profile::quick:
    case Profile::standard:
      // 10 samples of 2 ms at most, as before the noise stop: the plans of an 8-GPU server
      // (quick <= 600 s, standard <= 2700 s) have no room for more; the run's executions give the
      // between-process repeats (issue 35).
      break;
    case Profile::full:
      p.batch_target_s = 0.005;
      p.min_samples = 10;
      p.max_samples = 20;
      p.time_budget_s = 0.1;
      p.warmup_budget_s = 0.05;
      break;
  }
  return p;
}

int calls_for_target(double call_s, double target_s, int max_calls) {
  max_calls = std::max(max_calls, 1);
  if (!(call_s > 0) || !(target_s > 0)) return max_calls;
  const double calls = std::ceil(target_s / call_s);
  if (calls >= static_cast<double>(max_calls)) return max_calls;
  return std::max(1, static_cast<int>(calls));
}

double relative_noise(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double n = static_cast<double>(values.size());
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  if (!(mean > 0)) return 0;
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / (n - 1)) / mean;
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

namespace {

bool within(double value, double reference, double tolerance) {
  return reference > 0 && value > 0 && std::fabs(value - reference) <= tolerance * reference;
}

}  // namespace

bool clock_steady(const std::vector<double>& clocks_mhz, int readings, double tolerance) {
  readings = std::max(readings, 1);
  if (clocks_mhz.size() < static_cast<std::size_t>(readings)) return false;
  const std::vector<double> last(clocks_mhz.end() - readings, clocks_mhz.end());
  if (std::any_of(last.begin(), last.end(), [](double c) { return !(c > 0); })) return false;
  const double mid = median_of(last);
  return std::all_of(last.begin(), last.end(), [&](double c) { return within(c, mid, tolerance); });
}

ClockSettle::ClockSettle(const SamplingPolicy& policy, double last_steady_mhz)
    : m_policy(policy), m_last_steady_mhz(last_steady_mhz) {}

void ClockSettle::add(double sm_clock_mhz, double elapsed_s) {
  m_clocks.push_back(sm_clock_mhz);
  m_elapsed_s += std::max(elapsed_s, 0.0);
  m_steady = clock_steady(m_clocks, m_policy.steady_readings, m_policy.steady_tolerance) ||
             within(sm_clock_mhz, m_last_steady_mhz, m_policy.steady_tolerance);
}

bool ClockSettle::done() const {
  if (batches() < std::max(m_policy.min_warmup_batches, 1)) return false;
  return m_steady || m_elapsed_s >= m_policy.warmup_budget_s;
}

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::noise_target:
      return "noise_target";
    case StopReason::time_budget:
      return "time_budget";
    case StopReason::max_samples:
      return "max_samples";
  }
  return "unknown";
}

SampleSeries::SampleSeries(const SamplingPolicy& policy) : m_policy(policy) {}

void SampleSeries::add(double per_call_s, double sm_clock_mhz, double elapsed_s) {
  m_per_call_s.push_back(per_call_s);
  m_clocks.push_back(sm_clock_mhz);
  m_elapsed_s += std::max(elapsed_s, 0.0);
}

double SampleSeries::steady_clock_mhz() const {
  std::vector<double> read;
  for (double c : m_clocks)
    if (c > 0) read.push_back(c);
  return median_of(read);
}

std::vector<bool> SampleSeries::off_clock_flags() const {
  const double steady = steady_clock_mhz();
  std::vector<bool> flags(m_clocks.size(), false);
  if (!(steady > 0)) return flags;
  for (std::size_t i = 0; i < m_clocks.size(); ++i)
    flags[i] = m_clocks[i] > 0 && !within(m_clocks[i], steady, m_policy.off_clock_tolerance);
  return flags;
}

int SampleSeries::off_clock() const {
  // Samples left out of the median: none when every sample is off (kept() then holds them all).
  return samples() - static_cast<int>(kept().size());
}

std::vector<double> SampleSeries::kept() const {
  const std::vector<bool> flags = off_clock_flags();
  std::vector<double> on;
  for (std::size_t i = 0; i < m_per_call_s.size(); ++i)
    if (!flags[i]) on.push_back(m_per_call_s[i]);
  return on.empty() ? m_per_call_s : on;
}

double SampleSeries::min_kept_clock_mhz() const {
  const std::vector<bool> flags = off_clock_flags();
  const bool all_off = std::all_of(flags.begin(), flags.end(), [](bool f) { return f; });
  double lowest = 0;
  for (std::size_t i = 0; i < m_clocks.size(); ++i) {
    if (!(m_clocks[i] > 0) || (flags[i] && !all_off)) continue;
    lowest = lowest > 0 ? std::min(lowest, m_clocks[i]) : m_clocks[i];
  }
  return lowest;
}

bool SampleSeries::done() const {
  if (m_per_call_s.empty()) return false;
  if (samples() >= m_policy.max_samples || m_elapsed_s >= m_policy.time_budget_s) return true;
  const std::vector<double> on = kept();
  return static_cast<int>(on.size()) >= m_policy.min_samples &&
         relative_noise(on) <= m_policy.noise_target;
}

StopReason SampleSeries::stop_reason() const {
  const std::vector<double> on = kept();
  if (static_cast<int>(on.size()) >= m_policy.min_samples &&
      relative_noise(on) <= m_policy.noise_target)
    return StopReason::noise_target;
  if (m_elapsed_s >= m_policy.time_budget_s) return StopReason::time_budget;
  return StopReason::max_samples;
}

std::string SampleSeries::summary() const {
  char text[160];
  std::snprintf(text, sizeof text, "samples=%zu off_clock=%d noise=%.2f%% stop=%s clock=%.0fMHz",
                kept().size(), off_clock(), 100.0 * noise(), to_string(stop_reason()),
                steady_clock_mhz());
  return text;
}

double time_at_clock_s(double time_s, double clock_mhz, double reference_mhz) {
  if (!(clock_mhz > 0) || !(reference_mhz > 0)) return 0;
  return time_s * clock_mhz / reference_mhz;
}

std::vector<MetricSpec> sampling_metrics() {
  return {
      {k_samples_counter, "samples", Direction::higher,
       "timed samples kept (on the case's steady SM clock)", Role::parameter},
      {k_off_clock_counter, "samples", Direction::lower,
       "timed samples left out of the median: their SM clock was more than 2% off the case's "
       "steady clock",
       Role::parameter},
      {k_noise_counter, "%", Direction::lower,
       "relative standard deviation of the kept samples (the case stops below 0.5%)",
       Role::parameter},
  };
}

void write_sampling_counters(benchmark::State& state, const SampleSeries& series) {
  state.counters[k_samples_counter] = static_cast<double>(series.kept().size());
  state.counters[k_off_clock_counter] = series.off_clock();
  state.counters[k_noise_counter] = 100.0 * series.noise();
}

}  // namespace gpubench::suite
