// Internal to harness/process/process*.cpp: the environment tag a suite's descendants inherit, and
// the supervisor that forks the suite and kills whatever it leaves behind, when it ends or when
// gpubench dies (defined in process_watchdog.cpp).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>

namespace gpubench::harness::detail {

// Processes that left the suite's process group (setsid, a daemonizing double fork: MPI
// launchers' daemons do) are out of reach of kill(-group). They still carry the suite's
// environment, so every run_process gives its child a variable of its own,
// GPUBENCH_TAG_<gpubench pid>_<nonce>_<n>=1, that descendants inherit (nested suites add theirs),
// and the leftovers are found by it in /proc/<pid>/environ. A process that execs with a cleared
// environment escapes the tag; the supervisor below (a subreaper) still finds it as its child,
// unless it was handed to a process outside the suite's tree (systemd-run asks systemd, which
// starts it: only a cgroup would reach that).
struct ProcessTag {
  char entry[80] = {};  // "GPUBENCH_TAG_<pid>_<nonce>_<n>" (without '=')
  std::size_t length = 0;
};

// A tag of its own for the next run_process: unique across gpubench processes and calls.
ProcessTag next_process_tag();

// SIGKILLs every other process whose environment carries `tag`; returns how many.
// Async-signal-safe.
int kill_tagged(const ProcessTag& tag);

// How a suite is started (everything prepared before fork: no allocation after it).
struct SuiteLaunch {
  char* const* argv = nullptr;  // argv[0] is the executable path
  char* const* envp = nullptr;
  int stdout_fd = -1;
  int stderr_fd = -1;      // write end of gpubench's stderr pipe
  int exec_error_fd = -1;  // write end: the child writes errno there when exec fails
};

// The suite's parent is not gpubench but a supervisor process gpubench forks first. The
// supervisor is a child subreaper (PR_SET_CHILD_SUBREAPER): whatever the suite starts and leaves
// (a daemon's double fork, setsid, `env -i`, sudo: a cleared environment loses the tag) is
// re-parented to it, not to init, so it can always be found: its own children. It forks the
// suite, tells gpubench the suite's pid, reaps what comes to it, and when the suite has been
// reaped, or gpubench died (end-of-file on a pipe whose write end only gpubench holds: kill -9
// included), kills the suite's group, what carries the tag, and then its children until none is
// left, before it reports the suite's wait status to gpubench and exits. gpubench itself keeps
// the suite's pid for its signals (timeouts, interrupts go to the suite's process group).
struct Supervisor {
  pid_t pid = -1;      // the supervisor
  pid_t suite = -1;    // the suite (process group leader)
  int report_fd = -1;  // read end: the suite's pid, then its wait status
  int alive_fd = -1;   // write end, held only by gpubench; closed when done
};

// Forks the supervisor, which forks the suite; returns once the suite's pid is known. Throws
// Error(infrastructure) when a pipe or fork fails.
Supervisor start_supervisor(const SuiteLaunch& launch, const ProcessTag& tag);

// The suite's wait status when the supervisor has sent it (the suite reaped and what it left
// killed); nullopt while it runs. Non-blocking. A supervisor gone without a word (killed) reads
// as the suite killed by SIGKILL (it died with its parent: PR_SET_PDEATHSIG).
std::optional<int> poll_suite_status(Supervisor& s);

// Closes the pipes and reaps the supervisor (which exits after reporting).
void finish_supervisor(Supervisor& s);

}  // namespace gpubench::harness::detail
