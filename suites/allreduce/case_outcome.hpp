// How a collective case ends the same way on every rank, and how a wait for NCCL work ends
// without hanging (METHODOLOGY rule 12b). CUDA-, NCCL- and MPI-free, so unit-tested everywhere;
// nccl_cases.cpp and host_reference.cpp plug in the real calls.
//
// Agreement: every rank brings its own outcome of a phase (setup, calls, check); the ranks agree
// on the worst outcome (MPI_Allreduce MAX; ok < skipped < failed by a timeout < failed on its own)
// and on the lowest rank that had it (MPI_Allreduce MIN), whose reason is broadcast (MPI_Bcast).
// So a failure on one rank fails the case on all ranks, with the words of the rank that failed on
// its own rather than of the peers that timed out waiting for it, and every rank moves on to the
// next case together.
//
// Deadline: waits poll (cudaStreamQuery plus ncclCommGetAsyncError) instead of blocking; when the
// work fails or the deadline passes, the wait reports why. The suite's waits abort nothing
// themselves: the communicators are aborted after the ranks agreed (case_runner.hpp), on every rank
// together, since NCCL's abort can wait for the local peers' (NCCL 2.28 src/proxy.cc).
#pragma once

#include <functional>
#include <map>
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
  bool timed_out =
      false;  // failed because a wait passed its deadline (the series' breaker counts it)
  bool ok() const noexcept { return status == CaseStatus::ok; }
};

// The outcome every rank reaches from all ranks' outcomes (index = rank): the worst one (see
// above), with the reason of the lowest rank that had it, as "rank N: <reason>" when there are 2 or
// more ranks.
CaseOutcome combine_outcomes(const std::vector<CaseOutcome>& by_rank);

// The order agreement keeps the worst by: 2 x status, plus 1 for a failure that is not a timeout.
int severity(const CaseOutcome& outcome);

// The collective steps agreement needs (World provides them over MPI_COMM_WORLD).
struct AgreementOps {
  int rank = 0;
  int size = 1;
  std::function<int(int)> max;  // maximum across ranks, on every rank
  std::function<int(int)> min;  // minimum across ranks, on every rank
  std::function<std::string(const std::string&, int root)> broadcast;  // root's text everywhere
};
// Every rank calls this at the same point with its own outcome; all return the same outcome,
// equal to combine_outcomes() of all ranks' inputs (timed_out is the chosen rank's). Three small
// collectives when some rank is not ok, one when all are. Since MPI_Allreduce needs every rank, it
// is also a barrier: no rank leaves before all arrived.
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
// 1 ms. On failure or timeout calls `abort` exactly once (may be empty: then the reason says the
// communicators are aborted once the ranks agreed) before returning; a timeout sets
// outcome.timed_out. `what` names the work in the reason, e.g. "allreduce of 1 GiB on 8 GPUs".
WaitResult wait_with_deadline(const std::function<PollResult()>& poll, double timeout_s,
                              const std::function<void()>& abort, const std::string& what,
                              const WaitClock& clock = steady_wait_clock());

// How long one wait may take before it is a hang: 60 s plus `calls` x `bytes` at 0.5 GB/s (a
// generous floor: a healthy link is 10-1000x faster), or GPUBENCH_ALLREDUCE_TIMEOUT_S seconds when
// `override_text` (that variable) is a positive number.
double wait_timeout_s(std::size_t bytes, int calls, const char* override_text);

// The test hook GPUBENCH_ALLREDUCE_INJECT_FAILURE=<case regex>:<rank>[:<mode>]: rank <rank> (under
// a launcher the world rank; alone, the GPU driven as communicator rank <rank>) misbehaves in every
// case whose name matches <regex> (ECMAScript, searched):
//   fail   (the default) fails the case before its first collective call, as an out-of-memory
//          would; the host reference and the NCCL cases;
//   setup  does not make its communicator when the case opens its series (after the unique id was
//          shared), so the others' setup waits until the deadline and the series is skipped;
//          NCCL cases only;
//   hang   leaves its timed calls out, so the other ranks' collectives hang until the deadline and
//          are aborted after the ranks agreed; NCCL cases only.
enum class InjectedMode { fail, setup, hang };
const char* to_string(InjectedMode mode);
struct InjectedFailure {
  std::regex pattern;
  std::string text;  // the regex as written
  int rank = 0;
  InjectedMode mode = InjectedMode::fail;
  bool matches(const std::string& case_name, int rank_here) const;
  // "injected failure (GPUBENCH_ALLREDUCE_INJECT_FAILURE=<text>:<rank>[:<mode>], a test hook)"
  std::string reason() const;
};
// nullopt for null/empty text; throws std::invalid_argument (with what to write instead) for text
// without ":<rank>", with an unknown mode or with a bad regex.
std::optional<InjectedFailure> parse_injected_failure(const char* text);

// The circuit breaker of a series (scope and rank count, every case of it shares communicators).
// A series whose communicator setup failed, or whose cases timed out twice in a row, is skipped for
// the rest of the run with the reason, instead of paying the setup or the collective deadline again
// for every case and repetition (a first multi-node run would spend its suite timeout that way and
// never reach the series that localize the fault). Decisions use agreed outcomes only, so every
// rank skips the same cases.
class SeriesBreaker {
 public:
  // The skip reason when `series` is blocked, nullopt when it may run.
  std::optional<std::string> blocked(const std::string& series) const;
  // An agreed setup failure of `series`, met by `case_name`: blocks the series.
  void setup_failed(const std::string& series, const std::string& case_name,
                    const CaseOutcome& agreed);
  // An agreed outcome of a case's collective phases: two timeouts in a row block the series; any
  // other outcome resets the count.
  void case_finished(const std::string& series, const std::string& case_name,
                     const CaseOutcome& agreed);

 private:
  std::map<std::string, std::string> m_blocked;                   // series -> reason
  std::map<std::string, std::pair<int, std::string>> m_timeouts;  // series -> (in a row, first)
};

}  // namespace gpubench::allreduce
