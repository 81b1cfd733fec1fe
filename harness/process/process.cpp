// Running a suite: the interrupt guard, spawning the child, and waiting on it with a timeout while
// keeping its stderr tail (killing what it leaves behind is in process_watchdog.cpp).
#include "harness/process/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>

#include "harness/process/process_detail.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"

extern char** environ;

namespace gpubench::harness {

namespace {

using detail::next_process_tag;
using detail::ProcessTag;
using detail::Supervisor;

// Set by the signal handler; read by the wait loop. The self-pipe wakes a poll() that is waiting.
volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_signal_count = 0;  // every SIGINT/SIGTERM/SIGHUP, for lock waits
int g_wake_pipe[2] = {-1, -1};
int g_guard_depth = 0;
struct sigaction g_old_int {};
struct sigaction g_old_term {};
struct sigaction g_old_hup {};

int signal_count() {
  return g_signal_count;
}

void on_signal(int sig) {
  if (g_signal == 0) g_signal = sig;
  g_signal_count = g_signal_count + 1;
  const int saved = errno;
  if (g_wake_pipe[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] ssize_t n = write(g_wake_pipe[1], &byte, 1);
  }
  errno = saved;
}

class Fd {
 public:
  explicit Fd(int fd = -1) : m_fd(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return m_fd; }
  void reset(int fd = -1) {
    if (m_fd >= 0) close(m_fd);
    m_fd = fd;
  }

 private:
  int m_fd;
};

// Keeps the last `limit` bytes of a stream without unbounded growth.
class TailBuffer {
 public:
  explicit TailBuffer(std::size_t limit) : m_limit(limit) {}
  void append(const char* data, std::size_t n) {
    m_text.append(data, n);
    if (m_text.size() > 2 * m_limit + 4096) trim();
  }
  void trim() {
    if (m_text.size() > m_limit) {
      m_text.erase(0, m_text.size() - m_limit);
      m_truncated = true;
    }
  }
  std::string& text() { return m_text; }
  bool truncated() const { return m_truncated; }

 private:
  std::size_t m_limit;
  std::string m_text;
  bool m_truncated = false;
};

std::vector<std::string> build_environment(
    const std::vector<std::pair<std::string, std::string>>& additions) {
  std::map<std::string, std::string> overrides(additions.begin(), additions.end());
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    const auto eq = entry.find('=');
    const std::string key = entry.substr(0, eq);
    if (overrides.count(key)) continue;
    out.push_back(std::move(entry));
  }
  for (const auto& [k, v] : overrides) out.push_back(k + "=" + v);
  return out;
}

}  // namespace

std::string signal_name(int sig) {
  switch (sig) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    case SIGXCPU:
      return "SIGXCPU";
    default:
      return "signal " + std::to_string(sig);
  }
}

InterruptGuard::InterruptGuard() {
  if (g_guard_depth++ > 0) return;  // nested: the outer guard's handlers stay
  g_signal = 0;
  if (pipe2(g_wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    g_wake_pipe[0] = g_wake_pipe[1] = -1;
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking call returns EINTR and the loop re-checks
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
  sigaction(SIGHUP, &sa, &g_old_hup);  // a dropped SSH session stops the run like SIGTERM
  results::set_busy_interrupt_counter(&signal_count);
}

InterruptGuard::~InterruptGuard() {
  if (--g_guard_depth > 0) return;
  results::set_busy_interrupt_counter(nullptr);
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGHUP, &g_old_hup, nullptr);
  for (int& fd : g_wake_pipe) {
    if (fd >= 0) close(fd);
    fd = -1;
  }
  g_signal = 0;
}

int interrupt_signal() {
  return g_signal;
}

int interrupt_count() {
  return signal_count();
}

void request_interrupt(int sig) {
  on_signal(sig);
}

ProcessResult run_process(const ProcessSpec& spec) {
  if (spec.argv.empty()) throw infrastructure("internal: run_process without argv");
  ProcessResult result;

  // Everything the child needs is prepared before fork: no allocation after it.
  const ProcessTag tag = next_process_tag();
  std::vector<std::pair<std::string, std::string>> env = spec.env;
  env.emplace_back(std::string(tag.entry, tag.length), "1");
  std::vector<std::string> env_strings = build_environment(env);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings = spec.argv;
  std::vector<char*> argv;
  for (auto& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  const std::string out_path = spec.stdout_path.empty() ? "/dev/null" : spec.stdout_path.string();
  Fd out_fd(open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (out_fd.get() < 0) {
    throw infrastructure("cannot open '" + out_path + "' for a suite's output", errno_text(errno),
                         "check that the temporary directory is writable (TMPDIR)");
  }
  int err_pipe[2];
  int exec_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw infrastructure("cannot create a pipe", errno_text(errno), "raise the open-file limit");
  }
  Fd err_read(err_pipe[0]);
  Fd err_write(err_pipe[1]);
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) {
    throw infrastructure("cannot create a pipe", errno_text(errno), "raise the open-file limit");
  }
  Fd exec_read(exec_pipe[0]);
  Fd exec_write(exec_pipe[1]);
  const double start = monotonic_seconds();
  detail::SuiteLaunch launch;
  launch.argv = argv.data();
  launch.envp = envp.data();
  launch.stdout_fd = out_fd.get();
  launch.stderr_fd = err_write.get();
  launch.exec_error_fd = exec_write.get();
  // The suite is forked by a supervisor that reaps and kills whatever it leaves behind
  // (process_detail.hpp); `pid` is the suite, its process group's leader.
  Supervisor supervisor = detail::start_supervisor(launch, tag);
  const pid_t pid = supervisor.suite;
  err_write.reset();
  exec_write.reset();
  out_fd.reset();

  int exec_errno = 0;
  {
    // Closed on a successful exec (CLOEXEC), so this read returns 0 bytes then.
    ssize_t n;
    do {
      n = read(exec_read.get(), &exec_errno, sizeof exec_errno);
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(sizeof exec_errno)) exec_errno = 0;
  }
  fcntl(err_read.get(), F_SETFL, O_NONBLOCK);

  TailBuffer tail(spec.stderr_tail_bytes);
  bool stderr_open = true;
  bool reaped = false;
  int status = 0;
  double kill_at = -1;  // monotonic time at which SIGKILL follows a SIGTERM/SIGINT
  const double deadline = spec.timeout_s > 0 ? start + spec.timeout_s : -1;
  char buf[8192];

  auto stop_group = [&](int sig) {
    kill(-pid, sig);
    kill_at = monotonic_seconds() + spec.kill_grace_s;
  };

  while (!reaped) {
    const double now = monotonic_seconds();
    if (result.interrupt_signal == 0 && g_signal != 0) {
      result.interrupt_signal = g_signal;
      if (kill_at < 0) stop_group(g_signal);
    }
    if (deadline > 0 && now >= deadline && !result.timed_out && result.interrupt_signal == 0) {
      result.timed_out = true;
      stop_group(SIGTERM);
    }
    if (kill_at >= 0 && now >= kill_at) {
      kill(-pid, SIGKILL);
      kill_at = now + 3600;  // once
    }
    // Sleep until stderr has data, a signal arrives, or the next deadline; short sleeps once
    // stderr is closed (a grandchild may hold it, or the child closed it early).
    double wait_s = stderr_open ? 0.2 : 0.005;
    if (deadline > 0 && !result.timed_out) wait_s = std::min(wait_s, std::max(0.0, deadline - now));
    if (kill_at >= 0) wait_s = std::min(wait_s, std::max(0.0, kill_at - now));
    pollfd fds[3];
    nfds_t nfds = 0;
    if (stderr_open) fds[nfds++] = {err_read.get(), POLLIN, 0};
    if (g_wake_pipe[0] >= 0) fds[nfds++] = {g_wake_pipe[0], POLLIN, 0};
    fds[nfds++] = {supervisor.report_fd, POLLIN, 0};
    const int rc = poll(fds, nfds, static_cast<int>(wait_s * 1000) + 1);
    if (rc > 0) {
      for (nfds_t i = 0; i < nfds; ++i) {
        if (!fds[i].revents) continue;
        if (fds[i].fd == err_read.get()) {
          for (;;) {
            const ssize_t n = read(err_read.get(), buf, sizeof buf);
            if (n > 0) {
              tail.append(buf, static_cast<std::size_t>(n));
              continue;
            }
            if (n == 0) stderr_open = false;  // EOF
            break;                            // EAGAIN / EINTR: back to poll
          }
        } else if (fds[i].fd == g_wake_pipe[0]) {
          while (read(g_wake_pipe[0], buf, sizeof buf) > 0) {
          }
        }  // the supervisor's report: read below
      }
    }
    if (const std::optional<int> st = detail::poll_suite_status(supervisor)) {
      status = *st;
      reaped = true;
    }
  }
  result.duration_s = monotonic_seconds() - start;
  // Whatever the child left in the pipe, without blocking on grandchildren that still hold it.
  for (;;) {
    const ssize_t n = read(err_read.get(), buf, sizeof buf);
    if (n <= 0) break;
    tail.append(buf, static_cast<std::size_t>(n));
  }
  // The supervisor killed the group, what left it and what was handed to it before it reported.
  detail::finish_supervisor(supervisor);

  tail.trim();
  result.stderr_tail = std::move(tail.text());
  result.stderr_truncated = tail.truncated();
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  if (exec_errno != 0) {
    result.spawn_error = "cannot execute '" + spec.argv[0] + "': " + errno_text(exec_errno);
  }
  return result;
}

}  // namespace gpubench::harness
