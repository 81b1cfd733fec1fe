#include "suites/common/cuda/pair_timing.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include "kernels/common/spin.hpp"
#include "suites/common/cuda/preload.hpp"

namespace gpubench::suite::cuda {

namespace {
void store_flag(int* flag, int value) {
  std::atomic_ref<int>(*flag).store(value, std::memory_order_seq_cst);
}
// Releases the spin kernel however the scope is left.
struct Release {
  int* flag;
  ~Release() { store_flag(flag, 1); }
};
}  // namespace

StreamPairTimer::StreamPairTimer(cudaStream_t first, cudaStream_t second,
                                 unsigned long long spin_timeout_ns)
    : m_first(first),
      m_second(second),
      m_spin_timeout_ns(spin_timeout_ns),
      m_flag(2, HostMapping::mapped),
      m_gate(Event::create()),
      m_start_first(Event::create()),
      m_stop_first(Event::create()),
      m_start_second(Event::create()),
      m_stop_second(Event::create()) {}

PairSample StreamPairTimer::time_pair(const std::function<void()>& enqueue_first,
                                      const std::function<void()>& enqueue_second) {
  int* flags = m_flag.data();
  int* device_flags = m_flag.device_pointer();
  store_flag(&flags[0], 0);
  store_flag(&flags[1], 0);
  launch_noted("common::spin_wait", [&] {
    return static_cast<int>(
        kernels::launch_spin_wait(&device_flags[0], m_spin_timeout_ns, &device_flags[1], m_first));
  });
  {
    Release release{&flags[0]};
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
  if (std::atomic_ref<int>(flags[1]).load() != 0) {
    throw std::runtime_error(
        "the spin kernel timed out after " + std::to_string(m_spin_timeout_ns / 1'000'000) +
        " ms while two streams were being queued; the sample is not reported (queue fewer "
        "calls per batch)");
  }
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
