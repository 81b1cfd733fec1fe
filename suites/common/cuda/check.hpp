// One checking macro per CUDA library: a failed call throws gpubench::suite::CudaError carrying the
// file, line, the call's text and the library's own message. Suites turn it into a skip (out of
// memory) or a failure (anything else) with run_guarded() (guard.hpp); it never reaches main().
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace gpubench::suite {

class CudaError : public std::runtime_error {
 public:
  // library: "CUDA", "cuBLAS"; code: the numeric status; text: the library's message for it.
  CudaError(const char* library, int code, const std::string& text, const char* call,
            const char* file, int line, bool out_of_memory);

  int code() const noexcept { return m_code; }
  // True for cudaErrorMemoryAllocation and CUBLAS_STATUS_ALLOC_FAILED: the case is too big for the
  // device and is skipped, not failed.
  bool out_of_memory() const noexcept { return m_out_of_memory; }
  // True for cudaErrorNoKernelImageForDevice / cudaErrorUnsupportedPtxVersion: this build has no
  // code for the GPU's architecture, so the case is skipped with that cause, not failed.
  bool unsupported_architecture() const noexcept { return m_unsupported_architecture; }
  void set_unsupported_architecture() noexcept { m_unsupported_architecture = true; }

 private:
  int m_code;
  bool m_out_of_memory;
  bool m_unsupported_architecture = false;
};

// Throw helpers used by the macros (not inline so the macro expansion stays small).
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                   int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file,
                                     int line);

// cuBLAS has no cublasGetStatusString before 11.4; we always have it (CUDA 12+), but keep one
// place.
const char* cublas_status_text(cublasStatus_t status);

}  // namespace gpubench::suite

#define GPUBENCH_CUDA_CHECK(call)                                                       \
  do {                                                                                  \
    const cudaError_t gpubench_status_ = (call);                                        \
    if (gpubench_status_ != cudaSuccess)                                                \
      ::gpubench::suite::throw_cuda_error(gpubench_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define GPUBENCH_CUBLAS_CHECK(call)                                                       \
  do {                                                                                    \
    const cublasStatus_t gpubench_status_ = (call);                                       \
    if (gpubench_status_ != CUBLAS_STATUS_SUCCESS)                                        \
      ::gpubench::suite::throw_cublas_error(gpubench_status_, #call, __FILE__, __LINE__); \
  } while (0)
