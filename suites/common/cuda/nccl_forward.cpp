// The NCCL functions the allreduce suite calls, defined here instead of linked from libnccl (see
// libraries.hpp). Each is extern "C" with nccl.h's signature (nccl.h is included, so a drifting
// signature is a compile error). A missing library or symbol returns ncclSystemError, and
// ncclGetErrorString/ncclGetLastError then say which library is missing and where it was looked
// for. Built only when nccl.h was found (cmake/Collectives.cmake).
//
// To use another NCCL function: add one GPUBENCH_NCCL line with the header's declaration.
#include <nccl.h>

#include "suites/common/cuda/libraries.hpp"

namespace {

using gpubench::suite::cuda::Library;
using gpubench::suite::cuda::library_status;
using gpubench::suite::cuda::library_symbol;

// Text for a call that could not reach NCCL.
const char* missing_text() {
  const auto& lib = library_status(Library::nccl);
  if (!lib.loaded) return lib.reason.c_str();
  return "a function gpubench needs is missing from the loaded NCCL (too old?)";
}

}  // namespace

#define GPUBENCH_NCCL(NAME, PARAMS, ARGS)                                            \
  extern "C" ncclResult_t NAME PARAMS {                                              \
    using Fn = ncclResult_t(*) PARAMS;                                               \
    static const Fn fn = reinterpret_cast<Fn>(library_symbol(Library::nccl, #NAME)); \
    if (fn == nullptr) return ncclSystemError;                                       \
    return fn ARGS;                                                                  \
  }

GPUBENCH_NCCL(ncclGetVersion, (int* version), (version))
GPUBENCH_NCCL(ncclGetUniqueId, (ncclUniqueId * uniqueId), (uniqueId))
GPUBENCH_NCCL(ncclCommInitRank, (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank),
              (comm, nranks, commId, rank))
GPUBENCH_NCCL(ncclCommInitAll, (ncclComm_t * comm, int ndev, const int* devlist),
              (comm, ndev, devlist))
GPUBENCH_NCCL(ncclCommInitRankConfig,
              (ncclComm_t * comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t* config),
              (comm, nranks, commId, rank, config))
GPUBENCH_NCCL(ncclCommFinalize, (ncclComm_t comm), (comm))
GPUBENCH_NCCL(ncclCommGetAsyncError, (ncclComm_t comm, ncclResult_t* asyncError),
              (comm, asyncError))
GPUBENCH_NCCL(ncclCommDestroy, (ncclComm_t comm), (comm))
GPUBENCH_NCCL(ncclCommAbort, (ncclComm_t comm), (comm))
GPUBENCH_NCCL(ncclGroupStart, (), ())
GPUBENCH_NCCL(ncclGroupEnd, (), ())
GPUBENCH_NCCL(ncclAllReduce,
              (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream),
              (sendbuff, recvbuff, count, datatype, op, comm, stream))
GPUBENCH_NCCL(ncclAllGather,
              (const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,
               ncclComm_t comm, cudaStream_t stream),
              (sendbuff, recvbuff, sendcount, datatype, comm, stream))
GPUBENCH_NCCL(ncclReduceScatter,
              (const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t datatype,
               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream),
              (sendbuff, recvbuff, recvcount, datatype, op, comm, stream))
GPUBENCH_NCCL(ncclBroadcast,
              (const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype,
               int root, ncclComm_t comm, cudaStream_t stream),
              (sendbuff, recvbuff, count, datatype, root, comm, stream))

extern "C" const char* ncclGetErrorString(ncclResult_t result) {
  using Fn = const char* (*)(ncclResult_t);
  static const Fn fn = reinterpret_cast<Fn>(library_symbol(Library::nccl, "ncclGetErrorString"));
  return fn != nullptr ? fn(result) : missing_text();
}

extern "C" const char* ncclGetLastError(ncclComm_t comm) {
  using Fn = const char* (*)(ncclComm_t);
  static const Fn fn = reinterpret_cast<Fn>(library_symbol(Library::nccl, "ncclGetLastError"));
  return fn != nullptr ? fn(comm) : missing_text();
}
