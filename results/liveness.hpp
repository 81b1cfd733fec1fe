// Liveness of running runs: is the gpubench that started a `running` run still alive?
//
// A run that is being written holds an flock on a small file next to the database,
// `<db>.run-<uuid>.lock` (opened O_CLOEXEC, so suites it starts do not inherit it). The kernel
// drops the lock when the process dies however it dies (SIGKILL, a dropped SSH session, a
// power-off of the process but not of the file system), so a later process that can take the
// lock knows the run's owner is gone. The run's row in `run_liveness` adds host, boot id and pid
// for people and for the fallback when the lock file is missing.
//
// Lock files on NFS work when the NFS client supports flock (Linux maps it to NFS byte-range
// locks); on a file system without locks the run is judged by host, boot id and pid only.
#pragma once

#include <filesystem>
#include <string>

namespace gpubench::results {

// `<db>.run-<uuid>.lock`.
std::filesystem::path run_lock_path(const std::filesystem::path& db_path, const std::string& uuid);

// This machine's boot id (/proc/sys/kernel/random/boot_id), "" when unknown.
std::string current_boot_id();

// An exclusive flock on a run's lock file, held from before the run row exists until the run is
// finished. The destructor releases the lock; it removes the file only after finished() (a run
// left unfinished keeps a free lock file, the evidence that its owner is gone). Move-only.
class RunLock {
 public:
  // Creates and locks the file. Throws Error(infrastructure) when it cannot (the database's
  // directory is not writable, or another process holds the lock).
  explicit RunLock(std::filesystem::path path);
  ~RunLock();
  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&&) = delete;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  const std::filesystem::path& path() const noexcept { return m_path; }
  // The run reached a final state: remove the file on destruction.
  void finished() noexcept { m_finished = true; }

 private:
  std::filesystem::path m_path;
  int m_fd = -1;
  bool m_finished = false;
};

// What is known about a running run's owner.
struct RunOwner {
  std::string lock_path;  // empty: none recorded
  std::string hostname;
  std::string boot_id;
  long long pid = 0;
};

// Verdict on a `running` run, with the evidence for people ("its lock file ... is not held").
struct Liveness {
  bool alive = false;
  std::string evidence;
};

// Judges without writing anything (read-only callers use it too): the lock file is held -> alive;
// it exists and is free -> dead; it is missing -> alive only when the recorded process on this
// host and boot still exists. No recorded owner at all (a run from gpubench 1.x) -> dead.
Liveness judge_run_owner(const RunOwner& owner);

}  // namespace gpubench::results
