// Event timing of work on two streams of one device that must run at the same time (bidirectional
// copies): one spin kernel holds the first stream, the second waits on an event recorded after it,
// so both queues are released together when the host sets the flag (METHODOLOGY rule 1).
//
// Every event is measured from a gate event recorded right after the spin kernel, so the two
// streams' intervals share one origin: each stream's own time, and the span from the earlier start
// to the later end (the time both directions together took).
//
// Not thread-safe. Both streams belong to the device that was current at construction.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/spin_hold.hpp"

namespace gpubench::suite::cuda {

struct PairSample {
  double first_ms = 0.0;   // first stream: its start event to its stop event
  double second_ms = 0.0;  // second stream
  double span_ms = 0.0;    // earlier start to later stop
};

class StreamPairTimer {
 public:
  StreamPairTimer(cudaStream_t first, cudaStream_t second,
                  unsigned long long spin_timeout_ns = k_default_spin_timeout_ns);

  // Each enqueue only queues work on its stream. Throws std::runtime_error when the spin kernel
  // timed out while queueing (the sample would include launch latency), CudaError on failures.
  PairSample time_pair(const std::function<void()>& enqueue_first,
                       const std::function<void()>& enqueue_second);

 private:
  cudaStream_t m_first;
  cudaStream_t m_second;
  SpinHold m_spin;
  Event m_gate;
  Event m_start_first, m_stop_first, m_start_second, m_stop_second;
};

}  // namespace gpubench::suite::cuda
