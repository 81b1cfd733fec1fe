#include "suites/common/cuda/captured_graph.hpp"

#include "suites/common/cuda/check.hpp"

namespace gpubench::suite::cuda {

CapturedGraph CapturedGraph::capture(cudaStream_t stream, const std::function<void()>& enqueue) {
  GPUBENCH_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  cudaGraph_t raw = nullptr;
  try {
    enqueue();
  } catch (...) {
    // End the capture so the stream is usable again; the partial graph is discarded.
    if (cudaStreamEndCapture(stream, &raw) == cudaSuccess && raw != nullptr)
      (void)cudaGraphDestroy(raw);
    (void)cudaGetLastError();
    throw;
  }
  GPUBENCH_CUDA_CHECK(cudaStreamEndCapture(stream, &raw));
  CapturedGraph out;
  out.m_graph = UniqueHandle<cudaGraph_t, GraphDestroy>(raw);
  std::size_t nodes = 0;
  GPUBENCH_CUDA_CHECK(cudaGraphGetNodes(raw, nullptr, &nodes));
  out.m_nodes = nodes;
  cudaGraphExec_t exec = nullptr;
  GPUBENCH_CUDA_CHECK(cudaGraphInstantiate(&exec, raw, 0));
  out.m_exec = UniqueHandle<cudaGraphExec_t, GraphExecDestroy>(exec);
  return out;
}

void CapturedGraph::launch(cudaStream_t stream) const {
  GPUBENCH_CUDA_CHECK(cudaGraphLaunch(m_exec.get(), stream));
}

}  // namespace gpubench::suite::cuda
