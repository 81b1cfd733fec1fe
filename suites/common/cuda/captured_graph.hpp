// A CUDA Graph captured from work queued on a stream, instantiated once and replayed with one
// launch (cudaStreamBeginCapture / cudaStreamEndCapture / cudaGraphInstantiate / cudaGraphLaunch).
// Move-only; the graph and its executable are destroyed with it. The device that was current at
// capture must be current when it is launched.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>

#include "suites/common/cuda/graph.hpp"

namespace gpubench::suite::cuda {

class CapturedGraph {
 public:
  CapturedGraph() = default;

  // Captures what `enqueue` queues on `stream` (nothing runs while capturing; capture mode
  // thread-local, so other threads' CUDA calls are unaffected) and instantiates it. `stream` must
  // not be the legacy default stream and should be idle. If enqueue throws, the capture is ended
  // and discarded before the exception propagates. Throws CudaError on CUDA failures, and
  // FirstLaunchInScope when enqueue uses a kernel never launched before (launch it once first).
  static CapturedGraph capture(cudaStream_t stream, const std::function<void()>& enqueue);

  // Queues one replay of the whole graph on `stream` (asynchronous).
  void launch(cudaStream_t stream) const;

  // Nodes in the captured graph (kernels, memsets, ...).
  std::size_t node_count() const noexcept { return m_nodes; }
  explicit operator bool() const noexcept { return static_cast<bool>(m_exec); }

 private:
  Graph m_graph;
  GraphExec m_exec;
  std::size_t m_nodes = 0;
};

}  // namespace gpubench::suite::cuda
