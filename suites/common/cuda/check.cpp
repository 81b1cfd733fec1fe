#include "suites/common/cuda/check.hpp"

#include <cstring>

namespace gpubench::suite {

namespace {
std::string describe(const char* library, int code, const std::string& text, const char* call,
                     const char* file, int line) {
  // Only the file's base name: messages end up in stored results and must not carry build paths.
  const char* slash = std::strrchr(file, '/');
  const char* base = slash ? slash + 1 : file;
  return std::string(library) + " error " + std::to_string(code) + " (" + text + ") in " + call +
         " at " + base + ":" + std::to_string(line);
}
}  // namespace

CudaError::CudaError(const char* library, int code, const std::string& text, const char* call,
                     const char* file, int line, bool out_of_memory)
    : std::runtime_error(describe(library, code, text, call, file, line)),
      m_code(code),
      m_out_of_memory(out_of_memory) {}

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  // Clear the sticky "last error" for non-sticky errors so the next call starts clean.
  (void)cudaGetLastError();
  CudaError error("CUDA", static_cast<int>(status), cudaGetErrorString(status), call, file, line,
                  status == cudaErrorMemoryAllocation);
  if (status == cudaErrorNoKernelImageForDevice || status == cudaErrorUnsupportedPtxVersion) {
    error.set_unsupported_architecture();
  }
  throw error;
}

const char* cublas_status_text(cublasStatus_t status) {
  return cublasGetStatusString(status);
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw CudaError("cuBLAS", static_cast<int>(status), cublas_status_text(status), call, file, line,
                  status == CUBLAS_STATUS_ALLOC_FAILED);
}

}  // namespace gpubench::suite
