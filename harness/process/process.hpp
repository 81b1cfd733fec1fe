// Running one child process (a suite executable) under the harness's control.
//
// The child gets its own process group, so a timeout or an interrupt stops the suite and anything
// it started. Its stdout goes to a file (or /dev/null); its stderr is read through a pipe and only
// the last `stderr_tail_bytes` are kept. SIGINT/SIGTERM/SIGHUP received by gpubench while an
// InterruptGuard is alive are forwarded to the child's group and reported as `interrupted`.
// The child is forked by a supervisor process (a child subreaper, harness/process/
// process_detail.hpp): when the child ends, or gpubench dies (kill -9 included), the supervisor
// kills the child's process group (MPI ranks, helpers), what carries the run's environment tag,
// and every process the child's tree left behind (re-parented to it), then exits. The child gets
// PR_SET_PDEATHSIG(SIGKILL) against its supervisor.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpubench::harness {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is the executable path (no PATH search)
  // Added to (or replacing in) the parent's environment.
  std::vector<std::pair<std::string, std::string>> env;
  std::filesystem::path stdout_path;  // empty: /dev/null
  std::size_t stderr_tail_bytes = 8192;
  double timeout_s = 0;     // wall-clock limit; 0 = none
  double kill_grace_s = 5;  // after SIGTERM (timeout/interrupt), SIGKILL follows this much later
};

struct ProcessResult {
  std::optional<int> exit_code;    // set when the child exited
  std::optional<int> term_signal;  // set when a signal ended it
  bool timed_out = false;          // we stopped it at timeout_s
  int interrupt_signal = 0;        // nonzero: we stopped it because gpubench got this signal
  double duration_s = 0;           // spawn to reap, monotonic
  std::string stderr_tail;         // last stderr_tail_bytes of stderr
  bool stderr_truncated = false;   // earlier stderr bytes were dropped
  std::string spawn_error;         // nonempty: the child could not be started (exec failed)

  bool succeeded() const {
    return spawn_error.empty() && exit_code == 0 && !timed_out && interrupt_signal == 0;
  }
};

// Runs the child to completion (or timeout/interrupt). Blocks the calling thread. Throws
// gpubench::Error(infrastructure) only when the OS refuses pipes/fork or the stdout file cannot
// be opened; an executable that cannot be exec'd is reported in ProcessResult::spawn_error.
ProcessResult run_process(const ProcessSpec& spec);

// While alive, SIGINT, SIGTERM and SIGHUP set a flag (instead of killing gpubench) that
// run_process, the run loop and the store's lock waits (results::set_busy_interrupt_counter)
// observe. Restores the previous handlers when the outermost guard is destroyed; nested guards
// share the outer one's state.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// The signal received since the guard was installed (0 if none).
int interrupt_signal();
// How many SIGINT/SIGTERM/SIGHUP arrived in this process (lock waits give up when it grows).
int interrupt_count();
// For tests and for callers that decide to stop: behaves as if `sig` had been received.
void request_interrupt(int sig);

// "SIGSEGV" for 11 etc.; "signal N" when unnamed.
std::string signal_name(int sig);

}  // namespace gpubench::harness
