// Internal to harness/process/process*.cpp: the environment tag a suite's descendants inherit, and
// the watchdog that kills a suite's process group when gpubench dies (defined in
// process_watchdog.cpp).
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace gpubench::harness::detail {

// Processes that left the suite's process group (setsid, a daemonizing double fork: MPI
// launchers' daemons do) are out of reach of kill(-group). They still carry the suite's
// environment, so every run_process gives its child a variable of its own,
// GPUBENCH_TAG_<gpubench pid>_<nonce>_<n>=1, that descendants inherit (nested suites add theirs),
// and the leftovers are found by it in /proc/<pid>/environ. A process that execs with a cleared
// environment escapes this too; nothing short of a cgroup catches that.
struct ProcessTag {
  char entry[80] = {};  // "GPUBENCH_TAG_<pid>_<nonce>_<n>" (without '=')
  std::size_t length = 0;
};

// A tag of its own for the next run_process: unique across gpubench processes and calls.
ProcessTag next_process_tag();

// SIGKILLs every other process whose environment carries `tag`; returns how many.
// Async-signal-safe.
int kill_tagged(const ProcessTag& tag);

// PR_SET_PDEATHSIG ends the suite with gpubench, kill -9 included, but not what the suite
// started (MPI ranks under a launcher, a script's background jobs): re-parented to init, they
// would run on. So a watchdog process waits on a pipe whose write end only gpubench holds:
// a byte on it means the suite was reaped (nothing to do); end-of-file without one means
// gpubench died, and the suite's process group is killed.
struct Watchdog {
  pid_t pid = -1;
  int done_fd = -1;  // write end: a byte, then close, then reap
};

// Starts a watchdog over process group `group` (best effort: an empty Watchdog if it cannot).
Watchdog start_watchdog(pid_t group, const ProcessTag& tag);

// The suite was reaped: the watchdog exits without killing anything.
void stop_watchdog(Watchdog& w);

}  // namespace gpubench::harness::detail
