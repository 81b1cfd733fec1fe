// Internal to suites/dataloader/dataset*.cpp: what the cache (dataset.cpp) and the writer
// (dataset_writer.cpp) share.
#pragma once

#include <cstdint>
#include <filesystem>

#include "suites/dataloader/dataset.hpp"

namespace gpubench::dataloader::detail {

constexpr int k_layout_version = 1;  // bump when an on-disk layout changes

// An upper bound on the bytes of one of `spec`'s JPEG images (the free-space check).
std::uint64_t jpeg_bytes_bound(const DatasetSpec& spec);

// CRC32C of a whole file; throws Error(bad_input) naming it when it cannot be read.
std::uint32_t file_crc32c(const std::filesystem::path& path);

}  // namespace gpubench::dataloader::detail
