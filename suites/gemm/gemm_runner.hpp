// One prepared GEMM on one GPU: operands filled with seeded random-normal values, the cuBLASLt
// algorithm chosen by timing the heuristic's candidates (or cublasGemmEx with its default), ready
// to be queued any number of times and validated against the CPU reference.
// Needs the CUDA toolkit; the case list, names and sizes are in gemm_cases.hpp (CUDA-free).
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/timing.hpp"
#include "suites/common/validation.hpp"
#include "suites/gemm/gemm_cases.hpp"

namespace gpubench::gemm {

// Per-device state shared by every case on that device. The device must be current.
struct DeviceContext {
  explicit DeviceContext(int device);
  suite::cuda::DeviceInfo info;
  suite::cuda::Stream stream;
  suite::cuda::CublasHandle cublas;
  suite::cuda::CublasLtHandle cublaslt;
  suite::cuda::BatchTimer timer;
};

// What the algorithm search found (cuBLASLt) or "default" (cublasGemmEx).
struct AlgorithmChoice {
  // e.g. "algo=23 tile=20 stages=15 splitk=1 swizzle=0 rank=0 tied=2 timed=8/8"
  std::string description;
  int algo_id = -1;             // CUBLASLT_ALGO_CONFIG_ID, -1 for cublasGemmEx's default
  double median_call_ms = 0.0;  // median time per call of the chosen algorithm during the search
};

class PreparedGemm {
 public:
  // Throws SkipCase when this GPU cannot run the case (architecture, free memory, no algorithm),
  // CudaError on CUDA/cuBLAS failures.
  PreparedGemm(const GemmCase& c, DeviceContext& dev);
  ~PreparedGemm();
  PreparedGemm(const PreparedGemm&) = delete;
  PreparedGemm& operator=(const PreparedGemm&) = delete;

  // Queues `calls` GEMMs on the device's stream (no synchronisation).
  void enqueue(int calls);
  // Checks the current output on a sampled subset against the CPU reference. Synchronises.
  suite::ValidationReport validate();

  // Kernels one enqueue(1) really puts on the stream (a cuBLASLt algorithm may add a split-K
  // reduction kernel), counted once by capturing one call as a graph after the warm-up calls; 1
  // for cublasGemmEx and when the call cannot be captured. Batch sizing counts these.
  int kernels_per_call();

  const AlgorithmChoice& algorithm() const noexcept { return m_choice; }
  const GemmCase& gemm_case() const noexcept { return m_case; }
  // The output matrix C in device memory (m x n, column-major): tests corrupt it to check that
  // validation fails.
  void* output_device_pointer() const noexcept { return m_c.data(); }
  std::size_t output_bytes() const noexcept { return m_c.bytes(); }

 private:
  struct Lt;  // cuBLASLt descriptors
  void set_up_cublaslt();
  void choose_algorithm();
  // The run's scratch file holds a choice for this case (algorithm_store.hpp: an earlier
  // execution's, or a stored run's seeded by the harness) and it passes cublasLtMatmulAlgoCheck
  // and a warm-up call here: use it, the label saying where it came from. False: search.
  bool reuse_stored_algorithm();

  GemmCase m_case;
  DeviceContext& m_dev;
  suite::cuda::DeviceAllocation m_a;
  suite::cuda::DeviceAllocation m_b;
  suite::cuda::DeviceAllocation m_c;
  suite::cuda::DeviceAllocation m_workspace;
  suite::cuda::DeviceBuffer<float> m_scale_one;  // FP8 A/B scales (1.0)
  std::unique_ptr<Lt> m_lt;
  AlgorithmChoice m_choice;
  int m_kernels_per_call = 0;  // 0 until counted
  // Host scalars for alpha = 1, beta = 0 in each scale type.
  double m_alpha_f64 = 1.0, m_beta_f64 = 0.0;
  float m_alpha_f32 = 1.0f, m_beta_f32 = 0.0f;
  int m_alpha_i32 = 1, m_beta_i32 = 0;
};

// Free-memory check before allocating: bytes the case needs beyond its operands (workspace, L2
// flush buffer, a margin for cuBLAS's own allocations).
std::size_t required_device_bytes(const GemmCase& c, const suite::cuda::DeviceInfo& info);

}  // namespace gpubench::gemm
