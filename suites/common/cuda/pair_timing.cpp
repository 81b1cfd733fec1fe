#include "suites/common/cuda/pair_timing.hpp"

#include <algorithm>

#include "suites/common/cuda/preload.hpp"

namespace gpubench::suite::cuda {

StreamPairTimer::StreamPairTimer(cudaStream_t first, cudaStream_t second,
                                 unsigned long long spin_timeout_ns)
    : m_first(first),
      m_second(second),
      m_spin(spin_timeout_ns),
      m_gate(Event::create()),
      m_start_first(Event::create()),
      m_stop_first(Event::create()),
      m_start_second(Event::create()),
      m_stop_second(Event::create()) {}

PairSample StreamPairTimer::time_pair(const std::function<void()>& enqueue_first,
                                      const std::function<void()>& enqueue_second) {
  m_spin.hold(m_first);
  {
    const SpinHold::ScopedRelease release(m_spin);
    // Both streams wait for the flag: no first launch of a kernel here (launch_ledger.hpp).
    const ScopedLaunchScope gated(LaunchScope::gated);
    m_gate.record(m_first);
    GPUBENCH_CUDA_CHECK(cudaStreamWaitEvent(m_second, m_gate.get(), 0));
    m_start_first.record(m_first);
    enqueue_first();
    m_stop_first.record(m_first);
    m_start_second.record(m_second);
    enqueue_second();
    m_stop_second.record(m_second);
  }
  m_stop_first.synchronize();
  m_stop_second.synchronize();
  m_spin.throw_if_timed_out(
      "while two streams were being queued; the sample is not reported (queue fewer calls per "
      "batch)");
  const double s1 = m_start_first.elapsed_ms_since(m_gate);
  const double e1 = m_stop_first.elapsed_ms_since(m_gate);
  const double s2 = m_start_second.elapsed_ms_since(m_gate);
  const double e2 = m_stop_second.elapsed_ms_since(m_gate);
  PairSample sample;
  sample.first_ms = e1 - s1;
  sample.second_ms = e2 - s2;
  sample.span_ms = std::max(e1, e2) - std::min(s1, s2);
  return sample;
}

}  // namespace gpubench::suite::cuda
