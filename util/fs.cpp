#include "util/fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include "util/error.hpp"

namespace gpubench {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw bad_input("cannot read '" + path.string() + "'", errno_text(errno),
                    "check that the file exists and is readable");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    throw bad_input("cannot read '" + path.string() + "'", "I/O error while reading",
                    "check the file and the disk");
  }
  return std::move(ss).str();
}

namespace {

// A new file beside `path` (same directory, so a rename replaces `path` atomically) with the mode
// a plain open() would give it (an existing file's mode; else 0666 less the umask: mkstemp's 0600
// would hide a report from the people it was written for). Returns its descriptor; `temp` gets
// its name. Throws Error(bad_input) when the directory is not writable.
int make_temp_beside(const std::filesystem::path& path, std::string& temp) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  std::string tmpl = (dir / ("." + path.filename().string() + ".tmp.XXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) {
    throw bad_input("cannot write '" + path.string() + "'", errno_text(errno),
                    "choose a writable output path");
  }
  struct stat existing {};
  mode_t mode = 0;
  if (::stat(path.c_str(), &existing) == 0) {
    mode = existing.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  (void)::fchmod(fd, mode);
  temp = name.data();
  return fd;
}

}  // namespace

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  std::string temp;
  const int fd = make_temp_beside(path, temp);
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw bad_input("cannot write '" + path.string() + "'", errno_text(e),
                      "check free disk space and permissions");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(temp.c_str());
    throw bad_input("cannot write '" + path.string() + "'", errno_text(e),
                    "check free disk space and permissions");
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(temp.c_str());
    throw bad_input("cannot write '" + path.string() + "'", errno_text(e),
                    "choose a writable output path");
  }
}

AtomicFileWriter::AtomicFileWriter(const std::filesystem::path& path) : m_path(path) {
  const int fd = make_temp_beside(path, m_temp);
  ::close(fd);
  m_out.open(m_temp, std::ios::binary | std::ios::trunc);
  if (!m_out) {
    const int e = errno;
    ::unlink(m_temp.c_str());
    m_temp.clear();
    throw bad_input("cannot write '" + path.string() + "'", errno_text(e),
                    "choose a writable output path");
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (m_temp.empty()) return;
  m_out.close();
  ::unlink(m_temp.c_str());
}

void AtomicFileWriter::commit() {
  m_out.flush();
  const bool written = static_cast<bool>(m_out);
  m_out.close();
  int e = written && m_out ? 0 : (errno != 0 ? errno : EIO);
  if (e == 0) {
    const int fd = ::open(m_temp.c_str(), O_WRONLY);
    if (fd < 0 || ::fsync(fd) != 0) e = errno;
    if (fd >= 0 && ::close(fd) != 0 && e == 0) e = errno;
  }
  if (e != 0) {
    throw bad_input("cannot write '" + m_path.string() + "'", errno_text(e),
                    "check free disk space and permissions");
  }
  if (::rename(m_temp.c_str(), m_path.c_str()) != 0) {
    throw bad_input("cannot write '" + m_path.string() + "'", errno_text(errno),
                    "choose a writable output path");
  }
  m_temp.clear();
}

TempDir::TempDir(std::string_view prefix) {
  const char* base = std::getenv("TMPDIR");
  std::filesystem::path root = (base && *base) ? base : "/tmp";
  std::string tmpl = (root / (std::string(prefix) + ".XXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  if (!mkdtemp(name.data())) {
    throw infrastructure("cannot create a temporary directory in '" + root.string() + "'",
                         errno_text(errno), "set TMPDIR to a writable directory");
  }
  m_path = name.data();
}

TempDir::~TempDir() {
  if (!m_path.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
}

TempDir::TempDir(TempDir&& other) noexcept : m_path(std::move(other.m_path)) {
  other.m_path.clear();
}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    if (!m_path.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(m_path, ec);
    }
    m_path = std::move(other.m_path);
    other.m_path.clear();
  }
  return *this;
}

}  // namespace gpubench
