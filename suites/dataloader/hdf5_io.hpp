// HDF5 shards through Debian's libhdf5 (C API). Each shard file holds "images" (uint8,
// n x record_bytes, contiguous layout) and "labels" (uint32, n). libhdf5 serialises every call
// behind its own global lock (thread-safe build), so HDF5 workers do not read in parallel: that is
// a property of the format's library, and the suite measures it as such.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "suites/dataloader/dataset.hpp"

namespace gpubench::dataloader {

// libhdf5 is loaded at run time (hdf5_api.hpp), not linked. Empty when it is loaded, else why
// not: "libhdf5_serial.so.103 not found (searched: ...)", "... cannot be loaded (<dlerror>)", a
// missing symbol or too old a version. The HDF5 cases are skipped with it.
std::string hdf5_unavailable_reason();
// "libhdf5 1.10.8 (<path>)" when loaded, else empty.
std::string hdf5_library_text();

// Writes shard `shard` of `spec` to `path`. Throws Error on any HDF5 failure.
void write_hdf5_shard(const std::filesystem::path& path, const DatasetSpec& spec,
                      std::uint64_t shard);

// An open shard. Reads are thread-safe (libhdf5's lock).
class Hdf5Shard {
 public:
  explicit Hdf5Shard(const std::filesystem::path& path);  // checks the shapes it expects
  ~Hdf5Shard();
  Hdf5Shard(const Hdf5Shard&) = delete;
  Hdf5Shard& operator=(const Hdf5Shard&) = delete;

  std::uint64_t samples() const noexcept { return m_samples; }
  std::uint64_t record_bytes() const noexcept { return m_record_bytes; }
  // Reads samples [first, first + labels.size()) into labels and pixels (count x record_bytes).
  void read(std::uint64_t first, std::span<std::uint32_t> labels, std::span<std::uint8_t> pixels);

 private:
  std::filesystem::path m_path;
  std::int64_t m_file = -1;
  std::int64_t m_images = -1;
  std::int64_t m_labels = -1;
  std::uint64_t m_samples = 0;
  std::uint64_t m_record_bytes = 0;
};

}  // namespace gpubench::dataloader
