#include "results/liveness.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <utility>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::results {

namespace fs = std::filesystem;

namespace {

std::string local_hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return {};
  return buf;
}

}  // namespace

fs::path run_lock_path(const fs::path& db_path, const std::string& uuid) {
  return fs::path(db_path.string() + ".run-" + uuid + ".lock");
}

std::string current_boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return std::string(trim(id));
}

RunLock::RunLock(fs::path path) : m_path(std::move(path)) {
  m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (m_fd < 0) {
    throw infrastructure("cannot create the run's lock file '" + m_path.string() + "'",
                         errno_text(errno),
                         "the directory of the database must be writable for `gpubench run`");
  }
  if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(m_fd);
    m_fd = -1;
    throw infrastructure("cannot lock the run's lock file '" + m_path.string() + "'",
                         errno_text(err), "another process uses this run id; retry");
  }
}

RunLock::~RunLock() {
  if (m_fd < 0) return;
  // Unlink while still holding the lock, so no one can take a lock on a file about to vanish.
  if (m_finished) ::unlink(m_path.c_str());
  ::close(m_fd);
}

RunLock::RunLock(RunLock&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_fd(std::exchange(other.m_fd, -1)),
      m_finished(other.m_finished) {}

Liveness judge_run_owner(const RunOwner& owner) {
  if (owner.lock_path.empty()) {
    return {false, "no owner was recorded (started by a gpubench without liveness locks)"};
  }
  const int fd = ::open(owner.lock_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd >= 0) {
    const bool free = ::flock(fd, LOCK_SH | LOCK_NB) == 0;
    const int err = errno;
    ::close(fd);  // drops the shared lock we may have taken
    if (free) {
      return {false, "its lock file '" + owner.lock_path + "' is no longer held by pid " +
                         std::to_string(owner.pid) + " on " + owner.hostname};
    }
    if (err == EWOULDBLOCK) return {true, "its lock file is held"};
    // A file system without flock: fall through to the process check.
  }
  const bool same_machine = owner.hostname == local_hostname() && !owner.boot_id.empty() &&
                            owner.boot_id == current_boot_id();
  if (!same_machine) {
    if (fd < 0) {
      return {false, "its lock file '" + owner.lock_path + "' is gone"};
    }
    return {true, "its owner runs on " + owner.hostname + " and cannot be checked from here"};
  }
  if (owner.pid > 0 && (::kill(static_cast<pid_t>(owner.pid), 0) == 0 || errno == EPERM)) {
    return {true, "its process " + std::to_string(owner.pid) + " still exists"};
  }
  return {false, "its process " + std::to_string(owner.pid) + " on " + owner.hostname +
                     " no longer exists"};
}

}  // namespace gpubench::results
