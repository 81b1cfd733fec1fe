// Event timing of a batch of GPU work queued behind a spin kernel (METHODOLOGY rules 1-5).
//
// One sample = time_batch(): [cold: memset over >= L2 size, synchronise] -> spin kernel waits on a
// host-mapped flag -> start event -> the caller's work (queued, not run) -> stop event -> the host
// releases the flag -> wait for stop -> elapsed time; then a clock probe (clock64 against
// %globaltimer) right after the batch gives the SM clock it ran at. Whether that clock means
// anything (power cap, slowdown, below the expected clock) is decided by the harness from NVML
// (suites/README.md "Sample states"); report it with suite::SampleStateRecorder.
// The probe is queued after the stop event, so it is not part of the timed interval.
//
// Not thread-safe; one BatchTimer per stream. The device it was made on must be current.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <optional>

#include "kernels/common/spin.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/spin_hold.hpp"

namespace gpubench::suite::cuda {

enum class CacheState { hot, cold };

// Kernels one batch may queue behind the spin kernel: below the ~500 pending launches at which a
// launch call starts to wait for the GPU, which the spin kernel holds.
inline constexpr int k_max_queued_kernels = 400;

const char* to_string(CacheState state);

// Evicts L2 by writing a buffer twice the L2 size (at least 8 MiB).
class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes);
  void flush(cudaStream_t stream) const;
  std::size_t bytes() const noexcept { return m_buffer.bytes(); }

 private:
  DeviceBuffer<unsigned char> m_buffer;
};

struct BatchSample {
  double elapsed_ms = 0.0;    // the whole batch, from the start to the stop event
  double sm_clock_mhz = 0.0;  // measured right after the batch; 0 if the probe failed to read
};

class BatchTimer {
 public:
  // peak_clock_khz: cudaDevAttrClockRate of the current device. l2_bytes: its L2 size (used only
  // for cold samples). spin_timeout_ns: how long the spin kernel waits for the host at most.
  BatchTimer(cudaStream_t stream, int peak_clock_khz, std::size_t l2_bytes,
             unsigned long long spin_timeout_ns = k_default_spin_timeout_ns);

  // enqueue must only queue work on the stream (no synchronisation): the queue is held by the spin
  // kernel until it returns. Keep batches below k_max_queued_kernels kernels (a graph replay
  // counts its nodes, a library call the kernels it enqueues) so the launch queue never fills.
  // Every kernel enqueue queues must have been launched once before, outside any batch: enqueue
  // runs in a gated LaunchScope (suites/common/launch_ledger.hpp).
  // Throws std::runtime_error when the spin kernel timed out (the sample would include launch
  // latency and is not reported), CudaError on CUDA failures.
  BatchSample time_batch(const std::function<void()>& enqueue, CacheState cache);

  // Only the clock probe: the SM clock right now, in MHz.
  double probe_clock_mhz();

 private:
  cudaStream_t m_stream;
  double m_peak_clock_mhz;
  std::size_t m_l2_bytes;
  std::optional<L2Flusher> m_flusher;  // allocated on the first cold sample
  SpinHold m_spin;
  PinnedBuffer<kernels::ClockProbe> m_probe;
  Event m_start;
  Event m_stop;
};

}  // namespace gpubench::suite::cuda
