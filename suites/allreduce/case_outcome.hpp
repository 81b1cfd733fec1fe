// How a collective case ends the same way on every rank, and how a wait for NCCL work ends
// without hanging (METHODOLOGY rule 12b). CUDA-, NCCL- and MPI-free, so unit-tested everywhere;
// nccl_cases.cpp and host_reference.cpp plug in the real calls.
//
// Agreement: every rank brings its own outcome of a phase (setup, calls, check); the ranks agree
// on the worst status (MPI_Allreduce MAX) and on the lowest rank that had it (MPI_Allreduce MIN),
// whose reason is broadcast (MPI_Bcast). So a failure on one rank fails the case on all ranks,
// with that rank's words, and every rank moves on to the next case together.
//
// Deadline: waits poll (cudaStreamQuery plus ncclCommGetAsyncError) instead of blocking; when the
// work fails or the deadline passes, the wait calls abort (ncclCommAbort) once and reports why.
#pragma once

#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace gpubench::allreduce {

// Ordered by severity: agreement keeps the worst.
enum class CaseStatus : int { ok = 0, skipped = 1, failed = 2 };

struct CaseOutcome {
  CaseStatus status = CaseStatus::ok;
  std::string reason;  // empty when ok
  bool ok() const noexcept { return status == CaseStatus::ok; }
};

// The outcome every rank reaches from all ranks' outcomes (index = rank): the worst status, with
// the reason of the lowest rank that had it, as "rank N: <reason>" when there are 2 or more ranks.
CaseOutcome combine_outcomes(const std::vector<CaseOutcome>& by_rank);

// The collective steps agreement needs (World provides them over MPI_COMM_WORLD).
struct AgreementOps {
  int rank = 0;
  int size = 1;
  std::function<int(int)> max;  // maximum across ranks, on every rank
  std::function<int(int)> min;  // minimum across ranks, on every rank
  std::function<std::string(const std::string&, int root)> broadcast;  // root's text everywhere
};
// Every rank calls this at the same point with its own outcome; all return the same outcome,
// equal to combine_outcomes() of all ranks' inputs. Three small collectives when some rank is not
// ok, one when all are.
CaseOutcome agree_outcome(const CaseOutcome& mine, const AgreementOps& ops);

// What one poll of outstanding work found.
enum class Progress { done, pending, failed };
struct PollResult {
  Progress progress = Progress::pending;
  std::string reason;  // for failed: what failed (NCCL's or CUDA's words)
};

// Time source of waits (steady clock and sleep by default; tests pass fakes).
struct WaitClock {
  std::function<double()> now_s;
  std::function<void(double seconds)> sleep_s;
};
WaitClock steady_wait_clock();

struct WaitResult {
  CaseOutcome outcome;  // ok, or failed with the reason (timeout or the poll's failure)
  bool timed_out = false;
  bool aborted = false;
  double waited_s = 0;
};

// Polls until done, failed or `timeout_s` passed. Polls back to back for the first millisecond
// (small collectives end in microseconds), then sleeps a tenth of the time waited so far, at most
// 1 ms. On failure or timeout calls `abort` exactly once (may be empty) before returning. `what`
// names the work in the reason, e.g. "allreduce of 1 GiB on 8 GPUs".
WaitResult wait_with_deadline(const std::function<PollResult()>& poll, double timeout_s,
                              const std::function<void()>& abort, const std::string& what,
                              const WaitClock& clock = steady_wait_clock());

// How long one wait may take before it is a hang: 60 s plus `calls` x `bytes` at 0.5 GB/s (a
// generous floor: a healthy link is 10-1000x faster), or GPUBENCH_ALLREDUCE_TIMEOUT_S seconds when
// `override_text` (that variable) is a positive number.
double wait_timeout_s(std::size_t bytes, int calls, const char* override_text);

// The test hook GPUBENCH_ALLREDUCE_INJECT_FAILURE=<case regex>:<rank>: world rank <rank> fails
// every case whose name matches <regex> (ECMAScript, searched) before its first collective call,
// as an out-of-memory or a failed communicator would. Honoured only by the MPI host cases.
struct InjectedFailure {
  std::regex pattern;
  std::string text;
  int rank = 0;
  bool matches(const std::string& case_name, int world_rank) const;
};
// nullopt for null/empty text; throws std::invalid_argument (with what to write instead) for text
// without ":<rank>" or with a bad regex.
std::optional<InjectedFailure> parse_injected_failure(const char* text);

}  // namespace gpubench::allreduce
