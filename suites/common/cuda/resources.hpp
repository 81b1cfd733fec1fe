// Move-only owners of CUDA resources. Every cudaMalloc/cudaFree, stream, event and cuBLAS handle in
// the suites goes through these; destructors never throw (a failed free is ignored: the context
// is being torn down or already broken, and the error was or will be reported by a checked call).
// All of them belong to the device that was current when they were created; callers keep that
// device current (cudaSetDevice) while using them.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "suites/common/cuda/check.hpp"

namespace gpubench::suite::cuda {

// Shared move-only plumbing: Handle is a raw CUDA handle type, Destroy a function object.
template <class Handle, class Destroy>
class UniqueHandle {
 public:
  UniqueHandle() = default;
  explicit UniqueHandle(Handle handle) : m_handle(handle) {}
  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  UniqueHandle(UniqueHandle&& other) noexcept : m_handle(std::exchange(other.m_handle, Handle{})) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) {
      reset();
      m_handle = std::exchange(other.m_handle, Handle{});
    }
    return *this;
  }
  ~UniqueHandle() { reset(); }

  Handle get() const noexcept { return m_handle; }
  explicit operator bool() const noexcept { return m_handle != Handle{}; }
  void reset() noexcept {
    if (m_handle != Handle{}) Destroy{}(m_handle);
    m_handle = Handle{};
  }

 private:
  Handle m_handle{};
};

struct StreamDestroy {
  void operator()(cudaStream_t s) const noexcept { (void)cudaStreamDestroy(s); }
};
struct EventDestroy {
  void operator()(cudaEvent_t e) const noexcept { (void)cudaEventDestroy(e); }
};
struct CublasDestroy {
  void operator()(cublasHandle_t h) const noexcept { (void)cublasDestroy(h); }
};
struct CublasLtDestroy {
  void operator()(cublasLtHandle_t h) const noexcept { (void)cublasLtDestroy(h); }
};

// A non-blocking stream (does not synchronise with the legacy default stream).
class Stream : public UniqueHandle<cudaStream_t, StreamDestroy> {
 public:
  using UniqueHandle::UniqueHandle;
  static Stream create();
  void synchronize() const;
};

// An event with timing enabled (for cudaEventElapsedTime).
class Event : public UniqueHandle<cudaEvent_t, EventDestroy> {
 public:
  using UniqueHandle::UniqueHandle;
  static Event create();
  void record(cudaStream_t stream) const;
  void synchronize() const;
  // Milliseconds from `start` to this event; both must have completed.
  float elapsed_ms_since(const Event& start) const;
};

// A cuBLAS handle bound to `stream`.
class CublasHandle : public UniqueHandle<cublasHandle_t, CublasDestroy> {
 public:
  using UniqueHandle::UniqueHandle;
  static CublasHandle create(cudaStream_t stream);
};

class CublasLtHandle : public UniqueHandle<cublasLtHandle_t, CublasLtDestroy> {
 public:
  using UniqueHandle::UniqueHandle;
  static CublasLtHandle create();
};

// Untyped device allocation; DeviceBuffer<T> is the typed view users hold.
class DeviceAllocation {
 public:
  DeviceAllocation() = default;
  explicit DeviceAllocation(std::size_t bytes);  // throws CudaError (out_of_memory() on OOM)
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;
  DeviceAllocation(DeviceAllocation&& other) noexcept
      : m_data(std::exchange(other.m_data, nullptr)), m_bytes(std::exchange(other.m_bytes, 0)) {}
  DeviceAllocation& operator=(DeviceAllocation&& other) noexcept;
  ~DeviceAllocation();

  void* data() const noexcept { return m_data; }
  std::size_t bytes() const noexcept { return m_bytes; }

 private:
  void* m_data = nullptr;
  std::size_t m_bytes = 0;
};

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : m_alloc(count * sizeof(T)), m_count(count) {}

  T* data() const noexcept { return static_cast<T*>(m_alloc.data()); }
  std::size_t size() const noexcept { return m_count; }
  std::size_t bytes() const noexcept { return m_alloc.bytes(); }

 private:
  DeviceAllocation m_alloc;
  std::size_t m_count = 0;
};

enum class HostMapping { unmapped, mapped };

// Page-locked host memory (cudaHostAlloc). Mapped: the device can read and write it directly;
// device_pointer() gives the address to pass to kernels.
class PinnedAllocation {
 public:
  PinnedAllocation() = default;
  PinnedAllocation(std::size_t bytes, HostMapping mapping);
  PinnedAllocation(const PinnedAllocation&) = delete;
  PinnedAllocation& operator=(const PinnedAllocation&) = delete;
  PinnedAllocation(PinnedAllocation&& other) noexcept
      : m_host(std::exchange(other.m_host, nullptr)),
        m_device(std::exchange(other.m_device, nullptr)),
        m_bytes(std::exchange(other.m_bytes, 0)) {}
  PinnedAllocation& operator=(PinnedAllocation&& other) noexcept;
  ~PinnedAllocation();

  void* host() const noexcept { return m_host; }
  void* device() const noexcept { return m_device; }  // nullptr unless mapped
  std::size_t bytes() const noexcept { return m_bytes; }

 private:
  void* m_host = nullptr;
  void* m_device = nullptr;
  std::size_t m_bytes = 0;
};

template <class T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(std::size_t count, HostMapping mapping)
      : m_alloc(count * sizeof(T), mapping), m_count(count) {}

  T* data() const noexcept { return static_cast<T*>(m_alloc.host()); }
  T* device_pointer() const noexcept { return static_cast<T*>(m_alloc.device()); }
  std::size_t size() const noexcept { return m_count; }

 private:
  PinnedAllocation m_alloc;
  std::size_t m_count = 0;
};

}  // namespace gpubench::suite::cuda
