// File helpers. Writes are atomic: a temp file in the same directory, fsync, then rename, so a
// reader never sees half a file and a crash never leaves one behind.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace gpubench {

// Whole file as bytes. Throws Error(bad_input) naming the path and the OS reason.
std::string read_file(const std::filesystem::path& path);

// Replaces `path` atomically with `content`. Throws Error(bad_input) when the directory is not
// writable, naming the path and the OS reason.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

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
