#include "suites/common/cuda/resources.hpp"

namespace gpubench::suite::cuda {

Stream Stream::create() {
  cudaStream_t s = nullptr;
  GPUBENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Stream out(s);
  return out;
}

void Stream::synchronize() const {
  GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(get()));
}

Event Event::create() {
  cudaEvent_t e = nullptr;
  GPUBENCH_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDefault));
  Event out(e);
  return out;
}

void Event::record(cudaStream_t stream) const {
  GPUBENCH_CUDA_CHECK(cudaEventRecord(get(), stream));
}

void Event::synchronize() const {
  GPUBENCH_CUDA_CHECK(cudaEventSynchronize(get()));
}

float Event::elapsed_ms_since(const Event& start) const {
  float ms = 0.0f;
  GPUBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), get()));
  return ms;
}

CublasHandle CublasHandle::create(cudaStream_t stream) {
  cublasHandle_t h = nullptr;
  GPUBENCH_CUBLAS_CHECK(cublasCreate(&h));
  CublasHandle out(h);
  GPUBENCH_CUBLAS_CHECK(cublasSetStream(h, stream));
  return out;
}

CublasLtHandle CublasLtHandle::create() {
  cublasLtHandle_t h = nullptr;
  GPUBENCH_CUBLAS_CHECK(cublasLtCreate(&h));
  CublasLtHandle out(h);
  return out;
}

DeviceAllocation::DeviceAllocation(std::size_t bytes) : m_bytes(bytes) {
  if (bytes > 0) GPUBENCH_CUDA_CHECK(cudaMalloc(&m_data, bytes));
}

DeviceAllocation& DeviceAllocation::operator=(DeviceAllocation&& other) noexcept {
  if (this != &other) {
    if (m_data) (void)cudaFree(m_data);
    m_data = std::exchange(other.m_data, nullptr);
    m_bytes = std::exchange(other.m_bytes, 0);
  }
  return *this;
}

DeviceAllocation::~DeviceAllocation() {
  if (m_data) (void)cudaFree(m_data);
}

PinnedAllocation::PinnedAllocation(std::size_t bytes, HostMapping mapping) : m_bytes(bytes) {
  const unsigned flags =
      mapping == HostMapping::mapped ? cudaHostAllocMapped : cudaHostAllocDefault;
  GPUBENCH_CUDA_CHECK(cudaHostAlloc(&m_host, bytes, flags));
  if (mapping == HostMapping::mapped) {
    try {
      GPUBENCH_CUDA_CHECK(cudaHostGetDevicePointer(&m_device, m_host, 0));
    } catch (...) {
      (void)cudaFreeHost(m_host);
      m_host = nullptr;
      throw;
    }
  }
}

PinnedAllocation& PinnedAllocation::operator=(PinnedAllocation&& other) noexcept {
  if (this != &other) {
    if (m_host) (void)cudaFreeHost(m_host);
    m_host = std::exchange(other.m_host, nullptr);
    m_device = std::exchange(other.m_device, nullptr);
    m_bytes = std::exchange(other.m_bytes, 0);
  }
  return *this;
}

PinnedAllocation::~PinnedAllocation() {
  if (m_host) (void)cudaFreeHost(m_host);
}

}  // namespace gpubench::suite::cuda
