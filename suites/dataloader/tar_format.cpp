#include "suites/dataloader/tar_format.hpp"

#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace gpubench::dataloader {
namespace {

// ustar header fields: offset and width in bytes (POSIX.1-1988 / pax "ustar Interchange Format").
constexpr std::size_t k_name = 0, k_name_len = 100;
constexpr std::size_t k_mode = 100;
constexpr std::size_t k_uid = 108;
constexpr std::size_t k_gid = 116;
constexpr std::size_t k_size = 124, k_size_len = 12;
constexpr std::size_t k_mtime = 136;
constexpr std::size_t k_chksum = 148, k_chksum_len = 8;
constexpr std::size_t k_typeflag = 156;
constexpr std::size_t k_magic = 257;

// The checksum: the sum of the header's bytes as unsigned values, the checksum field counted as
// eight spaces.
std::uint32_t header_checksum(const unsigned char* h) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < k_tar_block; ++i) {
    sum += (i >= k_chksum && i < k_chksum + k_chksum_len) ? ' ' : h[i];
  }
  return sum;
}

void put_octal(char* field, std::size_t width, std::uint64_t value) {
  // width - 1 octal digits, zero-padded, then NUL.
  std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1),
                static_cast<unsigned long long>(value));
}

// Octal digits, leading spaces allowed, ended by NUL, space or the field's end.
bool parse_octal(const char* field, std::size_t width, std::uint64_t& value) {
  std::size_t i = 0;
  while (i < width && field[i] == ' ') ++i;
  value = 0;
  std::size_t digits = 0;
  for (; i < width && field[i] >= '0' && field[i] <= '7'; ++i, ++digits) {
    value = value * 8 + static_cast<std::uint64_t>(field[i] - '0');
  }
  for (; i < width; ++i) {
    if (field[i] != '\0' && field[i] != ' ') return false;
  }
  return digits > 0;
}

}  // namespace

void append_tar_header(std::string& out, std::string_view name, std::uint64_t size) {
  if (name.size() >= k_name_len) throw std::runtime_error("tar member name too long");
  char h[k_tar_block] = {};
  std::memcpy(h + k_name, name.data(), name.size());
  put_octal(h + k_mode, 8, 0644);
  put_octal(h + k_uid, 8, 0);
  put_octal(h + k_gid, 8, 0);
  put_octal(h + k_size, k_size_len, size);
  put_octal(h + k_mtime, 12, 0);
  h[k_typeflag] = '0';
  std::memcpy(h + k_magic,
              "ustar\0"
              "00",
              8);  // magic "ustar\0", version "00"
  const std::uint32_t sum = header_checksum(reinterpret_cast<const unsigned char*>(h));
  // Six octal digits, NUL, space: what GNU tar and Python's tarfile write.
  std::snprintf(h + k_chksum, 7, "%06o", sum);
  h[k_chksum + 6] = '\0';
  h[k_chksum + 7] = ' ';
  out.append(h, k_tar_block);
}

TarMember parse_tar_header(const char* block) {
  const auto* u = reinterpret_cast<const unsigned char*>(block);
  TarMember m;
  bool zero = true;
  for (std::size_t i = 0; i < k_tar_block && zero; ++i) zero = u[i] == 0;
  if (zero) {
    m.end_of_archive = true;
    return m;
  }
  std::uint64_t stored = 0;
  if (!parse_octal(block + k_chksum, k_chksum_len, stored)) {
    throw std::runtime_error("tar header checksum field is not octal");
  }
  const std::uint32_t actual = header_checksum(u);
  if (stored != actual) {
    throw std::runtime_error("tar header checksum mismatch (stored " + std::to_string(stored) +
                             ", computed " + std::to_string(actual) + ")");
  }
  if (std::memcmp(block + k_magic, "ustar", 5) != 0) {
    throw std::runtime_error("tar header has no ustar magic");
  }
  if (block[k_typeflag] != '0' && block[k_typeflag] != '\0') {
    throw std::runtime_error(std::string("tar member is not a regular file (type '") +
                             block[k_typeflag] + "')");
  }
  if (!parse_octal(block + k_size, k_size_len, m.size)) {
    throw std::runtime_error("tar header size field is not octal");
  }
  m.name = std::string_view(block + k_name, strnlen(block + k_name, k_name_len));
  return m;
}

}  // namespace gpubench::dataloader
