// One repetition of a collective case, run the same way on every rank, whatever drives the
// collectives: the NCCL cases (nccl_cases.cpp) or a fake backend in the tests (real MPI ranks in
// tests/allreduce/protocol_probe.cpp). CUDA-, NCCL- and MPI-free: the agreement comes in as
// AgreementOps (World::agreement_ops() over MPI_COMM_WORLD).
//
// The phases, each ending with the ranks agreeing on its outcome (case_outcome.hpp):
//   open     the series' communicators (made when the series changes);
//   prepare  the case's buffers;
//   warm-up  inputs, the checked first call, the other warm-ups, waited for;
//   queue    every stream held (a spin kernel), the timed calls queued behind the hold; the
//            agreement on it is also the barrier: no rank releases before every rank has queued,
//            so NCCL's per-call host cost (a thread per call on non-blocking communicators since
//            NCCL 2.23) stays out of the timed interval;
//   release  the hold, on every rank right after that agreement;
//   finish   the timed calls waited for (bounded), the times read, the output checked.
// After an agreed failure the backend drops the series' communicators (ncclCommAbort) on every rank
// at the same point: never before the agreement, since NCCL's abort can wait for the local peers'
// and a rank aborting alone could hang with a peer parked in the agreement. A skip at prepare (out
// of memory) keeps them: nothing was queued.
//
// The series breaker (SeriesBreaker) skips a series whose setup failed or whose cases timed out
// twice in a row, and the test hook GPUBENCH_ALLREDUCE_INJECT_FAILURE (InjectedFailure) is applied
// here, so both reach the NCCL cases and the fake alike.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "suites/allreduce/case_outcome.hpp"

namespace gpubench::allreduce {

// This process's own times of one repetition.
struct OwnTimes {
  double slowest_call_s = 0;                // max over the GPUs this process drives
  std::vector<std::pair<int, double>> own;  // (rank, seconds per call) per GPU it drives
  // The sample's state on this process (suites/README.md "Sample states"): CLOCK_MONOTONIC
  // seconds from the release of the held streams to the end of the wait for the timed calls, and
  // the lowest SM clock (MHz) the clock probe read on its GPUs right after them; 0 = not read.
  double window_start_s = 0;
  double window_end_s = 0;
  double min_clock_mhz = 0;
};

// What one process does for one case. Every call returns this process's own outcome (it agrees on
// nothing itself), must not throw (the runner turns a throw into a failure anyway), and never
// aborts a communicator: drop() does, after the ranks agreed.
class CollectiveBackend {
 public:
  virtual ~CollectiveBackend() = default;
  // The ranks this process drives in the case's series: world ranks under a launcher (none when it
  // sits the series out), GPU indices alone. Known before open_series.
  virtual std::vector<int> ranks_here() const = 0;
  // Makes the series' communicators unless they exist (the previous series' are released first,
  // on every rank at the same case). `leave_out`: ranks here that do not make theirs and fail
  // their setup (the setup test hook); they still take part in sharing the unique id.
  virtual CaseOutcome open_series(const std::vector<int>& leave_out) = 0;
  virtual CaseOutcome prepare() = 0;
  virtual CaseOutcome warm_up() = 0;
  // Holds every stream this process drives and queues the timed calls behind the hold, without
  // waiting for the GPU. `leave_out`: ranks here whose calls are left out (the hang test hook).
  virtual CaseOutcome queue_timed(const std::vector<int>& leave_out) = 0;
  // Releases the hold. Called exactly once after every queue_timed, whatever it returned.
  virtual void release() noexcept = 0;
  virtual CaseOutcome finish_timed(OwnTimes& times) = 0;
  // After an agreed failure: aborts this process's communicators of the series.
  virtual void drop() noexcept = 0;
};

struct RepetitionResult {
  CaseOutcome outcome;  // agreed; ok when `times` hold this process's measurement
  OwnTimes times;
};

class CaseRunner {
 public:
  // `breaker` and `injected` outlive the runner (one of each per run, shared by every case).
  CaseRunner(AgreementOps ops, SeriesBreaker& breaker,
             const std::optional<InjectedFailure>& injected)
      : m_ops(std::move(ops)), m_breaker(breaker), m_injected(injected) {}

  // One repetition of `case_name` of `series` (the series' name, e.g. "world/8"). Every rank calls
  // it for the same case at the same point.
  RepetitionResult run(CollectiveBackend& backend, const std::string& series,
                       const std::string& case_name);

 private:
  // The ranks here that the test hook targets in this case with `mode`.
  std::vector<int> injected_ranks(const std::vector<int>& here, const std::string& case_name,
                                  InjectedMode mode) const;

  AgreementOps m_ops;
  SeriesBreaker& m_breaker;
  const std::optional<InjectedFailure>& m_injected;
};

}  // namespace gpubench::allreduce
