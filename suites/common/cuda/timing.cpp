#include "suites/common/cuda/timing.hpp"

#include <algorithm>

#include "suites/common/cuda/preload.hpp"

namespace gpubench::suite::cuda {

const char* to_string(CacheState state) {
  return state == CacheState::cold ? "cold" : "hot";
}

L2Flusher::L2Flusher(std::size_t l2_bytes)
    : m_buffer(std::max<std::size_t>(2 * l2_bytes, std::size_t{8} << 20)) {}

void L2Flusher::flush(cudaStream_t stream) const {
  GPUBENCH_CUDA_CHECK(cudaMemsetAsync(m_buffer.data(), 0, m_buffer.bytes(), stream));
}

BatchTimer::BatchTimer(cudaStream_t stream, int peak_clock_khz, std::size_t l2_bytes,
                       unsigned long long spin_timeout_ns)
    : m_stream(stream),
      m_peak_clock_mhz(peak_clock_khz / 1000.0),
      m_l2_bytes(l2_bytes),
      m_spin(spin_timeout_ns),
      m_probe(1, HostMapping::mapped),
      m_start(Event::create()),
      m_stop(Event::create()) {}

double BatchTimer::probe_clock_mhz() {
  m_probe.data()->cycles = 0;
  m_probe.data()->ns = 0;
  // 50 us: long against the global timer's resolution (up to 1 us on some GPUs), short against
  // anything that changes clocks.
  launch_noted("common::clock_probe", [&] {
    return static_cast<int>(
        kernels::launch_clock_probe(50'000, m_probe.device_pointer(), m_stream));
  });
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(m_stream));
  const kernels::ClockProbe probe = *m_probe.data();
  if (probe.ns == 0) return 0.0;
  return static_cast<double>(probe.cycles) / static_cast<double>(probe.ns) * 1000.0;
}

BatchSample BatchTimer::time_batch(const std::function<void()>& enqueue, CacheState cache) {
  if (cache == CacheState::cold) {
    if (!m_flusher) m_flusher.emplace(m_l2_bytes);
    m_flusher->flush(m_stream);
    GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(m_stream));
  }
  m_spin.hold(m_stream);
  {
    const SpinHold::ScopedRelease release(m_spin);
    // Nothing queued here runs before the flag is released: a kernel's first launch (a lazy
    // module load) must not happen here (launch_ledger.hpp).
    const ScopedLaunchScope gated(LaunchScope::gated);
    m_start.record(m_stream);
    enqueue();
    m_stop.record(m_stream);
  }
  m_stop.synchronize();
  BatchSample sample;
  sample.elapsed_ms = m_stop.elapsed_ms_since(m_start);
  m_spin.throw_if_timed_out(
      "while the batch was being queued; the sample would include launch latency and is not "
      "reported (queue fewer calls per batch)");
  sample.sm_clock_mhz = probe_clock_mhz();
  return sample;
}

}  // namespace gpubench::suite::cuda
