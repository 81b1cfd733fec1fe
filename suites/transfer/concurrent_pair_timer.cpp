#include "suites/transfer/concurrent_pair_timer.hpp"

#include <algorithm>

#include "suites/common/cuda/check.hpp"
#include "suites/common/launch_ledger.hpp"
#include "suites/common/sample_state_counters.hpp"

namespace gpubench::transfer {

ScopedDevice::ScopedDevice(int device) {
  GPUBENCH_CUDA_CHECK(cudaGetDevice(&m_previous));
  GPUBENCH_CUDA_CHECK(cudaSetDevice(device));
}

ScopedDevice::~ScopedDevice() {
  (void)cudaSetDevice(m_previous);
}

ConcurrentPairTimer::ConcurrentPairTimer(int first_device, cudaStream_t first, int second_device,
                                         cudaStream_t second, unsigned long long spin_timeout_ns)
    : m_first_device(first_device),
      m_second_device(second_device),
      m_first(first),
      m_second(second),
      m_spin(spin_timeout_ns),
      m_gate(suite::cuda::Event::create()),
      m_start_first(suite::cuda::Event::create()),
      m_stop_first(suite::cuda::Event::create()) {
  // Events belong to the device current at creation; the second stream's are made on its GPU.
  const ScopedDevice on_second(second_device);
  m_start_second = suite::cuda::Event::create();
  m_stop_second = suite::cuda::Event::create();
}

suite::cuda::PairSample ConcurrentPairTimer::time_pair(
    const std::function<void()>& timed_first, const std::function<void()>& interfering_first,
    const std::function<void()>& timed_second, const std::function<void()>& interfering_second) {
  // Noted in the launch ledger like every other spin launch (launched here on an idle stream).
  m_spin.hold(m_first);
  {
    const suite::cuda::SpinHold::ScopedRelease release(m_spin);
    // Nothing queued on either GPU runs before the flag is released: a kernel's first launch on
    // either device (a lazy module load that could wait for that device to go idle, which the
    // held gate prevents) is refused here by name (launch_ledger.hpp). Declared after the
    // release, so the scope ends first.
    const suite::ScopedLaunchScope gated(suite::LaunchScope::gated);
    m_gate.record(m_first);
    m_start_first.record(m_first);
    timed_first();
    m_stop_first.record(m_first);
    if (interfering_first) interfering_first();
    const ScopedDevice on_second(m_second_device);
    GPUBENCH_CUDA_CHECK(cudaStreamWaitEvent(m_second, m_gate.get(), 0));
    m_start_second.record(m_second);
    timed_second();
    m_stop_second.record(m_second);
    if (interfering_second) interfering_second();
  }
  // The release flag was set as the scope above ended: the timed copies start now.
  m_released_at_s = suite::SampleStateRecorder::now_s();
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(m_first));
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(m_second));
  m_spin.throw_if_timed_out(
      "while two directions were being queued; the sample is not reported (queue fewer copies "
      "per batch)");
  suite::cuda::PairSample sample;
  sample.first_ms = m_stop_first.elapsed_ms_since(m_start_first);
  {
    const ScopedDevice on_second(m_second_device);
    sample.second_ms = m_stop_second.elapsed_ms_since(m_start_second);
  }
  sample.span_ms = std::max(sample.first_ms, sample.second_ms);
  return sample;
}

}  // namespace gpubench::transfer
