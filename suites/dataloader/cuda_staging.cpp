// Pinned staging buffers and double-buffered H2D copies (CUDA runtime only, no device code, so a
// .cpp linked to cudart). Keeps a minimal local RAII for the stream, events and buffers: the shared
// wrappers in suites/common/cuda/ were not yet a CMake target when this was written.
#include <cuda_runtime_api.h>

#include <array>
#include <cstring>

#include "suites/dataloader/device_staging.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw infrastructure(std::string(call) + " failed", cudaGetErrorString(status));
  }
}
#define GPUBENCH_DL_CUDA(call) check((call), #call)

class PinnedBuffer final : public HostBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) : m_size(bytes) {
    GPUBENCH_DL_CUDA(cudaHostAlloc(&m_data, bytes == 0 ? 1 : bytes, cudaHostAllocPortable));
    std::memset(m_data, 0, bytes);
  }
  ~PinnedBuffer() override { (void)cudaFreeHost(m_data); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* data() noexcept override { return m_data; }
  std::size_t size() const noexcept override { return m_size; }

 private:
  void* m_data = nullptr;
  std::size_t m_size = 0;
};

class CudaH2DSink final : public H2DSink {
 public:
  CudaH2DSink(std::size_t batch_size, std::size_t record_bytes) : m_record_bytes(record_bytes) {
    GPUBENCH_DL_CUDA(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
    for (auto& b : m_buffers) {
      GPUBENCH_DL_CUDA(cudaMalloc(&b.pixels, batch_size * record_bytes));
      GPUBENCH_DL_CUDA(cudaMalloc(&b.labels, batch_size * 4));
      GPUBENCH_DL_CUDA(cudaEventCreate(&b.start));
      GPUBENCH_DL_CUDA(cudaEventCreate(&b.stop));
    }
  }
  ~CudaH2DSink() override {
    (void)cudaStreamSynchronize(m_stream);
    for (auto& b : m_buffers) {
      (void)cudaFree(b.pixels);
      (void)cudaFree(b.labels);
      (void)cudaEventDestroy(b.start);
      (void)cudaEventDestroy(b.stop);
    }
    (void)cudaStreamDestroy(m_stream);
  }
  CudaH2DSink(const CudaH2DSink&) = delete;
  CudaH2DSink& operator=(const CudaH2DSink&) = delete;

  void begin(const Batch& batch) override {
    DeviceSlot& d = m_buffers[m_next++ % m_buffers.size()];
    // The device buffer is free once its previous copy is done (end() already waited for it).
    const std::size_t bytes = batch.count * m_record_bytes;
    GPUBENCH_DL_CUDA(cudaEventRecord(d.start, m_stream));
    GPUBENCH_DL_CUDA(
        cudaMemcpyAsync(d.pixels, batch.pixels, bytes, cudaMemcpyHostToDevice, m_stream));
    GPUBENCH_DL_CUDA(
        cudaMemcpyAsync(d.labels, batch.labels, batch.count * 4, cudaMemcpyHostToDevice, m_stream));
    GPUBENCH_DL_CUDA(cudaEventRecord(d.stop, m_stream));
    m_current = &d;
    m_bytes += static_cast<double>(bytes + batch.count * 4);
  }

  void end(const Batch& /*batch*/) override {
    if (!m_current) return;
    GPUBENCH_DL_CUDA(cudaEventSynchronize(m_current->stop));
    float ms = 0;
    GPUBENCH_DL_CUDA(cudaEventElapsedTime(&ms, m_current->start, m_current->stop));
    m_seconds += ms / 1e3;
    m_current = nullptr;
  }

  double copied_bytes() const override { return m_bytes; }
  double copy_seconds() const override { return m_seconds; }

 private:
  struct DeviceSlot {
    void* pixels = nullptr;
    void* labels = nullptr;
    cudaEvent_t start = nullptr;
    cudaEvent_t stop = nullptr;
  };
  std::size_t m_record_bytes;
  cudaStream_t m_stream = nullptr;
  std::array<DeviceSlot, 2> m_buffers{};
  DeviceSlot* m_current = nullptr;
  std::size_t m_next = 0;
  double m_bytes = 0;
  double m_seconds = 0;
};

}  // namespace

std::string cuda_unavailable_reason() {
  static const std::string reason = [] {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      return std::string("no CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(status) + ")";
    }
    if (count == 0) return std::string("no CUDA device (cudaGetDeviceCount returned 0)");
    return std::string();
  }();
  return reason;
}

std::unique_ptr<HostBuffer> allocate_pinned_buffer(std::size_t bytes) {
  const std::string why = cuda_unavailable_reason();
  if (!why.empty()) throw infrastructure("pinned memory needs a CUDA device", why);
  return std::make_unique<PinnedBuffer>(bytes);
}

std::unique_ptr<H2DSink> make_h2d_sink(std::size_t batch_size, std::size_t record_bytes) {
  const std::string why = cuda_unavailable_reason();
  if (!why.empty()) throw infrastructure("host-to-device copies need a CUDA device", why);
  return std::make_unique<CudaH2DSink>(batch_size, record_bytes);
}

}  // namespace gpubench::dataloader
