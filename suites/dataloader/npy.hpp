// The NumPy .npy container (format version 1.0): a magic string, a little-endian u16 header
// length, and a Python-literal dict {'descr','fortran_order','shape'} padded so the data starts
// on a 64-byte boundary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench::dataloader {

struct NpyHeader {
  std::string descr;  // e.g. "|u1", "<u4"
  bool fortran_order = false;
  std::vector<std::uint64_t> shape;
  std::uint64_t data_offset = 0;  // bytes from the start of the file
};

std::string make_npy_header(const std::string& descr, const std::vector<std::uint64_t>& shape);
// Parses the header at the start of `bytes` (at least the first 10 bytes plus the header).
// Throws Error(bad_input) with `file` and the reason when it is not a valid v1/v2 header.
NpyHeader parse_npy_header(std::string_view bytes, const std::string& file);

}  // namespace gpubench::dataloader
