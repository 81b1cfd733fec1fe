// Reaching what a suite leaves behind: tagging its descendants' environment, killing what
// carries the tag, and the watchdog that kills the suite's process group if gpubench dies.
#include "harness/process/process_detail.hpp"

#include <fcntl.h>
#include <signal.h>
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

// Sends SIGKILL to every process (but this one) whose environment carries `tag`; returns how
// many. Async-signal-safe: raw getdents64 on /proc, open/read/close, no allocation. A process
// forked during a pass is caught by the next; passes stop when one finds nothing.
int kill_tagged(const ProcessTag& tag) {
  if (tag.length == 0) return 0;
  int killed = 0;
  const pid_t self = getpid();
  for (int pass = 0; pass < 8; ++pass) {
    int found = 0;
    const int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return killed;
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
        if (!digits || pid == self) continue;
        char path[48] = "/proc/";
        std::size_t len = 6;
        for (const char* c = d->name; *c && len < sizeof path - 9; ++c) path[len++] = *c;
        std::memcpy(path + len, "/environ", 9);
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;  // gone, or another user's
        const bool tagged = environ_has_tag(fd, tag);
        close(fd);
        if (tagged && kill(static_cast<pid_t>(pid), SIGKILL) == 0) ++found;
      }
    }
    close(dir);
    killed += found;
    if (found == 0) break;
  }
  return killed;
}

namespace {

// Runs in the forked watchdog: async-signal-safe calls only.
[[noreturn]] void watch_group(int read_fd, pid_t group, const ProcessTag& tag) {
  // A group of its own: a kill of gpubench's whole process group (a supervisor's, a test's,
  // `kill -9 -PGID`) must not take the watchdog with it before it has killed the suite's.
  setpgid(0, 0);
  // Interrupts reach gpubench's process group (a terminal's Ctrl-C): they are gpubench's to
  // handle, and the watchdog must outlive gpubench to do its one job.
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) sigaction(sig, &ign, nullptr);
  // Nothing of gpubench's stays open here (its output pipes, the database, lock files, other
  // watchdogs' pipes): only the pipe read end, moved to fd 3.
  if (read_fd != 3) {
    dup2(read_fd, 3);
    read_fd = 3;
  }
  for (int fd = 0; fd < 3; ++fd) close(fd);
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 4U, ~0U, 0U) != 0)
#endif
  {
    struct rlimit lim {};
    const rlim_t max = getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY
                           ? std::min<rlim_t>(lim.rlim_cur, 1 << 16)
                           : 1 << 16;
    for (rlim_t fd = 4; fd < max; ++fd) close(static_cast<int>(fd));
  }
  char byte = 0;
  ssize_t n;
  do {
    n = read(read_fd, &byte, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) {
    kill(-group, SIGKILL);
    kill_tagged(tag);  // what left the group (setsid)
  }
  _exit(0);
}

}  // namespace

// Best effort: without a watchdog (no pipe, no fork) the suite still dies with gpubench.
Watchdog start_watchdog(pid_t group, const ProcessTag& tag) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) watch_group(p[0], group, tag);
  if (pid > 0) setpgid(pid, pid);  // also done in the watchdog; whichever runs first
  close(p[0]);
  if (pid < 0) {
    close(p[1]);
    return {};
  }
  return {pid, p[1]};
}

// The suite was reaped and its group killed: the watchdog exits without killing anything.
void stop_watchdog(Watchdog& w) {
  if (w.pid < 0) return;
  const char done = 1;
  [[maybe_unused]] ssize_t n = write(w.done_fd, &done, 1);
  close(w.done_fd);
  while (waitpid(w.pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  w = {};
}

}  // namespace gpubench::harness::detail
