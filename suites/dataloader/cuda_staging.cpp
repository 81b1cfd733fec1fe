// Pinned staging buffers and double-buffered H2D copies (CUDA runtime only, no device code, so a
// .cpp). Buffers, stream and events are the shared RAII types of suites/common/cuda/.
#include <cuda_runtime_api.h>

#include <array>
#include <cstring>
#include <memory>

#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/dataloader/device_staging.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

namespace cuda = gpubench::suite::cuda;

class PinnedBuffer final : public HostBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes)
      : m_buffer(bytes == 0 ? 1 : bytes, cuda::HostMapping::unmapped), m_size(bytes) {
    std::memset(m_buffer.data(), 0, bytes);
  }
  void* data() noexcept override { return m_buffer.data(); }
  std::size_t size() const noexcept override { return m_size; }

 private:
  cuda::PinnedBuffer<unsigned char> m_buffer;
  std::size_t m_size = 0;
};

class CudaH2DSink final : public H2DSink {
 public:
  CudaH2DSink(std::size_t batch_size, std::size_t record_bytes)
      : m_record_bytes(record_bytes), m_stream(cuda::Stream::create()) {
    for (auto& slot : m_slots) {
      slot.pixels = cuda::DeviceBuffer<unsigned char>(batch_size * record_bytes);
      slot.labels = cuda::DeviceBuffer<unsigned char>(batch_size * 4);
      slot.start = cuda::Event::create();
      slot.stop = cuda::Event::create();
    }
  }
  // Copies still in flight read the staging buffers: finish them before anything is freed.
  ~CudaH2DSink() override { (void)cudaStreamSynchronize(m_stream.get()); }
  CudaH2DSink(const CudaH2DSink&) = delete;
  CudaH2DSink& operator=(const CudaH2DSink&) = delete;

  void begin(const Batch& batch) override {
    // The slot is free: end() waited for its previous copy.
    DeviceSlot& d = m_slots[m_next++ % m_slots.size()];
    const std::size_t bytes = batch.count * m_record_bytes;
    d.start.record(m_stream.get());
    GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(d.pixels.data(), batch.pixels, bytes,
                                        cudaMemcpyHostToDevice, m_stream.get()));
    GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(d.labels.data(), batch.labels, batch.count * 4,
                                        cudaMemcpyHostToDevice, m_stream.get()));
    d.stop.record(m_stream.get());
    m_current = &d;
    m_bytes += static_cast<double>(bytes + batch.count * 4);
  }

  void end(const Batch& /*batch*/) override {
    if (!m_current) return;
    m_current->stop.synchronize();
    m_seconds += m_current->stop.elapsed_ms_since(m_current->start) / 1e3;
    m_current = nullptr;
  }

  double copied_bytes() const override { return m_bytes; }
  double copy_seconds() const override { return m_seconds; }

 private:
  struct DeviceSlot {
    cuda::DeviceBuffer<unsigned char> pixels;
    cuda::DeviceBuffer<unsigned char> labels;
    cuda::Event start;
    cuda::Event stop;
  };
  std::size_t m_record_bytes;
  cuda::Stream m_stream;
  std::array<DeviceSlot, 2> m_slots{};
  DeviceSlot* m_current = nullptr;
  std::size_t m_next = 0;
  double m_bytes = 0;
  double m_seconds = 0;
};

}  // namespace

std::string cuda_unavailable_reason() {
  static const std::string reason = cuda::probe_devices().reason;
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
