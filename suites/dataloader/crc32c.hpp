// CRC32C (Castagnoli), the checksum TFRecord-style record files carry per record. Hardware
// instruction (SSE4.2) when the CPU has it, table-driven slice-by-8 otherwise; both give the same
// value, so files written on one machine verify on another.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpubench::dataloader {

// CRC32C of `size` bytes, continuing from `crc` (0 to start).
std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc = 0);
// The table-driven version, exposed so a test can check the hardware path against it.
std::uint32_t crc32c_portable(const void* data, std::size_t size, std::uint32_t crc = 0);

// TFRecord masks stored CRCs so that a CRC of data that itself contains CRCs stays well mixed.
inline std::uint32_t mask_crc(std::uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

}  // namespace gpubench::dataloader
