// Event timing of two directions of a bidirectional copy that run at the same time, each queued
// on its own stream, and the two streams possibly on different GPUs (a peer pair: each direction
// is issued by its own source GPU, as nvbandwidth's bidirectional write tests do).
//
// One sample: a spin kernel holds the first stream on a host-mapped flag (METHODOLOGY rule 1);
// a gate event recorded after it releases the second stream too (cudaStreamWaitEvent works
// across devices). Both functions queue inside a gated launch scope (launch_ledger.hpp): a kernel
// never launched on its device before is refused by name, so each kernel must be preloaded on
// both GPUs (preload_copy_kernels under ScopedDevice for the second). Each stream then records its
// start event, its timed copies, its stop event, and its untimed interfering copies (so the other
// direction's timed copies never run alone: see bidir_copies_per_sample). Each direction's time
// comes from its own device's events; the span is the longer of the two (both start at the gate).
//
// Not thread-safe. first_device must be current when time_pair is called; it stays current.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

#include "suites/common/cuda/pair_timing.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/spin_hold.hpp"

namespace gpubench::transfer {

class ConcurrentPairTimer {
 public:
  ConcurrentPairTimer(int first_device, cudaStream_t first, int second_device, cudaStream_t second,
                      unsigned long long spin_timeout_ns = suite::cuda::k_default_spin_timeout_ns);

  // Each function only queues work on its stream (the second's with second_device current).
  // Returns after both streams finished everything, interfering copies included. Throws
  // std::runtime_error when the spin kernel timed out while queueing, CudaError on failures.
  suite::cuda::PairSample time_pair(const std::function<void()>& timed_first,
                                    const std::function<void()>& interfering_first,
                                    const std::function<void()>& timed_second,
                                    const std::function<void()>& interfering_second);

  // When the last time_pair released its spin kernel (SampleStateRecorder::now_s, seconds): the
  // timed copies ran in [released_at_s, released_at_s + span], before the interfering copies
  // finished and time_pair returned.
  double released_at_s() const noexcept { return m_released_at_s; }

 private:
  int m_first_device;
  int m_second_device;
  cudaStream_t m_first;
  cudaStream_t m_second;
  suite::cuda::SpinHold m_spin;
  suite::cuda::Event m_gate, m_start_first, m_stop_first;  // first_device
  suite::cuda::Event m_start_second, m_stop_second;        // second_device
  double m_released_at_s = 0.0;
};

// Makes `device` current while alive and restores the previous device.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int m_previous = 0;
};

}  // namespace gpubench::transfer
