// Pinned, NUMA-local staging buffers and double-buffered H2D copies with two copies in flight
// (CUDA runtime only, no device code, so a .cpp). Device buffers, stream and events are the
// shared RAII types of suites/common/cuda/; NumaPinnedBuffer wraps mmap + mbind +
// cudaHostRegister.
#include <cuda_runtime_api.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/dataloader/device_staging.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace gpubench::dataloader {
namespace {

namespace cuda = gpubench::suite::cuda;

int g_device = 0;

// The staging slot layout of Pipeline: pixels in a page-rounded region, then the labels.
std::size_t slot_bytes(std::size_t batch, std::size_t record_bytes) {
  return (batch * record_bytes + 4095) / 4096 * 4096 + batch * 4;
}

// The NUMA node of a CUDA device from sysfs; -1 when unknown (no NUMA, no sysfs entry).
int device_numa_node(int device) {
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess) return -1;
  const std::string path = "/sys/bus/pci/devices/" + to_lower(bus) + "/numa_node";
  try {
    const auto v = parse_int(trim(read_file(path)));
    return v && *v >= 0 ? static_cast<int>(*v) : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

// Page-locked host memory placed on one NUMA node: anonymous pages bound with mbind(MPOL_BIND),
// faulted in there, then registered with CUDA. Without a known node it is ordinary registered
// memory. Owns the mapping and the registration.
class NumaPinnedBuffer final : public HostBuffer {
 public:
  NumaPinnedBuffer(std::size_t bytes, int node) : m_size(bytes) {
    const long page = sysconf(_SC_PAGESIZE);
    m_mapped = (std::max<std::size_t>(bytes, 1) + static_cast<std::size_t>(page) - 1) /
               static_cast<std::size_t>(page) * static_cast<std::size_t>(page);
    void* p = mmap(nullptr, m_mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      throw infrastructure("cannot map " + std::to_string(m_mapped) + " bytes of staging memory",
                           std::strerror(errno));
    }
    m_data = p;
    if (node >= 0 && node < 1024) {
      std::array<unsigned long, 16> mask{};  // 1024 nodes
      mask[static_cast<std::size_t>(node) / 64] = 1ul << (static_cast<unsigned>(node) % 64);
      constexpr int k_mpol_bind = 2;
      constexpr unsigned k_mpol_mf_move = 1u << 1;
      m_bound = syscall(SYS_mbind, m_data, m_mapped, k_mpol_bind, mask.data(), mask.size() * 64,
                        k_mpol_mf_move) == 0;
    }
    std::memset(m_data, 0, m_mapped);  // fault every page in, on the bound node
    const cudaError_t rc = cudaHostRegister(m_data, m_mapped, cudaHostRegisterDefault);
    if (rc != cudaSuccess) {
      munmap(m_data, m_mapped);
      GPUBENCH_CUDA_CHECK(rc);  // throws, naming the error
    }
  }
  ~NumaPinnedBuffer() override {
    (void)cudaHostUnregister(m_data);
    munmap(m_data, m_mapped);
  }
  NumaPinnedBuffer(const NumaPinnedBuffer&) = delete;
  NumaPinnedBuffer& operator=(const NumaPinnedBuffer&) = delete;

  void* data() noexcept override { return m_data; }
  std::size_t size() const noexcept override { return m_size; }
  bool bound() const noexcept { return m_bound; }

 private:
  void* m_data = nullptr;
  std::size_t m_size = 0;
  std::size_t m_mapped = 0;
  bool m_bound = false;
};

class CudaH2DSink final : public H2DSink {
 public:
  CudaH2DSink(std::size_t batch_size, std::size_t record_bytes)
      : m_record_bytes(record_bytes), m_stream(cuda::Stream::create()) {
    for (auto& slot : m_slots) {
      slot.buffer = cuda::DeviceBuffer<unsigned char>(slot_bytes(batch_size, record_bytes));
      slot.start = cuda::Event::create();
      slot.stop = cuda::Event::create();
    }
  }
  // Copies still in flight read the staging buffers: finish them before anything is freed.
  ~CudaH2DSink() override { (void)cudaStreamSynchronize(m_stream.get()); }
  CudaH2DSink(const CudaH2DSink&) = delete;
  CudaH2DSink& operator=(const CudaH2DSink&) = delete;

  void begin(const Batch& batch) override {
    // Slot k % 2 was last used by batch k - 2, which the pipeline finished before handing out
    // batch k - 1's slot again: no wait here.
    DeviceSlot& d = m_slots[batch.index % m_slots.size()];
    d.batch = batch.index;
    const auto* first = reinterpret_cast<const unsigned char*>(batch.pixels);
    const auto* last = reinterpret_cast<const unsigned char*>(batch.labels + batch.count);
    const auto* labels = reinterpret_cast<const unsigned char*>(batch.labels);
    d.start.record(m_stream.get());
    if (labels >= first && static_cast<std::size_t>(last - first) <= d.buffer.bytes()) {
      // Pixels and labels share the staging slot: one transfer (the page padding between them
      // is copied too and counted, since the copy engine moves it).
      const std::size_t span = static_cast<std::size_t>(last - first);
      GPUBENCH_CUDA_CHECK(
          cudaMemcpyAsync(d.buffer.data(), first, span, cudaMemcpyHostToDevice, m_stream.get()));
      m_bytes += static_cast<double>(span);
      m_transfers += 1;
    } else {
      const std::size_t pixels = batch.count * m_record_bytes;
      GPUBENCH_CUDA_CHECK(
          cudaMemcpyAsync(d.buffer.data(), first, pixels, cudaMemcpyHostToDevice, m_stream.get()));
      GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(d.buffer.data() + d.buffer.bytes() - batch.count * 4,
                                          labels, batch.count * 4, cudaMemcpyHostToDevice,
                                          m_stream.get()));
      m_bytes += static_cast<double>(pixels + batch.count * 4);
      m_transfers += 2;
    }
    d.stop.record(m_stream.get());
    m_batches += 1;
  }

  // The copy stays in flight; the pipeline holds the staging slot until finish().
  void end(const Batch& /*batch*/) override {}
  std::size_t held() const override { return 1; }

  void finish(const Batch& batch) override {
    DeviceSlot& d = m_slots[batch.index % m_slots.size()];
    if (d.batch != batch.index) return;  // never began (an error path)
    d.stop.synchronize();
    m_seconds += d.stop.elapsed_ms_since(d.start) / 1e3;
    d.batch = ~std::uint64_t{0};
  }

  double copied_bytes() const override { return m_bytes; }
  double copy_seconds() const override { return m_seconds; }
  double transfers_per_batch() const override {
    return m_batches > 0 ? m_transfers / m_batches : 0;
  }
  void* copy_done_event(const Batch& batch) const override {
    return m_slots[batch.index % m_slots.size()].stop.get();
  }

 private:
  struct DeviceSlot {
    cuda::DeviceBuffer<unsigned char> buffer;
    cuda::Event start;
    cuda::Event stop;
    std::uint64_t batch = ~std::uint64_t{0};
  };
  std::size_t m_record_bytes;
  cuda::Stream m_stream;
  std::array<DeviceSlot, 2> m_slots{};
  double m_bytes = 0;
  double m_seconds = 0;
  double m_transfers = 0;
  double m_batches = 0;
};

void use_staging_device() {
  GPUBENCH_CUDA_CHECK(cudaSetDevice(g_device));
}

}  // namespace

std::string cuda_unavailable_reason() {
  static const std::string reason = cuda::probe_devices().reason;
  return reason;
}

int cuda_device_count() {
  return cuda::probe_devices().count;
}

void set_staging_device(int device) {
  g_device = device;
}

int staging_device() {
  return g_device;
}

std::string staging_devices_json() {
  if (!cuda_unavailable_reason().empty()) return "[]";
  try {
    return cuda::devices_json({cuda::query_device(g_device)});
  } catch (const std::exception&) {
    return "[]";
  }
}

std::unique_ptr<HostBuffer> allocate_pinned_buffer(std::size_t bytes) {
  const std::string why = cuda_unavailable_reason();
  if (!why.empty()) throw infrastructure("pinned memory needs a CUDA device", why);
  use_staging_device();
  return std::make_unique<NumaPinnedBuffer>(bytes, device_numa_node(g_device));
}

std::unique_ptr<H2DSink> make_h2d_sink(std::size_t batch_size, std::size_t record_bytes) {
  const std::string why = cuda_unavailable_reason();
  if (!why.empty()) throw infrastructure("host-to-device copies need a CUDA device", why);
  use_staging_device();
  return std::make_unique<CudaH2DSink>(batch_size, record_bytes);
}

}  // namespace gpubench::dataloader
