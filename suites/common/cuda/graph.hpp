// Move-only owners of CUDA Graphs (same contract as resources.hpp: destructors never throw; the
// device that was current at creation stays current while they are used). The one place graphs
// are captured and destroyed; captured_graph.hpp builds on it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>

#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/launch_ledger.hpp"

namespace gpubench::suite::cuda {

struct GraphDestroy {
  void operator()(cudaGraph_t g) const noexcept { (void)cudaGraphDestroy(g); }
};
struct GraphExecDestroy {
  void operator()(cudaGraphExec_t g) const noexcept { (void)cudaGraphExecDestroy(g); }
};

class Graph : public UniqueHandle<cudaGraph_t, GraphDestroy> {
 public:
  using UniqueHandle::UniqueHandle;
  // Captures what `enqueue` queues on `stream` (which must not be the legacy default stream).
  // The capture is ended even when enqueue throws, so the stream is usable afterwards.
  // Nothing is launched while capturing, so a kernel first used here was never loaded: the
  // ledger reports it (launch_ledger.hpp); launch each kernel once before capturing it.
  static Graph capture(cudaStream_t stream, const std::function<void()>& enqueue) {
    GPUBENCH_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    try {
      const ScopedLaunchScope capturing(LaunchScope::capturing);
      enqueue();
    } catch (...) {
      cudaGraph_t broken = nullptr;
      (void)cudaStreamEndCapture(stream, &broken);
      if (broken) (void)cudaGraphDestroy(broken);
      (void)cudaGetLastError();
      throw;
    }
    cudaGraph_t g = nullptr;
    GPUBENCH_CUDA_CHECK(cudaStreamEndCapture(stream, &g));
    return Graph(g);
  }
  // Nodes in the graph (kernels, memsets, ...).
  std::size_t node_count() const {
    std::size_t nodes = 0;
    GPUBENCH_CUDA_CHECK(cudaGraphGetNodes(get(), nullptr, &nodes));
    return nodes;
  }
};

// An instantiated graph, launched as one unit.
class GraphExec : public UniqueHandle<cudaGraphExec_t, GraphExecDestroy> {
 public:
  using UniqueHandle::UniqueHandle;
  static GraphExec instantiate(const Graph& graph) {
    cudaGraphExec_t e = nullptr;
    GPUBENCH_CUDA_CHECK(cudaGraphInstantiate(&e, graph.get(), 0));
    return GraphExec(e);
  }
  void launch(cudaStream_t stream) const { GPUBENCH_CUDA_CHECK(cudaGraphLaunch(get(), stream)); }
};

}  // namespace gpubench::suite::cuda
