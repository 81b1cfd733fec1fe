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
// writable, naming the path and the OS reason.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// A file written in pieces (as output is produced) and put in place atomically by commit(): a
// temp file next to `path` (mode as write_file_atomic gives), fsynced and renamed over `path`.
// Destroyed without commit() (an exception while writing), the temp file is removed and `path`
// is untouched. Errors throw Error(bad_input) naming the path and the OS reason.
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
  std::string m_temp;  // empty once committed
  std::ofstream m_out;
};

// A fresh directory under the system temp dir (TMPDIR or /tmp), removed by the destructor.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "gpubench");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;

  const std::filesystem::path& path() const noexcept { return m_path; }

 private:
  std::filesystem::path m_path;
};

}  // namespace gpubench
