#include "suites/common/cuda/captured_graph.hpp"

namespace gpubench::suite::cuda {

CapturedGraph CapturedGraph::capture(cudaStream_t stream, const std::function<void()>& enqueue) {
  CapturedGraph out;
  out.m_graph = Graph::capture(stream, enqueue);
  out.m_nodes = out.m_graph.node_count();
  out.m_exec = GraphExec::instantiate(out.m_graph);
  return out;
}

void CapturedGraph::launch(cudaStream_t stream) const {
  m_exec.launch(stream);
}

}  // namespace gpubench::suite::cuda
