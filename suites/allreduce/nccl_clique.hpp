// The GPUs one process drives for one rank count, on non-blocking NCCL communicators
// (ncclConfig_t.blocking = 0, ncclCommInitRankConfig), and every wait on them bounded: calls that
// answer ncclInProgress and streams still running are polled (ncclCommGetAsyncError,
// cudaStreamQuery) against a deadline, as nccl-tests' testStreamSynchronize does. A wait that
// fails or passes its deadline reports it and aborts nothing: the communicators are aborted
// (ncclCommAbort, abort_clique) after the ranks agreed, on every rank together (case_runner.hpp).
// Nothing here blocks in cudaStreamSynchronize or a blocking NCCL call, so a dead peer or link
// costs at most the deadline, never the job.
//
// Why non-blocking communicators: only they make setup and the first call's connection (both
// waiting for every peer in the host thread) abortable at a deadline. Their cost, a host thread
// per call on NCCL >= 2.23 (src/group.cc ncclGroupEndInternal), is kept out of the timed interval
// by holding the streams (a spin kernel, hold_streams) while the timed calls are queued, as
// METHODOLOGY rule 1 asks of every timed batch. Only built with NCCL.
#pragma once

#include <nccl.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/spin.hpp"
#include "suites/allreduce/case_outcome.hpp"
#include "suites/allreduce/collectives.hpp"
#include "suites/allreduce/group_guard.hpp"
#include "suites/allreduce/nccl_comm.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/spin_hold.hpp"

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
  // The clock probe's result (mapped host memory), made at the first probe_clock_mhz.
  suite::cuda::PinnedBuffer<kernels::ClockProbe> probe;
  // Last, so it is destroyed first: an aborted communicator stops its kernels before the buffers
  // they use are freed.
  NcclComm comm;
};

// The GPUs this process drives for one series (scope, rank count). One clique lives at a time.
struct Clique {
  Scope scope = Scope::world;
  int ranks = 0;
  // The flag the spin kernels of every member's stream wait on (mapped host memory, seen by every
  // device); declared before the members so it outlives their streams.
  std::unique_ptr<suite::cuda::SpinHold> hold;
  std::vector<Member> members;  // empty on ranks that sit the series out
};

// Makes the series' communicators on this process: alone, one per GPU inside one group; under a
// launcher, this rank's one (the ncclUniqueId made by rank 0, or each node's local rank 0, and
// broadcast over MPI with a flag saying whether it could be made). Every rank calls it at the
// same point. Each handle is owned (a Member) as soon as its init call returned, so a throw later
// in the loop leaks nothing. Then, bounded: the inits finish, the spin kernel is loaded on every
// device and a first device barrier connects its algorithm, so a timed batch never meets a first
// use. `leave_out`: world ranks here (alone: device indices) that skip their init and fail (the
// setup test hook). Returns this rank's outcome (agree on it before any collective); `out` holds
// whatever was made, also on failure: drop it (abort_clique) once the ranks agreed.
CaseOutcome make_clique(Scope scope, int ranks, int device_count, double timeout_s,
                        const std::vector<int>& leave_out, std::unique_ptr<Clique>& out);

// One poll: every member's communicator state (ncclCommGetAsyncError) and, with `streams`, its
// stream (cudaStreamQuery).
PollResult poll_clique(Clique& q, bool streams);
// Waits until every member's stream is idle; returns the failure on an error or at the deadline
// (nothing is aborted: see the file comment).
CaseOutcome wait_clique(Clique& q, double timeout_s, const std::string& what);
// One NCCL group over the members `take_part` accepts (every member when empty; enqueue is called
// with the member's device current); an ncclInProgress from ncclGroupEnd is waited out against the
// deadline. Throws (CudaError) when an enqueue or the group fails outright; the guard has ended the
// group by then.
CaseOutcome group_call(Clique& q, const std::function<void(Member&)>& enqueue, double timeout_s,
                       const std::string& what,
                       const std::function<bool(const Member&)>& take_part = {});
// The device barrier: a 1-element allreduce on every member, so the GPUs leave it together.
CaseOutcome device_barrier(Clique& q, double timeout_s, const std::string& what,
                           const std::function<bool(const Member&)>& take_part = {});
// Holds every member's stream with the spin kernel (kernels/common/spin.hpp) until release_streams:
// what is queued behind it runs back to back, without the host's per-call cost in between. Throws
// CudaError when a launch fails (the streams already held are released by the caller's
// release_streams, which is always called).
void hold_streams(Clique& q);
void release_streams(Clique& q) noexcept;
// After the held work completed: throws std::runtime_error when the spin kernel gave up waiting
// (the timed interval would hold the queueing gaps).
void check_hold(const Clique& q);
// The SM clock (MHz) the member's GPU runs at now: the clock probe (clock64 cycles over
// %globaltimer ns for kernels::k_clock_probe_ns, 100 us) on its stream, waited for; 0 when the
// probe read nothing. Call on an idle stream, outside any gated scope (after the timed calls).
double probe_clock_mhz(Member& m);

// ncclCommAbort on every member (after a failure the ranks agreed on).
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
