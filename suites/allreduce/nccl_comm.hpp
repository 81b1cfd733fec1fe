// NCCL communicators as move-only owners, and one checking macro that throws with NCCL's own words:
// ncclGetErrorString(status) plus ncclGetLastError() (e.g. "ncclSystemError: ... connect()
// failed"), so a skip or failure says what NCCL said. Only built when NCCL was found
// (GPUBENCH_HAVE_NCCL).
#pragma once

#include <nccl.h>

#include <string>
#include <utility>

#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/resources.hpp"

namespace gpubench::allreduce {

// Owns one communicator. The orderly end (ncclCommFinalize on every communicator of a clique, their
// state polled against a deadline, then destroy(): ncclCommDestroy) is release_clique in
// nccl_clique.cpp, since finalizing waits for the peers. After an error the ranks first agree
// (case_runner.hpp), then abort() (ncclCommAbort) every communicator, since outstanding work may
// never end; the destructor aborts a communicator nobody destroyed (it runs on error paths, where
// waiting could hang).
class NcclComm {
 public:
  NcclComm() = default;
  explicit NcclComm(ncclComm_t comm) : m_comm(comm) {}
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;
  NcclComm(NcclComm&& other) noexcept : m_comm(std::exchange(other.m_comm, nullptr)) {}
  NcclComm& operator=(NcclComm&& other) noexcept;
  ~NcclComm();

  ncclComm_t get() const noexcept { return m_comm; }
  void abort() noexcept;
  // ncclCommDestroy (after a successful ncclCommFinalize and wait).
  void destroy() noexcept;

 private:
  ncclComm_t m_comm = nullptr;
};

// "ncclRemoteError: <ncclGetLastError text>" for a failed status.
std::string nccl_error_text(ncclResult_t status, ncclComm_t comm);

// "NCCL 2.28.9" from ncclGetVersion, or "NCCL unknown".
std::string nccl_version_text();

// Throws suite::CudaError("NCCL", status, "<error string>: <last error>", ...).
[[noreturn]] void throw_nccl_error(ncclResult_t status, ncclComm_t comm, const char* call,
                                   const char* file, int line);

}  // namespace gpubench::allreduce

#define GPUBENCH_NCCL_CHECK(call, comm)                                                       \
  do {                                                                                        \
    const ncclResult_t gpubench_nccl_status_ = (call);                                        \
    if (gpubench_nccl_status_ != ncclSuccess)                                                 \
      ::gpubench::allreduce::throw_nccl_error(gpubench_nccl_status_, (comm), #call, __FILE__, \
                                              __LINE__);                                      \
  } while (0)
