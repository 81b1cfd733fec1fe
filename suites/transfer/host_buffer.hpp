// The transfer suite's host buffers: pageable, pinned, write-combined or mapped memory, placed on a
// NUMA node and verified there. Move-only; frees (and unregisters) in its destructor.
//
//   pageable        mmap'd anonymous memory, bound with mbind, touched (the driver stages copies)
//   pinned          the same, then page-locked with cudaHostRegister
//   mapped          the same, registered cudaHostRegisterMapped: kernels read/write it directly
//   write_combined  cudaHostAlloc(cudaHostAllocWriteCombined) under a thread memory policy for the
//                   node (the driver allocates it, so mbind cannot reach it beforehand)
//
// Failures: a host allocation that fails throws SkipCase ("host allocation of N bytes failed");
// CUDA failures throw CudaError (out of memory -> skipped by run_guarded). A remote placement
// that cannot be made or verified throws SkipCase; a local one that cannot is measured anyway and
// the note says so.
#pragma once

#include <cstddef>
#include <string>

#include "suites/transfer/numa.hpp"
#include "suites/transfer/transfer_cases.hpp"

namespace gpubench::transfer {

class HostBuffer {
 public:
  HostBuffer(Memory kind, std::size_t bytes, const Placement& placement, Numa want);
  ~HostBuffer();
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  void* host() const noexcept { return m_host; }
  // The address a kernel uses (mapped only; nullptr otherwise).
  void* device() const noexcept { return m_device; }
  std::size_t bytes() const noexcept { return m_bytes; }
  // Where the buffer really is, e.g. "host buffer on node 0 (local to the GPU), verified".
  const std::string& note() const noexcept { return m_note; }

 private:
  void allocate(const Placement& placement, Numa want);
  void release() noexcept;

  Memory m_kind;
  std::size_t m_bytes = 0;
  std::size_t m_mapped_bytes = 0;  // mmap length (page-rounded); 0 for cudaHostAlloc memory
  void* m_host = nullptr;
  void* m_device = nullptr;
  bool m_registered = false;
  std::string m_note;
};

}  // namespace gpubench::transfer
