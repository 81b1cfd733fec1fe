#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>

#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench {
namespace {

TEST(Fs, AtomicWriteThenRead) {
  TempDir dir("gpubench-test");
  auto p = dir.path() / "out.txt";
  write_file_atomic(p, "hello");
  EXPECT_EQ(read_file(p), "hello");
  write_file_atomic(p, "again");
  EXPECT_EQ(read_file(p), "again");
  // No temp files left behind.
  int n = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir.path())) ++n;
  EXPECT_EQ(n, 1);
}

TEST(Fs, AtomicWriteUsesTheUmaskNotMkstempMode) {
  TempDir dir("gpubench-test");
  auto p = dir.path() / "report.html";
  const mode_t old_mask = ::umask(022);
  write_file_atomic(p, "x");
  ::umask(old_mask);
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  // An existing file keeps its mode.
  ASSERT_EQ(::chmod(p.c_str(), 0600), 0);
  write_file_atomic(p, "y");
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(Fs, WriteIntoMissingDirectoryIsBadInput) {
  TempDir dir("gpubench-test");
  try {
    write_file_atomic(dir.path() / "nope" / "out.txt", "x");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos);
  }
}

TEST(Fs, ReadMissingFileNamesIt) {
  try {
    read_file("/nonexistent/gpubench/file.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("file.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpubench
