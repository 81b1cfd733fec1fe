// File helpers. Writes are atomic: a temp file in the same directory, fsync, then rename, so a
// reader never sees half a file and a crash never leaves one behind.
#pragma once

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench {

// Whole file as bytes. Throws Error(bad_input) naming the path and the OS reason.
std::string read_file(const std::filesystem::path& path);

// Most bytes of the small text inputs (prices, weights files) read_file_at_most is given.
inline constexpr std::size_t k_max_input_file_bytes = std::size_t{1} << 20;
// `path`'s bytes, at most `max_bytes` of them: Error(bad_input) naming `option` when it holds
// more (a device such as /dev/zero never ends), is a directory, or cannot be read.
std::string read_file_at_most(const std::filesystem::path& path, std::size_t max_bytes,
                              const std::string& option);

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
  // Buffered writes to a descriptor that keep the first failed write's errno, so a full disk
  // says "No space left on device", not the stream's "Input/output error" (issue 43).
  class FdBuffer : public std::streambuf {
   public:
    explicit FdBuffer(int fd) : m_fd(fd), m_data(std::size_t{1} << 16) {
      setp(m_data.data(), m_data.data() + m_data.size());
    }
    int error() const { return m_error; }
    bool flush_all();

   protected:
    int_type overflow(int_type c) override;
    int sync() override { return flush_all() ? 0 : -1; }

   private:
    int m_fd;
    int m_error = 0;
    std::vector<char> m_data;
  };

  std::filesystem::path m_path;
  std::string m_temp;       // empty once committed
  bool m_in_place = false;  // a device, pipe or symlink: written where it is (no rename)
  int m_fd = -1;
  std::unique_ptr<FdBuffer> m_buffer;
  std::ostream m_out{nullptr};
};

// True when `a` and `b` name one file: the same device and inode once symlinks are resolved
// (hard links, bind mounts, "./x" and "x" included), or, when either does not exist yet, the
// same path once the links of its existing part are resolved. Never throws.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// True when `path`, symlinks resolved, is a regular file or does not exist yet (a new file
// would be one); false for a device, a FIFO, a socket or a directory (issue 43: files derived
// from an output's name, such as a report's sidecar CSV, belong only beside a regular file).
bool regular_or_new_file(const std::filesystem::path& path);

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
