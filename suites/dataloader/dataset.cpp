// The synthetic dataset: formats and specs, the samples (seeded, reproducible), shard file names,
// file checksums. Writing a dataset is dataset_writer.cpp's, the cache of generated datasets
// dataset_cache.cpp's; both call this file, which calls neither.
#include "suites/dataloader/dataset.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
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
  // JPEG datasets name the image size and quality where the others name record_bytes.
  const std::string sample = is_jpeg() ? "-jpeg" + std::to_string(image_width) + "x" +
                                             std::to_string(image_height) + "q" +
                                             std::to_string(jpeg_quality)
                                       : "-r" + std::to_string(record_bytes);
  return std::string(to_string(format)) + sample + "-n" + std::to_string(samples) + "-p" +
         std::to_string(samples_per_shard) + "-s" + std::to_string(seed) + "-v" +
         std::to_string(k_layout_version);
}

namespace detail {
std::uint64_t jpeg_bytes_bound(const DatasetSpec& spec) {
  const std::uint64_t pixels = std::uint64_t{spec.image_width} * spec.image_height;
  // fill_image_rgb's images at quality <= 90 measured at most 0.65 bytes per pixel (both sizes,
  // 200 images each; tests/dataloader/test_jpeg.cpp checks the bound); above 90 take
  // TurboJPEG's own worst case for 4:2:0 (tjBufSize: 3 bytes per pixel). 2 KiB: the headers and
  // Huffman tables of a small image.
  return (spec.jpeg_quality <= 90 ? pixels : 3 * pixels) + 2048;
}
}  // namespace detail

std::uint64_t DatasetSpec::estimated_disk_bytes() const {
  std::uint64_t total = 0;
  for (std::uint64_t s = 0; s < shard_count(); ++s) {
    const std::uint64_t n = samples_in_shard(s);
    if (is_jpeg()) {
      // An upper bound: each image at jpeg_bytes_bound, plus the framing below (tfrecord) or
      // three tar blocks and the padding (wds).
      const std::uint64_t jpeg = detail::jpeg_bytes_bound(*this);
      total += format == Format::wds ? n * (3 * k_tar_block + tar_padded(jpeg)) + 2 * k_tar_block
                                     : n * (16 + 64 + jpeg);
      continue;
    }
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

// --- images (issue 41) ----------------------------------------------------------------------
// fill_image_rgb draws what a photograph holds, in integer arithmetic so every build and compiler
// gives the same pixels: a smooth colour gradient (sky, walls), soft light and shade (value noise
// on a 64 px lattice), mid-frequency texture (8, 4 and 2 px lattices: foliage, fabric), a few
// solid shapes with hard edges (objects), and per-pixel noise (sensor grain). The
// amplitudes are tuned so a 500x375 image at JPEG quality 90 with 4:2:0 is about 110 KB,
// ImageNet's mean file size (figures in jpeg_codec.hpp; tests/dataloader/test_jpeg.cpp checks).
namespace gpubench::dataloader {
namespace {

// Value noise: random values on a lattice every 2^cell_log2 pixels, bilinearly interpolated.
// Values are 0..2*amplitude (non-negative, so the shifts below divide exactly); callers
// subtract `amplitude`.
class ValueNoise {
 public:
  ValueNoise(std::uint64_t& state, int width, int height, int cell_log2, int amplitude)
      : m_log2(cell_log2),
        m_amplitude(amplitude),
        m_columns((width >> cell_log2) + 2),
        m_lattice(static_cast<std::size_t>(m_columns) *
                  static_cast<std::size_t>((height >> cell_log2) + 2)),
        m_row(static_cast<std::size_t>(m_columns)) {
    for (int& v : m_lattice) v = static_cast<int>(splitmix64(state) % (2u * amplitude + 1u));
  }
  int amplitude() const { return m_amplitude; }
  // Interpolates between lattice rows for pixel row y (call before at() for that row).
  void start_row(int y) {
    const int cell = 1 << m_log2;
    const int fy = y & (cell - 1);
    const int* top = &m_lattice[static_cast<std::size_t>((y >> m_log2) * m_columns)];
    const int* bottom = top + m_columns;
    for (int i = 0; i < m_columns; ++i) m_row[i] = top[i] * (cell - fy) + bottom[i] * fy;
  }
  // 0..2*amplitude at column x of the current row.
  int at(int x) const {
    const int cell = 1 << m_log2;
    const int fx = x & (cell - 1);
    const int i = x >> m_log2;
    return (m_row[i] * (cell - fx) + m_row[i + 1] * fx) >> (2 * m_log2);
  }

 private:
  int m_log2;
  int m_amplitude;
  int m_columns;
  std::vector<int> m_lattice;
  std::vector<int> m_row;
};

std::uint8_t clamp_u8(int v) {
  return static_cast<std::uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

// Uniform in [lo, hi].
int uniform(std::uint64_t& state, int lo, int hi) {
  return lo + static_cast<int>(splitmix64(state) % static_cast<std::uint64_t>(hi - lo + 1));
}

}  // namespace

void fill_image_rgb(std::uint64_t seed, std::uint64_t index, int width, int height,
                    std::span<std::uint8_t> rgb) {
  const std::size_t w = static_cast<std::size_t>(width);
  if (width <= 0 || height <= 0 || rgb.size() != w * static_cast<std::size_t>(height) * 3) {
    throw bad_input("image buffer of " + std::to_string(rgb.size()) + " bytes for a " +
                        std::to_string(width) + "x" + std::to_string(height) + " RGB image",
                    "it must hold width * height * 3 bytes");
  }
  std::uint64_t state = (seed ^ 0xbb67ae8584caa73bull) * 0x9e3779b97f4a7c15ull + index;
  // Gradient: each channel from a base at the top-left corner, in 1/65536 levels per pixel, so
  // it moves by up to +-40 levels across the image (kept small: clipped areas are flat, cheap).
  int base[3];
  int gx[3];
  int gy[3];
  for (int c = 0; c < 3; ++c) {
    base[c] = uniform(state, 90, 165) << 16;
    gx[c] = (uniform(state, -40, 40) << 16) / width;
    gy[c] = (uniform(state, -40, 40) << 16) / height;
  }
  // Texture weights per channel in 1/16 (a tint, so the texture is not grey).
  int weight[3];
  for (int& k : weight) k = uniform(state, 10, 20);
  ValueNoise light(state, width, height, 6, 24);   // soft light and shade, 64 px
  ValueNoise middle(state, width, height, 3, 40);  // mid-frequency texture, 8 px
  ValueNoise fine(state, width, height, 2, 80);    // fine texture, 4 px
  ValueNoise chroma(state, width, height, 5, 18);  // colour variation, 32 px
  ValueNoise detail(state, width, height, 1, 64);  // detail, 2 px
  for (int y = 0; y < height; ++y) {
    light.start_row(y);
    middle.start_row(y);
    fine.start_row(y);
    chroma.start_row(y);
    detail.start_row(y);
    std::uint8_t* row = rgb.data() + static_cast<std::size_t>(y) * w * 3;
    int g[3];
    for (int c = 0; c < 3; ++c) g[c] = base[c] + gy[c] * y;
    for (int x = 0; x < width; ++x) {
      const int t = light.at(x) - light.amplitude() + middle.at(x) - middle.amplitude() +
                    fine.at(x) - fine.amplitude() + detail.at(x) - detail.amplitude();
      const int ch = chroma.at(x) - chroma.amplitude();
      // >> 4: the weights' 1/16 (an arithmetic shift in C++20, also for negative t).
      row[3 * x + 0] = clamp_u8((g[0] >> 16) + ((t * weight[0]) >> 4) + ch);
      row[3 * x + 1] = clamp_u8((g[1] >> 16) + ((t * weight[1]) >> 4));
      row[3 * x + 2] = clamp_u8((g[2] >> 16) + ((t * weight[2]) >> 4) - ch);
      for (int c = 0; c < 3; ++c) g[c] += gx[c];
    }
  }
  // Objects: 6..12 ellipses and rectangles of one colour with hard edges, blended 5:3 over what
  // is under them so they keep some of its texture.
  const int shapes = uniform(state, 6, 12);
  for (int s = 0; s < shapes; ++s) {
    const bool ellipse = (splitmix64(state) & 1) != 0;
    const int cx = uniform(state, 0, width - 1);
    const int cy = uniform(state, 0, height - 1);
    const int rx = uniform(state, std::max(1, width / 20), std::max(1, width / 4));
    const int ry = uniform(state, std::max(1, height / 20), std::max(1, height / 4));
    int color[3];
    for (int& c : color) c = uniform(state, 0, 255);
    const std::int64_t rx2 = std::int64_t{rx} * rx;
    const std::int64_t ry2 = std::int64_t{ry} * ry;
    for (int y = std::max(0, cy - ry); y <= std::min(height - 1, cy + ry); ++y) {
      const std::int64_t dy = y - cy;
      std::uint8_t* row = rgb.data() + static_cast<std::size_t>(y) * w * 3;
      for (int x = std::max(0, cx - rx); x <= std::min(width - 1, cx + rx); ++x) {
        const std::int64_t dx = x - cx;
        if (ellipse && dx * dx * ry2 + dy * dy * rx2 > rx2 * ry2) continue;
        for (int c = 0; c < 3; ++c) {
          row[3 * x + c] = static_cast<std::uint8_t>((color[c] * 5 + row[3 * x + c] * 3) / 8);
        }
      }
    }
  }
  // Grain: +-28 levels of luminance noise plus +-4 per channel, one xorshift64* draw per pixel.
  // Most of the file's bytes come from here and the 2-4 px textures: JPEG at quality 90 keeps
  // much of them, as it keeps a photograph's fine detail.
  std::uint64_t x = splitmix64(state) | 1;
  for (std::size_t p = 0; p < w * static_cast<std::size_t>(height); ++p) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    const std::uint64_t r = x * 0x2545f4914f6cdd1dull;
    // Multiply-shift maps random bits onto 0..56 and 0..8 without a division.
    const int n = static_cast<int>(((r >> 40) * 57) >> 24) - 28;
    for (int c = 0; c < 3; ++c) {
      const int own = static_cast<int>((((r >> (16 + 8 * c)) & 0xff) * 9) >> 8) - 4;
      rgb[3 * p + c] = clamp_u8(rgb[3 * p + c] + n + own);
    }
  }
}

}  // namespace gpubench::dataloader
