#include "suites/allreduce/nccl_comm.hpp"

namespace gpubench::allreduce {

NcclComm& NcclComm::operator=(NcclComm&& other) noexcept {
  if (this != &other) {
    abort();
    m_comm = std::exchange(other.m_comm, nullptr);
  }
  return *this;
}

NcclComm::~NcclComm() {
  abort();
}

void NcclComm::destroy() noexcept {
  if (m_comm) (void)ncclCommDestroy(std::exchange(m_comm, nullptr));
}

void NcclComm::abort() noexcept {
  if (m_comm) (void)ncclCommAbort(std::exchange(m_comm, nullptr));
}

std::string nccl_version_text() {
  int code = 0;
  if (ncclGetVersion(&code) != ncclSuccess || code <= 0) return "NCCL unknown";
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? (code / 100) % 100 : (code / 100) % 10;
  const int patch = code % 100;
  return "NCCL " + std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(patch);
}

std::string nccl_error_text(ncclResult_t status, ncclComm_t comm) {
  std::string text = ncclGetErrorString(status);
  const char* last = ncclGetLastError(comm);
  if (last && *last) text += std::string(": ") + last;
  return text;
}

void throw_nccl_error(ncclResult_t status, ncclComm_t comm, const char* call, const char* file,
                      int line) {
  const std::string text = nccl_error_text(status, comm);
  throw suite::CudaError("NCCL", static_cast<int>(status), text, call, file, line, false);
}

}  // namespace gpubench::allreduce
