#include "suites/common/sample_state_counters.hpp"

#include <algorithm>
#include <chrono>
#include <string>

namespace gpubench::suite {

double SampleStateRecorder::now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void SampleStateRecorder::add(double sm_clock_mhz, double start_s, double end_s) {
  if (sm_clock_mhz > 0 && (m_min_clock_mhz == 0 || sm_clock_mhz < m_min_clock_mhz)) {
    m_min_clock_mhz = sm_clock_mhz;
  }
  m_start_s = m_any ? std::min(m_start_s, start_s) : start_s;
  m_end_s = m_any ? std::max(m_end_s, end_s) : end_s;
  m_any = true;
}

void SampleStateRecorder::write(benchmark::State& state) const {
  if (!m_any) return;
  if (m_min_clock_mhz > 0) state.counters[std::string(k_written[0])] = m_min_clock_mhz;
  state.counters[std::string(k_written[1])] = m_start_s;
  state.counters[std::string(k_written[2])] = m_end_s;
}

}  // namespace gpubench::suite
