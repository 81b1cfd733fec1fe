// The synthetic dataset: formats and specs, the samples (seeded, reproducible), shard file names,
// file checksums. Writing a dataset is dataset_writer.cpp's, the cache of generated datasets
// dataset_cache.cpp's; both call this file, which calls neither.
#include "suites/dataloader/dataset.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "suites/dataloader/crc32c.hpp"
#include "suites/dataloader/dataset_detail.hpp"
#include "suites/dataloader/tar_format.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace fs = std::filesystem;

namespace {

using detail::k_layout_version;

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

const char* to_string(Format format) {
  switch (format) {
    case Format::raw:
      return "raw";
    case Format::record:
      return "record";
    case Format::csv:
      return "csv";
    case Format::jsonl:
      return "jsonl";
    case Format::npy:
      return "npy";
    case Format::hdf5:
      return "hdf5";
    case Format::tfrecord:
      return "tfrecord";
    case Format::wds:
      return "wds";
  }
  return "raw";
}

Format format_from_string(const std::string& name) {
  for (Format f : all_formats()) {
    if (name == to_string(f)) return f;
  }
  throw bad_input("unknown dataset format '" + name + "'", {},
                  "use raw, record, csv, jsonl, npy, hdf5, tfrecord or wds");
}

const std::vector<Format>& all_formats() {
  static const std::vector<Format> f = {Format::raw,      Format::record, Format::csv,
                                        Format::jsonl,    Format::npy,    Format::hdf5,
                                        Format::tfrecord, Format::wds};
  return f;
}

std::uint64_t DatasetSpec::samples_in_shard(std::uint64_t shard) const {
  const std::uint64_t first = shard * samples_per_shard;
  if (first >= samples) return 0;
  return std::min(samples_per_shard, samples - first);
}

std::string DatasetSpec::directory_name() const {
  return std::string(to_string(format)) + "-r" + std::to_string(record_bytes) + "-n" +
         std::to_string(samples) + "-p" + std::to_string(samples_per_shard) + "-s" +
         std::to_string(seed) + "-v" + std::to_string(k_layout_version);
}

std::uint64_t DatasetSpec::estimated_disk_bytes() const {
  std::uint64_t total = 0;
  for (std::uint64_t s = 0; s < shard_count(); ++s) {
    const std::uint64_t n = samples_in_shard(s);
    switch (format) {
      case Format::raw:
        total += raw_pixel_offset(n) + n * record_bytes;
        break;
      case Format::record:
        total += n * record_stride(record_bytes);
        break;
      case Format::csv:
        total += n * (12 + 4 * record_bytes) + 8 * (n + 1);
        break;
      case Format::jsonl:
        total += n * (32 + 4 * record_bytes) + 8 * (n + 1);
        break;
      case Format::npy:
        total += 256 + n * (record_bytes + 4);
        break;
      case Format::hdf5:
        total += (64u << 10) + n * (record_bytes + 4);
        break;
      case Format::tfrecord:
        // Framing (16) plus the Example's tags, lengths and feature names (< 64).
        total += n * (16 + 64 + record_bytes);
        break;
      case Format::wds:
        // Three header blocks (.cls header, its padded data, .bin header) and padded pixels,
        // then the two end-of-archive blocks.
        total += n * (3 * k_tar_block + tar_padded(record_bytes)) + 2 * k_tar_block;
        break;
    }
  }
  return total;
}

std::uint32_t sample_label(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t state = seed * 0x2545f4914f6cdd1dull + index * 2 + 1;
  return static_cast<std::uint32_t>(splitmix64(state) % 1000);
}

void fill_sample_pixels(std::uint64_t seed, std::uint64_t index, std::span<std::uint8_t> pixels) {
  std::uint64_t state = (seed ^ 0x6a09e667f3bcc909ull) * 0x9e3779b97f4a7c15ull + index;
  std::uint64_t x = splitmix64(state) | 1;  // xorshift64* state, never zero
  std::size_t i = 0;
  for (; i + 8 <= pixels.size(); i += 8) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    const std::uint64_t v = x * 0x2545f4914f6cdd1dull;
    std::memcpy(pixels.data() + i, &v, 8);
  }
  if (i < pixels.size()) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    const std::uint64_t v = x * 0x2545f4914f6cdd1dull;
    std::memcpy(pixels.data() + i, &v, pixels.size() - i);
  }
}

std::vector<std::string> shard_file_names(Format format, std::uint64_t shard) {
  char base[32];
  std::snprintf(base, sizeof base, "shard-%05llu", static_cast<unsigned long long>(shard));
  const std::string b = base;
  switch (format) {
    case Format::raw:
      return {b + ".raw"};
    case Format::record:
      return {b + ".rec"};
    case Format::csv:
      return {b + ".csv", b + ".csv.idx"};
    case Format::jsonl:
      return {b + ".jsonl", b + ".jsonl.idx"};
    case Format::npy:
      return {b + ".images.npy", b + ".labels.npy"};
    case Format::hdf5:
      return {b + ".h5"};
    case Format::tfrecord:
      return {b + ".tfrecord"};
    case Format::wds:
      return {b + ".tar"};
  }
  return {};
}

std::string wds_key(std::uint64_t index) {
  char key[32];
  std::snprintf(key, sizeof key, "%09llu", static_cast<unsigned long long>(index));
  return key;
}

std::uint64_t raw_pixel_offset(std::uint64_t n) {
  return (n * 4 + 4095) / 4096 * 4096;
}

std::uint64_t Dataset::total_bytes() const {
  std::uint64_t t = 0;
  for (const auto& f : files) t += f.bytes;
  return t;
}

namespace detail {

std::uint32_t file_crc32c(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw bad_input("cannot open '" + path.string() + "'", errno_text(errno));
  std::vector<char> buf(1u << 20);
  std::uint32_t crc = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw bad_input("cannot read '" + path.string() + "'", errno_text(err));
    }
    if (n == 0) break;
    crc = crc32c(buf.data(), static_cast<std::size_t>(n), crc);
  }
  ::close(fd);
  return crc;
}

}  // namespace detail

}  // namespace gpubench::dataloader

// PLACEHOLDER (issue 41 contract): replaced by branch i41-jpeg.
namespace gpubench::dataloader {
void fill_image_rgb(std::uint64_t, std::uint64_t, int, int, std::span<std::uint8_t>) {
  throw infrastructure("generating an image", "not built yet (issue 41 placeholder)");
}
}  // namespace gpubench::dataloader
