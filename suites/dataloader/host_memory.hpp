// Host staging buffers for batches: page-aligned pageable memory, or pinned (cudaHostAlloc) when
// the CUDA part is built and a device is present (implemented in cuda_staging.cu).
#pragma once

#include <cstddef>
#include <memory>

namespace gpubench::dataloader {

enum class HostMemory { page_aligned, pinned };
const char* to_string(HostMemory memory);

class HostBuffer {
 public:
  virtual ~HostBuffer() = default;
  virtual void* data() noexcept = 0;
  virtual std::size_t size() const noexcept = 0;
};

// Allocates and touches every page (so page faults are not timed later). Pinned throws
// Error(infrastructure) without CUDA or a device.
std::unique_ptr<HostBuffer> allocate_host_buffer(std::size_t bytes, HostMemory memory);
// Pinned allocation; defined in cuda_staging.cu, or a stub that throws when CUDA is not built.
std::unique_ptr<HostBuffer> allocate_pinned_buffer(std::size_t bytes);

}  // namespace gpubench::dataloader
