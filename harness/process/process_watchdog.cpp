// Reaching what a suite leaves behind: tagging its descendants' environment, killing what
// carries the tag, and the supervisor (a child subreaper) that forks the suite and kills what it
// leaves, when the suite ends or gpubench dies.
#include "harness/process/process_detail.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>

#include "util/error.hpp"

namespace gpubench::harness::detail {

ProcessTag next_process_tag() {
  static std::atomic<unsigned long> counter{0};
  // The pid alone is not unique across PID namespaces (a container's gpubench, seen from the
  // host as root): a random part per gpubench process makes another one's tag unguessable.
  static const unsigned long nonce = [] {
    std::random_device rd;
    return (static_cast<unsigned long>(rd()) << 32) ^ rd();
  }();
  ProcessTag tag;
  const int n = std::snprintf(tag.entry, sizeof tag.entry, "GPUBENCH_TAG_%ld_%lx_%lu",
                              static_cast<long>(getpid()), nonce, ++counter);
  tag.length = n > 0 ? static_cast<std::size_t>(n) : 0;
  return tag;
}

namespace {

// Whether the NUL-separated environment read from `fd` holds "<tag>=" as an entry. Async-signal-
// safe (read only). The pattern starts with the NUL that ends the previous entry (the first
// entry is preceded by a virtual one); NUL occurs nowhere else in it, so a mismatch restarts at
// 0, or at 1 on a NUL, without missing a match.
bool environ_has_tag(int fd, const ProcessTag& tag) {
  char buf[4096];
  std::size_t matched = 1;                   // the virtual NUL before the first entry
  const std::size_t total = tag.length + 2;  // NUL + tag + '='
  auto pattern_at = [&](std::size_t i) {
    return i == 0 ? '\0' : i <= tag.length ? tag.entry[i - 1] : '=';
  };
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    for (ssize_t k = 0; k < n; ++k) {
      const char c = buf[k];
      if (c == pattern_at(matched)) {
        if (++matched == total) return true;
      } else {
        matched = c == '\0' ? 1 : 0;
      }
    }
  }
}

}  // namespace

namespace {

// Calls visit(pid) for every process in /proc; returns how many visits returned true.
// Async-signal-safe: raw getdents64, no allocation.
template <typename Visit>
int for_each_process(Visit&& visit) {
  int hits = 0;
  const int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  alignas(8) char entries[8192];
  for (;;) {
    const long n = syscall(SYS_getdents64, dir, entries, sizeof entries);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      struct Dirent64 {
        std::uint64_t ino;
        std::int64_t off;
        unsigned short reclen;
        unsigned char type;
        char name[1];
      };
      const auto* d = reinterpret_cast<const Dirent64*>(entries + off);
      off += d->reclen;
      long pid = 0;
      bool digits = d->name[0] != '\0';
      for (const char* c = d->name; *c && digits; ++c) {
        digits = *c >= '0' && *c <= '9';
        pid = pid * 10 + (*c - '0');
      }
      if (digits && visit(static_cast<pid_t>(pid))) ++hits;
    }
  }
  close(dir);
  return hits;
}

// "/proc/<pid>/<leaf>" into `path` (at least 48 bytes).
void proc_path(char* path, pid_t pid, const char* leaf) {
  char digits[24];
  int n = 0;
  for (long v = pid; v > 0 && n < 20; v /= 10) digits[n++] = static_cast<char>('0' + v % 10);
  std::size_t len = 0;
  for (const char* c = "/proc/"; *c;) path[len++] = *c++;
  while (n > 0) path[len++] = digits[--n];
  path[len++] = '/';
  for (const char* c = leaf; *c && len < 47;) path[len++] = *c++;
  path[len] = '\0';
}

// The parent pid in /proc/<pid>/stat ("pid (comm) state ppid ..."; comm may hold ") "), or -1.
pid_t parent_of(pid_t pid) {
  char path[48];
  proc_path(path, pid, "stat");
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[512];
  ssize_t n;
  do {
    n = read(fd, buf, sizeof buf - 1);
  } while (n < 0 && errno == EINTR);
  close(fd);
  if (n <= 0) return -1;
  const char* end = buf + n;
  const char* p = end;
  while (p > buf && p[-1] != ')') --p;  // just after the last ')'
  if (p == buf) return -1;
  while (p < end && *p == ' ') ++p;
  while (p < end && *p != ' ') ++p;  // the state letter
  while (p < end && *p == ' ') ++p;
  long ppid = 0;
  bool any = false;
  for (; p < end && *p >= '0' && *p <= '9'; ++p, any = true) ppid = ppid * 10 + (*p - '0');
  return any ? static_cast<pid_t>(ppid) : -1;
}

}  // namespace

// Sends SIGKILL to every process (but this one) whose environment carries `tag`; returns how
// many. Async-signal-safe: raw getdents64 on /proc, open/read/close, no allocation. A process
// forked during a pass is caught by the next; passes stop when one finds nothing.
int kill_tagged(const ProcessTag& tag) {
  if (tag.length == 0) return 0;
  int killed = 0;
  const pid_t self = getpid();
  for (int pass = 0; pass < 8; ++pass) {
    const int found = for_each_process([&](pid_t pid) {
      if (pid == self) return false;
      char path[48];
      proc_path(path, pid, "environ");
      const int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) return false;  // gone, or another user's
      const bool tagged = environ_has_tag(fd, tag);
      close(fd);
      return tagged && kill(pid, SIGKILL) == 0;
    });
    killed += found;
    if (found == 0) break;
  }
  return killed;
}

namespace {

// The supervisor's messages to gpubench (one write each: atomic on a pipe).
enum class Report : int { suite_pid = 1, fork_failed = 2, suite_status = 3 };
struct ReportMessage {
  Report kind;
  int value;  // pid, errno, wait status
};

void send(int fd, Report kind, int value) {
  const ReportMessage m{kind, value};
  ssize_t n;
  do {
    n = write(fd, &m, sizeof m);
  } while (n < 0 && errno == EINTR);
}

void on_child(int) {}  // wakes the supervisor's poll (EINTR); the loop reaps

// Runs in the suite's process between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_suite(const SuiteLaunch& launch, pid_t parent) {
  setpgid(0, 0);
  // The suite dies with its supervisor, however that dies (it kills everything first when
  // gpubench dies); if the supervisor is already gone, do not start at all. Survives exec.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  // Default dispositions and an empty mask: a parent that ignored SIGINT (nohup, `&`) must not
  // make the suite unkillable, and gpubench ignores SIGXFSZ (main.cpp). An ignored signal stays
  // ignored across exec.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGXFSZ, SIGCHLD}) {
    sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  dup2(launch.stdout_fd, STDOUT_FILENO);
  dup2(launch.stderr_fd, STDERR_FILENO);
  execve(launch.argv[0], launch.argv, launch.envp);
  const int err = errno;
  [[maybe_unused]] ssize_t n = write(launch.exec_error_fd, &err, sizeof err);
  _exit(127);
}

// Kills the supervisor's children until it has none: each one killed hands its own children to
// the supervisor (the subreaper), so the whole tree the suite left goes, generation by
// generation. Gives up after about 10 s (a process stuck in the kernel, D state, that SIGKILL
// cannot end yet); what is left then is re-parented to init.
void kill_children(pid_t self) {
  for (int round = 0; round < 5000; ++round) {
    for_each_process(
        [self](pid_t pid) { return parent_of(pid) == self && kill(pid, SIGKILL) == 0; });
    pid_t w;
    while ((w = waitpid(-1, nullptr, WNOHANG)) > 0) {
    }
    if (w < 0 && errno == ECHILD) return;  // no child left
    poll(nullptr, 0, 2);
  }
}

// The supervisor: async-signal-safe calls only (gpubench may have threads).
[[noreturn]] void supervise(const SuiteLaunch& launch, int alive_fd, int report_fd,
                            const ProcessTag& tag) {
  // A group of its own: a kill of gpubench's whole process group (a supervisor's, a test's,
  // `kill -9 -PGID`) must not take it before it has killed the suite's tree.
  setpgid(0, 0);
  // Interrupts reach gpubench's process group (a terminal's Ctrl-C): they are gpubench's to
  // handle (it passes them to the suite), and the supervisor must outlive gpubench.
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) sigaction(sig, &ign, nullptr);
  struct sigaction chld {};
  chld.sa_handler = on_child;
  sigemptyset(&chld.sa_mask);
  sigaction(SIGCHLD, &chld, nullptr);  // no SA_RESTART: a child's end wakes poll()
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t self = getpid();
  const pid_t suite = fork();
  if (suite == 0) exec_suite(launch, self);
  if (suite < 0) {
    send(report_fd, Report::fork_failed, errno);
    _exit(0);
  }
  setpgid(suite, suite);  // also done in the suite; whichever runs first
  send(report_fd, Report::suite_pid, suite);
  // Nothing of gpubench's stays open here (the suite's output, the database, lock files, other
  // supervisors' pipes): only the two pipe ends, moved to fds 3 and 4.
  const int alive = fcntl(alive_fd, F_DUPFD_CLOEXEC, 100);
  const int report = fcntl(report_fd, F_DUPFD_CLOEXEC, 100);
  dup2(alive, 3);
  dup2(report, 4);
  for (int fd = 0; fd < 3; ++fd) close(fd);
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 5U, ~0U, 0U) != 0)
#endif
  {
    struct rlimit lim {};
    const rlim_t max = getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY
                           ? std::min<rlim_t>(lim.rlim_cur, 1 << 16)
                           : 1 << 16;
    for (rlim_t fd = 5; fd < max; ++fd) close(static_cast<int>(fd));
  }
  int status = 0;
  bool reaped = false;
  bool gpubench_gone = false;
  while (!reaped && !gpubench_gone) {
    int st = 0;
    pid_t w;
    while ((w = waitpid(-1, &st, WNOHANG)) > 0) {  // the suite, or an orphan handed to us
      if (w == suite) {
        status = st;
        reaped = true;
      }
    }
    if (reaped) break;
    pollfd p{3, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) {
      char byte;
      const ssize_t n = read(3, &byte, 1);
      gpubench_gone = n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
    }
  }
  kill(-suite, SIGKILL);  // its group (ranks, helpers)
  kill_tagged(tag);       // what left the group and the tree (a subreaper of its own below us)
  kill_children(self);    // and the rest of the tree: orphans come to us
  if (!gpubench_gone) send(4, Report::suite_status, status);
  _exit(0);
}

}  // namespace

Supervisor start_supervisor(const SuiteLaunch& launch, const ProcessTag& tag) {
  int alive[2];
  int report[2];
  if (pipe2(alive, O_CLOEXEC) != 0) {
    throw infrastructure("cannot create a pipe", errno_text(errno), "raise the open-file limit");
  }
  if (pipe2(report, O_CLOEXEC) != 0) {
    const int err = errno;
    close(alive[0]);
    close(alive[1]);
    throw infrastructure("cannot create a pipe", errno_text(err), "raise the open-file limit");
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(alive[1]);  // only gpubench holds it: end-of-file means gpubench died
    close(report[0]);
    supervise(launch, alive[0], report[1], tag);
  }
  const int fork_errno = errno;
  close(alive[0]);
  close(report[1]);
  Supervisor s;
  s.alive_fd = alive[1];
  s.report_fd = report[0];
  if (pid < 0) {
    finish_supervisor(s);
    throw infrastructure("cannot start '" + std::string(launch.argv[0]) + "'",
                         "fork: " + errno_text(fork_errno),
                         "free memory or raise the process limit");
  }
  s.pid = pid;
  setpgid(pid, pid);  // also done in the supervisor; whichever runs first
  ReportMessage m{};
  ssize_t n;
  do {
    n = read(s.report_fd, &m, sizeof m);
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof m) || m.kind != Report::suite_pid) {
    const int err = n == static_cast<ssize_t>(sizeof m) ? m.value : 0;
    finish_supervisor(s);
    throw infrastructure("cannot start '" + std::string(launch.argv[0]) + "'",
                         err != 0 ? "fork: " + errno_text(err)
                                  : std::string("its supervisor process ended before it"),
                         "free memory or raise the process limit");
  }
  s.suite = m.value;
  fcntl(s.report_fd, F_SETFL, O_NONBLOCK);
  return s;
}

std::optional<int> poll_suite_status(Supervisor& s) {
  ReportMessage m{};
  const ssize_t n = read(s.report_fd, &m, sizeof m);
  if (n == static_cast<ssize_t>(sizeof m) && m.kind == Report::suite_status) return m.value;
  if (n == 0) return SIGKILL;  // the supervisor died without a word: so did the suite
  return std::nullopt;         // EAGAIN: still running
}

void finish_supervisor(Supervisor& s) {
  if (s.alive_fd >= 0) close(s.alive_fd);
  if (s.report_fd >= 0) close(s.report_fd);
  if (s.pid > 0) {
    while (waitpid(s.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  s = {};
}

}  // namespace gpubench::harness::detail
