// Event timing of a batch of GPU work queued behind a spin kernel (METHODOLOGY rules 1-5).
//
// One sample = time_batch(): [cold: memset over >= L2 size, synchronise] -> spin kernel waits on a
// host-mapped flag -> start event -> the caller's work (queued, not run) -> stop event -> the host
// releases the flag -> wait for stop -> elapsed time; then a clock probe (clock64 against
// %globaltimer, kernels::k_clock_probe_ns) right after the batch gives the SM clock it ran at.
// Cold samples = time_flushed_calls(): spin kernel -> N x (L2 flush, start event, one call, stop
// event) -> release -> N per-call times, then the clock probe (issue 36 "cold means cold"). Whether
// that clock means anything (power cap, slowdown, below the expected clock) is decided by the
// harness from NVML (suites/README.md "Sample states"); report it with suite::SampleStateRecorder.
// The probe is queued after the stop event, so it is not part of the timed interval.
//
// Not thread-safe; one BatchTimer per stream. The device it was made on must be current.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

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

// One batch of cold samples (time_flushed_calls).
struct FlushedCallsSample {
  std::vector<double> call_ms;  // per (flush, call) pair: the call alone, start to stop event
  double elapsed_ms = 0.0;      // the whole batch, flushes included (GPU time spent)
  double sm_clock_mhz = 0.0;    // measured right after the batch; 0 if the probe failed to read
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

  // Cold samples: `pairs` (L2 flush, call) pairs queued behind one spin kernel, each call alone
  // between its own two events and each flush (L2Flusher's memset, twice the L2) queued before
  // its call's start event, so no flush is timed and every call starts with the previous call's
  // data evicted. A pair queues one memset node, the call's kernels and two event records: keep
  // pairs x (2 + kernels per call) below k_max_queued_kernels (the records counted as one).
  // enqueue_call queues exactly one call; the rules of time_batch's enqueue apply. One pair's
  // time is quantised by the events' resolution (about 0.5 us, cudaEventElapsedTime) against
  // calls of a few microseconds, so a case's value is an estimate over hundreds of pairs
  // (suites/common/cold_series.hpp, trimmed_mean), never one pair. The events come from a pool
  // grown to 2 x pairs once, not created per sample. Throws std::invalid_argument when pairs < 1;
  // otherwise as time_batch.
  FlushedCallsSample time_flushed_calls(const std::function<void()>& enqueue_call, int pairs);

  // Only the clock probe: the SM clock right now, in MHz.
  double probe_clock_mhz();

 private:
  cudaStream_t m_stream;
  double m_peak_clock_mhz;
  std::size_t m_l2_bytes;
  std::optional<L2Flusher> m_flusher;  // allocated (and run once) on the first cold sample
  SpinHold m_spin;
  PinnedBuffer<kernels::ClockProbe> m_probe;
  Event m_start;
  Event m_stop;
  std::vector<Event> m_pair_events;  // time_flushed_calls: [2i] before call i, [2i+1] after it

  L2Flusher& flusher();
};

}  // namespace gpubench::suite::cuda
