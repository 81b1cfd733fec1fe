// How bytes get from a dataset file into memory. Three paths, one interface:
//   pread   one pread() per request (the worker threads are the parallelism)
//   mmap    the file mapped once (madvise MADV_SEQUENTIAL + MADV_WILLNEED), memcpy out of the map
//   uring   io_uring (liburing): each request split into 256 KiB reads, up to 8 in flight
// A ByteReader belongs to one worker thread; the OpenFile table is shared (read-only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace gpubench::dataloader {

enum class ReadPath { pread, mmap, uring };
const char* to_string(ReadPath path);
ReadPath read_path_from_string(const std::string& name);  // throws Error(bad_input)

// An open file: descriptor, size, and the mapping when the mmap path is used.
class OpenFile {
 public:
  OpenFile(const std::filesystem::path& path, bool map);
  ~OpenFile();
  OpenFile(const OpenFile&) = delete;
  OpenFile& operator=(const OpenFile&) = delete;

  int fd() const noexcept { return m_fd; }
  std::uint64_t size() const noexcept { return m_size; }
  const std::byte* map() const noexcept { return m_map; }
  const std::filesystem::path& path() const noexcept { return m_path; }

 private:
  std::filesystem::path m_path;
  int m_fd = -1;
  std::uint64_t m_size = 0;
  std::byte* m_map = nullptr;
};

class ByteReader {
 public:
  virtual ~ByteReader() = default;
  // Reads exactly `size` bytes at `offset` into `dest`. Throws Error(bad_input) naming the file
  // and offset when the file is shorter (a truncated shard) or the read fails.
  virtual void read(const OpenFile& file, std::uint64_t offset, std::size_t size, void* dest) = 0;
};

// One reader per worker thread. Throws Error(infrastructure) for uring when the kernel refuses
// io_uring (e.g. seccomp in containers), with the kernel's reason.
std::unique_ptr<ByteReader> make_byte_reader(ReadPath path);
// Empty when io_uring works here, else the reason it does not (probed once).
std::string uring_unavailable_reason();

}  // namespace gpubench::dataloader
