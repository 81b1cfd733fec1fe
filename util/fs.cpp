#include "util/fs.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
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

std::string read_file_at_most(const std::filesystem::path& path, std::size_t max_bytes,
                              const std::string& option) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw bad_input("cannot read " + option + " '" + path.string() + "'", "it is a directory",
                    "give the path of a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw bad_input("cannot read " + option + " '" + path.string() + "'", errno_text(errno),
                    "check that the file exists and is readable");
  }
  std::string text(max_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    throw bad_input("cannot read " + option + " '" + path.string() + "'", "I/O error while reading",
                    "check the file and the disk");
  }
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_bytes) {
    throw bad_input(option + " '" + path.string() + "' is too big",
                    "it holds more than " + std::to_string(max_bytes) +
                        " bytes (a device or a wrong file?)",
                    "give the small text file it expects");
  }
  return text;
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

// True when `path` must be written where it is instead of replaced by a rename: a device, a
// pipe or a socket (/dev/full, /dev/null, a FIFO), or a symlink (/dev/stdout -> /proc/self/fd/1;
// a rename would replace the link, or as root the device node, with a plain file).
bool write_in_place(const std::filesystem::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return false;  // absent: a new file, atomically
  return S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode);
}

// Opens `path` for writing in place: truncated when it is (or leads to) a regular file.
int open_in_place(const std::filesystem::path& path) {
  struct stat st {};
  const bool regular = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (regular ? O_TRUNC : 0));
  if (fd < 0) {
    throw bad_input("cannot write '" + path.string() + "'", errno_text(errno),
                    "choose a writable output path");
  }
  return fd;
}

// The data did not reach the disk (full, I/O error): the machine's problem, not the command
// line's, so exit 3 as for the database (README "Exit codes").
[[noreturn]] void write_failed(const std::filesystem::path& path, int e) {
  throw infrastructure("cannot write '" + path.string() + "'", errno_text(e),
                       "check free disk space and the device the output goes to");
}

}  // namespace

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  const bool in_place = write_in_place(path);
  std::string temp;
  const int fd = in_place ? open_in_place(path) : make_temp_beside(path, temp);
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      if (!in_place) ::unlink(temp.c_str());
      write_failed(path, e);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (in_place) {
    // fsync of a pipe or a terminal fails with EINVAL: nothing to flush there.
    int e = ::fsync(fd) != 0 && errno != EINVAL && errno != EROFS ? errno : 0;
    if (::close(fd) != 0 && e == 0) e = errno;
    if (e != 0) write_failed(path, e);
    return;
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(temp.c_str());
    write_failed(path, e);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(temp.c_str());
    throw bad_input("cannot write '" + path.string() + "'", errno_text(e),
                    "choose a writable output path");
  }
}

bool AtomicFileWriter::FdBuffer::flush_all() {
  const char* p = pbase();
  while (m_error == 0 && p < pptr()) {
    const ssize_t n = ::write(m_fd, p, static_cast<std::size_t>(pptr() - p));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      m_error = n < 0 ? errno : EIO;
      break;
    }
    p += n;
  }
  setp(m_data.data(), m_data.data() + m_data.size());
  return m_error == 0;
}

AtomicFileWriter::FdBuffer::int_type AtomicFileWriter::FdBuffer::overflow(int_type c) {
  if (!flush_all()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

AtomicFileWriter::AtomicFileWriter(const std::filesystem::path& path) : m_path(path) {
  m_in_place = write_in_place(path);
  m_fd = m_in_place ? open_in_place(path) : make_temp_beside(path, m_temp);
  m_buffer = std::make_unique<FdBuffer>(m_fd);
  m_out.rdbuf(m_buffer.get());
}

AtomicFileWriter::~AtomicFileWriter() {
  if (m_fd >= 0) ::close(m_fd);
  if (!m_in_place && !m_temp.empty()) ::unlink(m_temp.c_str());
}

void AtomicFileWriter::commit() {
  m_out.flush();
  int e = m_buffer->error();
  if (e == 0 && !m_out) e = EIO;  // a formatting failure, not the disk's
  if (e == 0 && !m_in_place && ::fsync(m_fd) != 0) e = errno;
  if (::close(m_fd) != 0 && e == 0) e = errno;
  m_fd = -1;
  if (e != 0) write_failed(m_path, e);  // the destructor removes the temp file
  if (m_in_place) return;
  if (::rename(m_temp.c_str(), m_path.c_str()) != 0) {
    throw bad_input("cannot write '" + m_path.string() + "'", errno_text(errno),
                    "choose a writable output path");
  }
  m_temp.clear();
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  struct stat sa {
  }, sb{};
  const bool has_a = ::stat(a.c_str(), &sa) == 0;
  const bool has_b = ::stat(b.c_str(), &sb) == 0;
  if (has_a && has_b) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  const std::filesystem::path ca = std::filesystem::weakly_canonical(a, ea);
  const std::filesystem::path cb = std::filesystem::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

bool regular_or_new_file(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno == ENOENT;
  return S_ISREG(st.st_mode);
}

std::filesystem::path default_data_dir() {
  if (const char* env = std::getenv("GPUBENCH_DATA_DIR"); env && *env) return env;
  // The user's cache (XDG), not a shared /tmp path other users' runs could also write.
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') {
    return std::filesystem::path(xdg) / "gpubench";
  }
  if (const char* home = std::getenv("HOME"); home && *home == '/') {
    return std::filesystem::path(home) / ".cache" / "gpubench";
  }
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  return tmp / ("gpubench-data-" + std::to_string(::getuid()));
}

namespace {
// Each TempDir holds an flock on this file for as long as it lives; the kernel drops the lock
// when the process dies, however it dies (kill -9 included).
constexpr const char* k_temp_lock = ".gpubench-lock";

// Removes this user's "<prefix>.XXXXXX" directories in `root` left by processes that died: their
// lock file exists and nobody holds its lock. One without the file (its owner is between mkdtemp
// and the lock, or was a gpubench before locks) is removed only once it is a day old.
void remove_dead_temp_dirs(const std::filesystem::path& root, std::string_view prefix) {
  std::error_code ec;
  const std::string start = std::string(prefix) + ".";
  for (std::filesystem::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() != start.size() + 6 || name.rfind(start, 0) != 0) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) {
      continue;
    }
    const int fd = ::open((it->path() / k_temp_lock).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    const bool dead =
        fd >= 0 ? ::flock(fd, LOCK_EX | LOCK_NB) == 0 : ::time(nullptr) - st.st_mtime > 24 * 3600;
    if (dead) {
      std::error_code ignored;
      std::filesystem::remove_all(it->path(), ignored);  // unlocked when fd closes below
    }
    if (fd >= 0) ::close(fd);
  }
}
}  // namespace

TempDir::TempDir(std::string_view prefix, TempDirLock lock) {
  const char* base = std::getenv("TMPDIR");
  std::filesystem::path root = (base && *base) ? base : "/tmp";
  if (lock == TempDirLock::held) remove_dead_temp_dirs(root, prefix);
  std::string tmpl = (root / (std::string(prefix) + ".XXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  if (!mkdtemp(name.data())) {
    throw infrastructure("cannot create a temporary directory in '" + root.string() + "'",
                         errno_text(errno), "set TMPDIR to a writable directory");
  }
  m_path = name.data();
  if (lock != TempDirLock::held) return;
  // Locked under another name, then renamed: a sweeper never sees the lock file unlocked.
  // Best effort: without the lock the directory is only never swept by a later TempDir.
  const std::filesystem::path staged = m_path / ".gpubench-lock.new";
  m_lock_fd = ::open(staged.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (m_lock_fd >= 0 && (::flock(m_lock_fd, LOCK_EX | LOCK_NB) != 0 ||
                         ::rename(staged.c_str(), (m_path / k_temp_lock).c_str()) != 0)) {
    ::close(m_lock_fd);
    m_lock_fd = -1;
  }
}

void TempDir::release() noexcept {
  if (!m_path.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
    m_path.clear();
  }
  if (m_lock_fd >= 0) ::close(m_lock_fd);
  m_lock_fd = -1;
}

TempDir::~TempDir() {
  release();
}

TempDir::TempDir(TempDir&& other) noexcept
    : m_path(std::move(other.m_path)), m_lock_fd(other.m_lock_fd) {
  other.m_path.clear();
  other.m_lock_fd = -1;
}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    release();
    m_path = std::move(other.m_path);
    m_lock_fd = other.m_lock_fd;
    other.m_path.clear();
    other.m_lock_fd = -1;
  }
  return *this;
}

}  // namespace gpubench
