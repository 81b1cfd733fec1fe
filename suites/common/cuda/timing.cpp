#include "suites/common/cuda/timing.hpp"

#include <algorithm>
#include <stdexcept>

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
  // k_clock_probe_ns (100 us): long against the global timer's resolution, short against
  // anything that changes clocks (kernels/common/spin.hpp).
  launch_noted("common::clock_probe", [&] {
    return static_cast<int>(
        kernels::launch_clock_probe(kernels::k_clock_probe_ns, m_probe.device_pointer(), m_stream));
  });
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(m_stream));
  const kernels::ClockProbe probe = *m_probe.data();
  if (probe.ns == 0) return 0.0;
  return static_cast<double>(probe.cycles) / static_cast<double>(probe.ns) * 1000.0;
}

L2Flusher& BatchTimer::flusher() {
  if (!m_flusher) {
    // Allocated here, never inside a gated batch (cudaMalloc may synchronise the device), and
    // run once on the idle stream, as every kernel is before a batch queues it.
    m_flusher.emplace(m_l2_bytes);
    m_flusher->flush(m_stream);
    GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(m_stream));
  }
  return *m_flusher;
}

BatchSample BatchTimer::time_batch(const std::function<void()>& enqueue, CacheState cache) {
  if (cache == CacheState::cold) {
    flusher().flush(m_stream);
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

FlushedCallsSample BatchTimer::time_flushed_calls(const std::function<void()>& enqueue_call,
                                                  int pairs) {
  if (pairs < 1) throw std::invalid_argument("time_flushed_calls: pairs must be at least 1");
  const auto n = static_cast<std::size_t>(pairs);
  // Outside the gated scope: event creation and the flush buffer's allocation.
  while (m_pair_events.size() < 2 * n) m_pair_events.push_back(Event::create());
  const L2Flusher& flush = flusher();
  m_spin.hold(m_stream);
  {
    const SpinHold::ScopedRelease release(m_spin);
    const ScopedLaunchScope gated(LaunchScope::gated);
    m_start.record(m_stream);
    for (std::size_t i = 0; i < n; ++i) {
      // The flush runs before the call's start event: the memset's own time and the eviction it
      // causes are outside the call's interval; what the call finds in L2 is the flush's data.
      flush.flush(m_stream);
      m_pair_events[2 * i].record(m_stream);
      enqueue_call();
      m_pair_events[2 * i + 1].record(m_stream);
    }
    m_stop.record(m_stream);
  }
  m_stop.synchronize();
  m_spin.throw_if_timed_out(
      "while the flushed calls were being queued; the samples would include launch latency and "
      "are not reported (queue fewer pairs per batch)");
  FlushedCallsSample sample;
  sample.call_ms.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    sample.call_ms.push_back(m_pair_events[2 * i + 1].elapsed_ms_since(m_pair_events[2 * i]));
  sample.elapsed_ms = m_stop.elapsed_ms_since(m_start);
  sample.sm_clock_mhz = probe_clock_mhz();
  return sample;
}

}  // namespace gpubench::suite::cuda
