// File helpers. Writes are atomic: a temp file in the same directory, fsync, then rename, so a
// reader never sees half a file and a crash never leaves one behind.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace gpubench {

// Whole file as bytes. Throws Error(bad_input) naming the path and the OS reason.
std::string read_file(const std::filesystem::path& path);

// Replaces `path` atomically with `content`. Throws Error(bad_input) when the directory is not
// writable, Error(infrastructure) when the data could not be written (a full disk), naming the
// path and the OS reason. A device, pipe or symlink (/dev/full, /dev/stdout) is written in place:
// a rename would replace the node itself.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// A file written in pieces (as output is produced) and put in place atomically by commit(): a
// temp file next to `path` (mode as write_file_atomic gives), fsynced and renamed over `path`.
// Destroyed without commit() (an exception while writing), the temp file is removed and `path`
// is untouched. Errors throw as write_file_atomic's do; devices, pipes and symlinks are written
// in place as there.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::filesystem::path& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  std::ostream& stream() { return m_out; }
  void commit();

 private:
  std::filesystem::path m_path;
  std::string m_temp;       // empty once committed
  bool m_in_place = false;  // a device, pipe or symlink: written where it is (no rename)
  std::ofstream m_out;
};

// Where the dataloader suite keeps its datasets, and so where `gpubench doctor` looks:
// $GPUBENCH_DATA_DIR, else $XDG_CACHE_HOME/gpubench, else $HOME/.cache/gpubench (absolute
// values only), else gpubench-data-<uid> in the system temp dir. Not created here.
std::filesystem::path default_data_dir();

// TempDirLock::held: the directory holds a locked `.gpubench-lock` file while its TempDir lives,
// and creating one first removes the same prefix's directories whose lock nobody holds (left by a
// gpubench that was killed, kill -9 included: the kernel drops the lock with the process).
enum class TempDirLock { none, held };

// A fresh directory under the system temp dir (TMPDIR or /tmp), removed by the destructor.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "gpubench", TempDirLock lock = TempDirLock::none);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;

  const std::filesystem::path& path() const noexcept { return m_path; }

 private:
  void release() noexcept;
  std::filesystem::path m_path;
  int m_lock_fd = -1;  // flock held while alive; closed (unlocked) after the removal
};

}  // namespace gpubench
