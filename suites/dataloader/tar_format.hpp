// POSIX ustar (pax's "ustar" format, as GNU tar and Python's tarfile write it) for WebDataset
// shards: 512-byte headers with a checksum, file data padded to 512 bytes, two zero blocks at the
// end. WebDataset groups consecutive members <key>.<ext> into one sample by key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpubench::dataloader {

constexpr std::size_t k_tar_block = 512;

inline std::uint64_t tar_padded(std::uint64_t bytes) {
  return (bytes + k_tar_block - 1) / k_tar_block * k_tar_block;
}

// Appends a regular-file header for `name` (< 100 bytes) of `size` bytes (mode 0644, mtime 0,
// uid/gid 0, so the same dataset gives the same bytes). The data and its padding come next.
void append_tar_header(std::string& out, std::string_view name, std::uint64_t size);

struct TarMember {
  std::string_view name;  // view into the header
  std::uint64_t size = 0;
  bool end_of_archive = false;  // an all-zero block
};

// Parses one 512-byte header. Throws std::runtime_error naming what is wrong (checksum, magic,
// size field, type) for a corrupt header; the caller adds the file and offset.
TarMember parse_tar_header(const char* block);

}  // namespace gpubench::dataloader
