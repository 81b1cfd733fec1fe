#include "suites/transfer/host_buffer.hpp"

#include <cuda_runtime_api.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>

#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/guard.hpp"

namespace gpubench::transfer {

namespace {
std::size_t page_bytes() {
  return static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

std::size_t page_round(std::size_t bytes) {
  const std::size_t page = page_bytes();
  return (bytes + page - 1) / page * page;
}

// Pages of driver-allocated (write-combined) memory checked for their node. The thread's memory
// policy reaches only the pages the driver allocates for this thread without a node of its own
// choosing, so unlike an mbind'ed range (MPOL_MF_STRICT: every page or an error) the buffer may be
// partly elsewhere: check more than verify_placement's first, middle and last page.
constexpr std::size_t k_driver_pages_checked = 64;

std::string verify_driver_pages(const void* addr, std::size_t bytes, int node) {
  const std::size_t page = page_bytes();
  const std::size_t pages = (bytes + page - 1) / page;
  const auto* base = static_cast<const unsigned char*>(addr);
  for (const std::uint64_t index : spread_pages(pages, k_driver_pages_checked)) {
    const std::size_t offset = index * page;
    const std::optional<int> found = node_of_page(base + offset);
    if (!found) {
      return "move_pages could not say where the page at offset " + std::to_string(offset) +
             " is (" + std::strerror(errno) + ")";
    }
    if (*found != node) {
      return "page at offset " + std::to_string(offset) + " is on node " + std::to_string(*found) +
             ", not " + std::to_string(node) + " (" + std::to_string(pages) + " pages)";
    }
  }
  return {};
}
}  // namespace

HostBuffer::HostBuffer(Memory kind, std::size_t bytes, const Placement& placement, Numa want)
    : m_kind(kind), m_bytes(bytes) {
  try {
    allocate(placement, want);
  } catch (...) {
    release();
    throw;
  }
}

void HostBuffer::allocate(const Placement& placement, Numa want) {
  const Memory kind = m_kind;
  const std::size_t bytes = m_bytes;
  const std::optional<int> node = placement.bind_node;
  std::string placement_problem;
  if (kind == Memory::write_combined) {
    std::optional<ScopedMemPolicy> policy;
    if (node) {
      policy.emplace(*node);
      if (!policy->ok()) placement_problem = policy->error();
    }
    GPUBENCH_CUDA_CHECK(cudaHostAlloc(&m_host, bytes, cudaHostAllocWriteCombined));
    std::memset(m_host, 0, bytes);
  } else {
    m_mapped_bytes = page_round(bytes);
    void* p =
        mmap(nullptr, m_mapped_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      m_mapped_bytes = 0;
      throw suite::SkipCase("host allocation of " + std::to_string(bytes) + " bytes failed (" +
                            std::strerror(errno) + ")");
    }
    m_host = p;
    if (node) placement_problem = bind_range(m_host, m_mapped_bytes, *node);
    std::memset(m_host, 0, m_mapped_bytes);  // fault every page in, on the bound node
    if (kind == Memory::pinned || kind == Memory::mapped) {
      const unsigned flags =
          kind == Memory::mapped ? cudaHostRegisterMapped : cudaHostRegisterDefault;
      GPUBENCH_CUDA_CHECK(cudaHostRegister(m_host, m_mapped_bytes, flags));
      m_registered = true;
      if (kind == Memory::mapped) {
        GPUBENCH_CUDA_CHECK(cudaHostGetDevicePointer(&m_device, m_host, 0));
      }
    }
  }
  if (node && placement_problem.empty()) {
    placement_problem = kind == Memory::write_combined ? verify_driver_pages(m_host, bytes, *node)
                                                       : verify_placement(m_host, bytes, *node);
  }
  if (!placement_problem.empty()) {
    if (want == Numa::remote) {
      throw suite::SkipCase("cannot place the host buffer on remote node " + std::to_string(*node) +
                            ": " + placement_problem);
    }
    m_note = "host buffer meant for node " + std::to_string(*node) + " but not placed there (" +
             placement_problem + ")";
  } else {
    m_note = placement.label + (node ? ", verified" : "");
  }
}

HostBuffer::~HostBuffer() {
  release();
}

void HostBuffer::release() noexcept {
  if (!m_host) return;
  if (m_registered) (void)cudaHostUnregister(m_host);
  if (m_kind == Memory::write_combined) {
    (void)cudaFreeHost(m_host);
  } else if (m_mapped_bytes > 0) {
    (void)munmap(m_host, m_mapped_bytes);
  }
  m_host = nullptr;
  m_device = nullptr;
  m_registered = false;
}

}  // namespace gpubench::transfer
