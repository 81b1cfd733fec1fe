// The GPUs one process drives for one rank count, on non-blocking NCCL communicators
// (ncclConfig_t.blocking = 0, ncclCommInitRankConfig), and every wait on them bounded: calls that
// answer ncclInProgress and streams still running are polled (ncclCommGetAsyncError,
// cudaStreamQuery) against a deadline, and the communicators are aborted (ncclCommAbort) when the
// deadline passes or NCCL reports an asynchronous error, as nccl-tests' testStreamSynchronize does.
// Nothing here blocks in cudaStreamSynchronize or a blocking NCCL call, so a dead peer or link
// costs at most the deadline, never the job. Only built with NCCL.
#pragma once

#include <nccl.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "suites/allreduce/case_outcome.hpp"
#include "suites/allreduce/collectives.hpp"
#include "suites/allreduce/group_guard.hpp"
#include "suites/allreduce/nccl_comm.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/cuda/resources.hpp"

namespace gpubench::allreduce {

// ncclGroupStart/ncclGroupEnd, always paired (group_guard.hpp).
using NcclGroup = BasicGroupGuard<ncclResult_t, ncclResult_t (*)(), ncclResult_t (*)()>;

// One GPU taking part: its communicator, stream, events and buffers (all of its device).
struct Member {
  int device = 0;
  int rank = 0;        // rank in the communicator (alone: also its device index)
  int world_rank = 0;  // who it is for per-rank times (alone: its device index)
  suite::cuda::Stream stream;
  suite::cuda::Event start;
  suite::cuda::Event stop;
  suite::cuda::DeviceAllocation send;
  suite::cuda::DeviceAllocation recv;
  suite::cuda::DeviceAllocation scratch;  // 16 B: the device barrier's allreduce
  suite::cuda::DeviceAllocation counter;  // the mismatch counter (unsigned long long)
  suite::cuda::PinnedBuffer<unsigned long long> mismatches;  // its host copy
  // Last, so it is destroyed first: an aborted communicator stops its kernels before the buffers
  // they use are freed.
  NcclComm comm;
};

// The GPUs this process drives for one series (scope, rank count). One clique lives at a time.
struct Clique {
  Scope scope = Scope::world;
  int ranks = 0;
  std::vector<Member> members;  // empty on ranks that sit the series out
};

// Makes the series' communicators on this process: alone, one per GPU inside one group; under a
// launcher, this rank's one (the ncclUniqueId made by rank 0, or each node's local rank 0, and
// broadcast over MPI with a flag saying whether it could be made). Every rank calls it at the
// same point. Returns this rank's outcome (agree on it before any collective); on failure the
// communicators made so far are aborted and `out` is left empty.
CaseOutcome make_clique(Scope scope, int ranks, int device_count, double timeout_s,
                        std::unique_ptr<Clique>& out);

// One poll: every member's communicator state (ncclCommGetAsyncError) and, with `streams`, its
// stream (cudaStreamQuery).
PollResult poll_clique(Clique& q, bool streams);
// Waits until every member's stream is idle; on an error or at the deadline aborts every
// communicator of the clique and returns the failure.
CaseOutcome wait_clique(Clique& q, double timeout_s, const std::string& what);
// One NCCL group over every member (enqueue is called with the member's device current); an
// ncclInProgress from ncclGroupEnd is waited out against the deadline. Throws (CudaError) when
// an enqueue or the group fails outright; the guard has ended the group by then.
CaseOutcome group_call(Clique& q, const std::function<void(Member&)>& enqueue, double timeout_s,
                       const std::string& what);
// ncclCommAbort on every member (after a failure).
void abort_clique(Clique& q) noexcept;
// The orderly end: ncclCommFinalize on every member, their state polled until quiet, then
// ncclCommDestroy; at the deadline or on an error, ncclCommAbort instead. Every rank of the
// series calls it at the same point (finalizing waits for the peers).
void release_clique(Clique& q, double timeout_s) noexcept;

// Throws for an enqueue status other than ncclSuccess / ncclInProgress.
void check_enqueue(ncclResult_t status, ncclComm_t comm, const char* call);

// Runs `body` and turns what it throws into this rank's outcome, with run_guarded's rules: out of
// memory and SkipCase -> skipped, anything else -> failed.
template <class Body>
CaseOutcome guarded(const std::string& sizes, Body&& body) {
  try {
    body();
    return {};
  } catch (const suite::SkipCase& e) {
    return {CaseStatus::skipped, e.what()};
  } catch (const suite::CudaError& e) {
    if (e.out_of_memory())
      return {CaseStatus::skipped, "out of memory (" + sizes + "): " + e.what()};
    return {CaseStatus::failed, e.what()};
  } catch (const std::exception& e) {
    return {CaseStatus::failed, e.what()};
  }
}

}  // namespace gpubench::allreduce
