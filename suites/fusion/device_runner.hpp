// Internals of the fusion suite's device half (CUDA only): the per-device context and a prepared
// case that can queue any variant of its family and validate it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "suites/common/cuda/captured_graph.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/timing.hpp"
#include "suites/fusion/fusion_cases.hpp"

namespace gpubench::fusion {

// Per-device state shared by every case on that device. The device must be current.
struct DeviceContext {
  explicit DeviceContext(int device);
  suite::cuda::DeviceInfo info;
  suite::cuda::Stream stream;
  suite::cuda::BatchTimer timer;
  double peak_gb_per_s = 0.0;  // theoretical DRAM bandwidth, 0 when unknown

  // The device's cuBLASLt handle, created at the first call: only the cases that call cuBLASLt
  // (needs_cublaslt: gemm_bias_gelu) ask for it. Creating it loads libcublasLt at run time, which
  // a driver-only node does not have; created with the context, it failed every elementwise case
  // there (review N1). Throws CudaError when it cannot be created (the next call tries again).
  suite::cuda::CublasLtHandle& cublaslt();
  bool has_cublaslt() const noexcept { return m_cublaslt.has_value(); }

 private:
  std::optional<suite::cuda::CublasLtHandle> m_cublaslt;
};

struct Validation {
  bool passed = false;
  std::string summary;
};

// Inputs and outputs of one family, dtype and shape on one device, shared by all its variants.
class PreparedCase {
 public:
  explicit PreparedCase(DeviceContext& dev) : m_dev(dev) {}
  virtual ~PreparedCase() = default;
  PreparedCase(const PreparedCase&) = delete;
  PreparedCase& operator=(const PreparedCase&) = delete;

  // Queues one call of `v` on the device's stream (graph: one replay of v1's captured chain).
  // Call preload(v) and prepare(v) first, outside any timed batch.
  void call(Variant v);
  // Launches the kernels of `v` (graph: v1's) once outside any batch or capture and waits, unless
  // this case did already: no timed batch or capture is their first launch (launch_ledger.hpp).
  void preload(Variant v);
  // Notes in the launch ledger that a batch is about to queue `v`: throws FirstLaunchInScope with
  // the variant's name when its kernels were never preloaded, instead of stalling the batch.
  void note_queued(Variant v) const;
  // Makes `v` ready to be called: captures the graph of v1 (preloaded first) the first time graph
  // is asked for.
  void prepare(Variant v);
  // Kernels (graph nodes) one call of `v` enqueues, counted once by capturing a call (graph: the
  // captured chain's nodes); after preload(v) and prepare(v).
  std::size_t enqueued_nodes(Variant v);
  // Poisons the outputs, runs one call, synchronises and compares with the CPU reference.
  Validation validate(Variant v);
  // Nodes of v1's captured graph (0 before it is captured).
  std::size_t graph_nodes() const noexcept { return m_graph.node_count(); }
  // Details worth a label (e.g. the cuBLASLt algorithms).
  virtual std::string describe() const { return {}; }

 protected:
  virtual void enqueue(Variant v) = 0;  // v1, v2, v3, epilogue
  virtual void poison_outputs() = 0;
  virtual Validation check_outputs() = 0;  // after synchronisation
  DeviceContext& m_dev;

 private:
  // The ledger's name for the kernels of `v` on this case (its family, dtype and shape: a
  // launcher may choose kernels by shape), e.g. "fusion::case7/v1".
  std::string launch_key(Variant v) const;

  suite::cuda::CapturedGraph m_graph;
  std::map<Variant, std::size_t> m_enqueued_nodes;
  std::uint64_t m_id = next_id();
  static std::uint64_t next_id();
};

// Bytes of device memory the case allocates (inputs, outputs, scratch, workspace).
std::size_t device_bytes(const FusionCase& c, const suite::cuda::DeviceInfo& info);

// device_families.cpp: bias_gelu, layernorm, softmax. gemm_bias_gelu.cpp: the GEMM case.
// Both throw SkipCase when the GPU cannot run the case and CudaError on CUDA failures.
std::unique_ptr<PreparedCase> prepare_elementwise(const FusionCase& c, DeviceContext& dev);
std::unique_ptr<PreparedCase> prepare_gemm_bias_gelu(const FusionCase& c, DeviceContext& dev);

}  // namespace gpubench::fusion
