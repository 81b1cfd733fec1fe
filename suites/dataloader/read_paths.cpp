#include "suites/dataloader/read_paths.hpp"

#include <fcntl.h>
#include <liburing.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

[[noreturn]] void short_read(const OpenFile& f, std::uint64_t offset, std::size_t size) {
  throw bad_input("shard '" + f.path().string() + "' is truncated: need bytes " +
                      std::to_string(offset) + ".." + std::to_string(offset + size) +
                      " but it has " + std::to_string(f.size()),
                  "the file is shorter than its layout says",
                  "delete the dataset directory so it is regenerated");
}

void check_range(const OpenFile& f, std::uint64_t offset, std::size_t size) {
  if (offset + size > f.size()) short_read(f, offset, size);
}

class PreadReader final : public ByteReader {
 public:
  void read(const OpenFile& f, std::uint64_t offset, std::size_t size, void* dest) override {
    check_range(f, offset, size);
    auto* p = static_cast<char*>(dest);
    while (size > 0) {
      ssize_t n = ::pread(f.fd(), p, size, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        throw bad_input(
            "pread of '" + f.path().string() + "' at offset " + std::to_string(offset) + " failed",
            errno_text(errno));
      }
      if (n == 0) short_read(f, offset, size);
      p += n;
      offset += static_cast<std::uint64_t>(n);
      size -= static_cast<std::size_t>(n);
    }
  }
};

class MmapReader final : public ByteReader {
 public:
  void read(const OpenFile& f, std::uint64_t offset, std::size_t size, void* dest) override {
    check_range(f, offset, size);
    if (size == 0) return;
    if (!f.map()) throw infrastructure("mmap read path used on a file opened without a mapping");
    std::memcpy(dest, f.map() + offset, size);
  }
};

class UringReader final : public ByteReader {
 public:
  UringReader() {
    const int rc = io_uring_queue_init(k_depth, &m_ring, 0);
    if (rc < 0) {
      throw infrastructure("io_uring_queue_init failed", errno_text(-rc),
                           "the kernel or a seccomp policy refuses io_uring; use pread or mmap");
    }
  }
  ~UringReader() override { io_uring_queue_exit(&m_ring); }
  UringReader(const UringReader&) = delete;
  UringReader& operator=(const UringReader&) = delete;

  void read(const OpenFile& f, std::uint64_t offset, std::size_t size, void* dest) override {
    check_range(f, offset, size);
    auto* base = static_cast<char*>(dest);
    std::size_t next = 0;  // bytes of the request already submitted
    unsigned in_flight = 0;
    std::size_t done = 0;
    while (done < size) {
      while (in_flight < k_depth && next < size) {
        io_uring_sqe* sqe = io_uring_get_sqe(&m_ring);
        if (!sqe) break;
        const std::size_t len = std::min(k_chunk, size - next);
        io_uring_prep_read(sqe, f.fd(), base + next, static_cast<unsigned>(len), offset + next);
        io_uring_sqe_set_data64(sqe, next | (std::uint64_t{len} << 40));
        next += len;
        ++in_flight;
      }
      int rc = io_uring_submit_and_wait(&m_ring, 1);
      if (rc < 0 && rc != -EINTR) {
        throw infrastructure("io_uring_submit_and_wait failed", errno_text(-rc));
      }
      io_uring_cqe* cqe = nullptr;
      while (io_uring_peek_cqe(&m_ring, &cqe) == 0 && cqe) {
        const std::uint64_t tag = io_uring_cqe_get_data64(cqe);
        const std::size_t at = tag & ((std::uint64_t{1} << 40) - 1);
        const std::size_t len = tag >> 40;
        const int res = cqe->res;
        io_uring_cqe_seen(&m_ring, cqe);
        --in_flight;
        if (res < 0) {
          throw bad_input("io_uring read of '" + f.path().string() + "' at offset " +
                              std::to_string(offset + at) + " failed",
                          errno_text(-res));
        }
        if (res == 0) short_read(f, offset + at, len);
        const auto got = static_cast<std::size_t>(res);
        done += got;
        if (got < len) {
          // Short read: finish the remainder synchronously (rare: page cache boundary, signal).
          PreadReader tail;
          tail.read(f, offset + at + got, len - got, base + at + got);
          done += len - got;
        }
      }
    }
  }

 private:
  static constexpr unsigned k_depth = 8;
  static constexpr std::size_t k_chunk = 256u << 10;
  io_uring m_ring{};
};

}  // namespace

const char* to_string(ReadPath path) {
  switch (path) {
    case ReadPath::pread:
      return "pread";
    case ReadPath::mmap:
      return "mmap";
    case ReadPath::uring:
      return "uring";
  }
  return "pread";
}

ReadPath read_path_from_string(const std::string& name) {
  if (name == "pread") return ReadPath::pread;
  if (name == "mmap") return ReadPath::mmap;
  if (name == "uring") return ReadPath::uring;
  throw bad_input("unknown read path '" + name + "'", {}, "use pread, mmap or uring");
}

OpenFile::OpenFile(const std::filesystem::path& path, bool map) : m_path(path) {
  m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (m_fd < 0) {
    throw bad_input("cannot open shard '" + path.string() + "'", errno_text(errno),
                    "delete the dataset directory so it is regenerated");
  }
  struct stat st {};
  if (::fstat(m_fd, &st) != 0) {
    const int err = errno;
    ::close(m_fd);
    throw bad_input("cannot stat '" + path.string() + "'", errno_text(err));
  }
  m_size = static_cast<std::uint64_t>(st.st_size);
  if (map && m_size > 0) {
    void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_SHARED, m_fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(m_fd);
      throw infrastructure("mmap of '" + path.string() + "' failed", errno_text(err));
    }
    // Workers walk the file in batch order: read-ahead helps, and the pages are wanted soon.
    ::madvise(p, m_size, MADV_SEQUENTIAL);
    ::madvise(p, m_size, MADV_WILLNEED);
    m_map = static_cast<std::byte*>(p);
  }
}

OpenFile::~OpenFile() {
  if (m_map) ::munmap(m_map, m_size);
  if (m_fd >= 0) ::close(m_fd);
}

std::unique_ptr<ByteReader> make_byte_reader(ReadPath path) {
  switch (path) {
    case ReadPath::pread:
      return std::make_unique<PreadReader>();
    case ReadPath::mmap:
      return std::make_unique<MmapReader>();
    case ReadPath::uring:
      return std::make_unique<UringReader>();
  }
  return std::make_unique<PreadReader>();
}

std::string uring_unavailable_reason() {
  static const std::string reason = [] {
    io_uring ring{};
    const int rc = io_uring_queue_init(4, &ring, 0);
    if (rc < 0) return "io_uring_queue_init: " + errno_text(-rc);
    io_uring_queue_exit(&ring);
    return std::string();
  }();
  return reason;
}

}  // namespace gpubench::dataloader
