// Writing a dataset's files: each format's shard layout on disk, checksummed and fsynced, and
// the manifest that lists them (generate_dataset). JPEG datasets (wds, tfrecord) encode
// fill_image_rgb's images with TurboJPEG (jpeg_codec.hpp) on several threads.
#include "suites/dataloader/dataset.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "suites/dataloader/crc32c.hpp"
#include "suites/dataloader/dataset_detail.hpp"
#include "suites/dataloader/hdf5_io.hpp"
#include "suites/dataloader/jpeg_codec.hpp"
#include "suites/dataloader/npy.hpp"
#include "suites/dataloader/tar_format.hpp"
#include "suites/dataloader/text_codec.hpp"
#include "suites/dataloader/tf_example.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::dataloader {
namespace fs = std::filesystem;

namespace {

using detail::file_crc32c;
using detail::k_layout_version;

// Buffered writer that keeps the file's CRC32C and size, and fsyncs on close so the pages are
// clean (posix_fadvise(DONTNEED) cannot drop dirty pages, so cold-cache runs need this).
class FileWriter {
 public:
  FileWriter(const fs::path& path, std::string name) : m_path(path), m_name(std::move(name)) {
    m_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (m_fd < 0) {
      throw bad_input("cannot create '" + path.string() + "'", errno_text(errno),
                      "check that the data directory is writable");
    }
    m_buffer.reserve(k_buffer_bytes);
  }
  ~FileWriter() {
    if (m_fd >= 0) ::close(m_fd);
  }
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  void write(const void* data, std::size_t size) {
    const auto* p = static_cast<const char*>(data);
    if (m_buffer.size() + size > k_buffer_bytes) flush();
    if (size >= k_buffer_bytes) {
      write_through(p, size);
    } else {
      m_buffer.append(p, size);
    }
  }
  void write(std::string_view s) { write(s.data(), s.size()); }
  std::uint64_t bytes() const { return m_bytes + m_buffer.size(); }

  ManifestFile close() {
    flush();
    if (::fsync(m_fd) != 0) throw_io("fsync");
    ::close(m_fd);
    m_fd = -1;
    return {m_name, m_bytes, m_crc};
  }

 private:
  static constexpr std::size_t k_buffer_bytes = 4u << 20;

  void flush() {
    write_through(m_buffer.data(), m_buffer.size());
    m_buffer.clear();
  }
  void write_through(const char* p, std::size_t size) {
    m_crc = crc32c(p, size, m_crc);
    const std::uint64_t start = m_bytes;
    m_bytes += size;
    while (size > 0) {
      ssize_t n = ::write(m_fd, p, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw_io("write");
      p += n;
      size -= static_cast<std::size_t>(n);
    }
    // Start writeback now so the disk works while the next chunk is generated; the fsync in
    // close() then has little left to wait for.
    ::sync_file_range(m_fd, static_cast<off_t>(start), static_cast<off_t>(m_bytes - start),
                      SYNC_FILE_RANGE_WRITE);
  }
  [[noreturn]] void throw_io(const char* call) {
    const int err = errno;
    throw bad_input(std::string(call) + " of '" + m_path.string() + "' failed", errno_text(err),
                    err == ENOSPC ? "free disk space or point GPUBENCH_DATA_DIR elsewhere"
                                  : "check the data directory");
  }

  fs::path m_path;
  std::string m_name;
  int m_fd = -1;
  std::string m_buffer;
  std::uint64_t m_bytes = 0;
  std::uint32_t m_crc = 0;
};

// Encodes images [first, first + count) of a JPEG dataset into `out`, on up to `threads` threads
// (generation of a few thousand images is bound by the encoder, ~1-10 ms per image; each thread
// has its own TurboJPEG handle). The bytes do not depend on the thread that made them.
void encode_images(const DatasetSpec& spec, const JpegCodec& codec, std::uint64_t first,
                   std::size_t count, unsigned threads,
                   std::vector<std::vector<std::uint8_t>>& out) {
  out.resize(count);
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto work = [&] {
    std::vector<std::uint8_t> rgb(std::size_t{spec.image_width} * spec.image_height * 3);
    for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      try {
        const int w = static_cast<int>(spec.image_width);
        const int h = static_cast<int>(spec.image_height);
        fill_image_rgb(spec.seed, first + i, w, h, rgb);
        out[i] = codec.encode_rgb(rgb.data(), w, h, spec.jpeg_quality);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next = count;  // the others stop after their current image
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<std::size_t>(threads, count); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// A shard of a JPEG dataset (wds or tfrecord): images encoded in batches of a few per thread,
// so memory stays a few dozen images whatever the shard size.
void write_jpeg_shard(const fs::path& dir, const DatasetSpec& spec, const JpegCodec& codec,
                      std::uint64_t shard, std::vector<ManifestFile>& files) {
  const std::uint64_t n = spec.samples_in_shard(shard);
  const std::uint64_t first = shard * spec.samples_per_shard;
  const std::string name = shard_file_names(spec.format, shard)[0];
  const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
  const std::size_t batch = std::size_t{threads} * 4;
  FileWriter w(dir / name, name);
  const std::string zeros(k_tar_block, '\0');
  std::vector<std::vector<std::uint8_t>> images;
  std::string buffer;
  for (std::uint64_t done = 0; done < n; done += images.size()) {
    encode_images(spec, codec, first + done,
                  static_cast<std::size_t>(std::min<std::uint64_t>(batch, n - done)), threads,
                  images);
    for (std::size_t k = 0; k < images.size(); ++k) {
      const std::uint64_t index = first + done + k;
      const std::uint32_t label = sample_label(spec.seed, index);
      const std::vector<std::uint8_t>& jpeg = images[k];
      buffer.clear();
      if (spec.format == Format::wds) {
        const std::string key = wds_key(index);
        const std::string text = std::to_string(label);
        append_tar_header(buffer, key + ".cls", text.size());
        buffer += text;
        buffer.append(tar_padded(text.size()) - text.size(), '\0');
        append_tar_header(buffer, key + ".jpg", jpeg.size());
        w.write(buffer);
        w.write(jpeg.data(), jpeg.size());
        w.write(zeros.data(), tar_padded(jpeg.size()) - jpeg.size());
      } else {
        append_example(buffer, k_tfrecord_image_key, jpeg, k_tfrecord_label_key, label);
        const std::uint64_t length = buffer.size();
        const std::uint32_t length_crc = mask_crc(crc32c(&length, 8));
        const std::uint32_t data_crc = mask_crc(crc32c(buffer.data(), buffer.size()));
        w.write(&length, 8);
        w.write(&length_crc, 4);
        w.write(buffer);
        w.write(&data_crc, 4);
      }
    }
  }
  if (spec.format == Format::wds) {
    w.write(zeros);  // end of archive: two zero blocks
    w.write(zeros);
  }
  files.push_back(w.close());
}

void write_shard(const fs::path& dir, const DatasetSpec& spec, std::uint64_t shard,
                 std::vector<ManifestFile>& files) {
  const std::uint64_t n = spec.samples_in_shard(shard);
  const std::uint64_t first = shard * spec.samples_per_shard;
  const auto names = shard_file_names(spec.format, shard);
  std::vector<std::uint8_t> pixels(spec.record_bytes);
  std::vector<std::uint32_t> labels(n);
  for (std::uint64_t i = 0; i < n; ++i) labels[i] = sample_label(spec.seed, first + i);

  switch (spec.format) {
    case Format::raw: {
      FileWriter w(dir / names[0], names[0]);
      w.write(labels.data(), labels.size() * 4);
      const std::string pad(raw_pixel_offset(n) - n * 4, '\0');
      w.write(pad);
      for (std::uint64_t i = 0; i < n; ++i) {
        fill_sample_pixels(spec.seed, first + i, pixels);
        w.write(pixels.data(), pixels.size());
      }
      files.push_back(w.close());
      break;
    }
    case Format::record: {
      FileWriter w(dir / names[0], names[0]);
      std::vector<std::uint8_t> payload(4 + spec.record_bytes);
      for (std::uint64_t i = 0; i < n; ++i) {
        std::memcpy(payload.data(), &labels[i], 4);
        fill_sample_pixels(spec.seed, first + i,
                           std::span<std::uint8_t>(payload.data() + 4, spec.record_bytes));
        const std::uint64_t length = payload.size();
        const std::uint32_t length_crc = mask_crc(crc32c(&length, 8));
        const std::uint32_t data_crc = mask_crc(crc32c(payload.data(), payload.size()));
        w.write(&length, 8);
        w.write(&length_crc, 4);
        w.write(payload.data(), payload.size());
        w.write(&data_crc, 4);
      }
      files.push_back(w.close());
      break;
    }
    case Format::tfrecord: {
      FileWriter w(dir / names[0], names[0]);
      std::string payload;
      for (std::uint64_t i = 0; i < n; ++i) {
        fill_sample_pixels(spec.seed, first + i, pixels);
        payload.clear();
        append_example(payload, k_tfrecord_image_key, pixels, k_tfrecord_label_key, labels[i]);
        const std::uint64_t length = payload.size();
        const std::uint32_t length_crc = mask_crc(crc32c(&length, 8));
        const std::uint32_t data_crc = mask_crc(crc32c(payload.data(), payload.size()));
        w.write(&length, 8);
        w.write(&length_crc, 4);
        w.write(payload);
        w.write(&data_crc, 4);
      }
      files.push_back(w.close());
      break;
    }
    case Format::wds: {
      FileWriter w(dir / names[0], names[0]);
      const std::string zeros(k_tar_block, '\0');
      std::string block;
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::string key = wds_key(first + i);
        const std::string label = std::to_string(labels[i]);
        block.clear();
        append_tar_header(block, key + ".cls", label.size());
        block += label;
        block.append(tar_padded(label.size()) - label.size(), '\0');
        append_tar_header(block, key + ".bin", spec.record_bytes);
        w.write(block);
        fill_sample_pixels(spec.seed, first + i, pixels);
        w.write(pixels.data(), pixels.size());
        w.write(zeros.data(), tar_padded(pixels.size()) - pixels.size());
      }
      w.write(zeros);  // end of archive: two zero blocks
      w.write(zeros);
      files.push_back(w.close());
      break;
    }
    case Format::csv:
    case Format::jsonl: {
      FileWriter w(dir / names[0], names[0]);
      std::vector<std::uint64_t> offsets;
      offsets.reserve(n + 1);
      std::string line;
      for (std::uint64_t i = 0; i < n; ++i) {
        fill_sample_pixels(spec.seed, first + i, pixels);
        line.clear();
        if (spec.format == Format::csv) {
          append_csv_record(line, labels[i], pixels);
        } else {
          append_jsonl_record(line, labels[i], pixels);
        }
        offsets.push_back(w.bytes());
        w.write(line);
      }
      offsets.push_back(w.bytes());
      files.push_back(w.close());
      FileWriter idx(dir / names[1], names[1]);
      idx.write(offsets.data(), offsets.size() * 8);
      files.push_back(idx.close());
      break;
    }
    case Format::npy: {
      FileWriter w(dir / names[0], names[0]);
      w.write(make_npy_header("|u1", {n, spec.record_bytes}));
      for (std::uint64_t i = 0; i < n; ++i) {
        fill_sample_pixels(spec.seed, first + i, pixels);
        w.write(pixels.data(), pixels.size());
      }
      files.push_back(w.close());
      FileWriter l(dir / names[1], names[1]);
      l.write(make_npy_header("<u4", {n}));
      l.write(labels.data(), labels.size() * 4);
      files.push_back(l.close());
      break;
    }
    case Format::hdf5: {
      const fs::path path = dir / names[0];
      write_hdf5_shard(path, spec, shard);
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
      }
      files.push_back({names[0], fs::file_size(path), file_crc32c(path)});
      break;
    }
  }
}

nlohmann::json manifest_json(const Dataset& d) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : d.files)
    files.push_back({{"name", f.name}, {"bytes", f.bytes}, {"crc32c", f.crc32c}});
  nlohmann::json j = {{"layout_version", k_layout_version},
                      {"format", to_string(d.spec.format)},
                      {"seed", d.spec.seed},
                      {"record_bytes", d.spec.record_bytes},
                      {"samples", d.spec.samples},
                      {"samples_per_shard", d.spec.samples_per_shard},
                      {"pixels", "uniform random uint8 from splitmix64(seed, index)"},
                      {"files", files}};
  if (d.spec.is_jpeg()) {
    j["image_width"] = d.spec.image_width;
    j["image_height"] = d.spec.image_height;
    j["jpeg_quality"] = d.spec.jpeg_quality;
    j["pixels"] = "fill_image_rgb(seed, index) as JPEG, 4:2:0, by TurboJPEG";
  }
  return j;
}

// The codec for a JPEG dataset; throws with the loader's reason when libturbojpeg is missing
// (the cases ask JpegCodec::get() first and skip with that reason).
const JpegCodec& codec_for(const DatasetSpec& spec) {
  if (spec.format != Format::wds && spec.format != Format::tfrecord) {
    throw bad_input(std::string("JPEG dataset requested in format ") + to_string(spec.format),
                    "JPEG images are stored in wds and tfrecord datasets only",
                    "use format wds or tfrecord");
  }
  if (spec.image_height == 0 || spec.image_width > 16384 || spec.image_height > 16384 ||
      spec.jpeg_quality < 1 || spec.jpeg_quality > 100) {
    throw bad_input("JPEG dataset of " + std::to_string(spec.image_width) + "x" +
                        std::to_string(spec.image_height) + " images at quality " +
                        std::to_string(spec.jpeg_quality),
                    "width and height must be 1..16384 and quality 1..100");
  }
  std::string reason;
  const JpegCodec* codec = JpegCodec::get(&reason);
  if (codec == nullptr) {
    throw infrastructure("cannot generate the JPEG dataset " + spec.directory_name(), reason,
                         "install libturbojpeg (Debian/Ubuntu: libturbojpeg0, RHEL: turbojpeg) "
                         "or name its directory in GPUBENCH_TURBOJPEG_LIBS");
  }
  return *codec;
}

}  // namespace

Dataset generate_dataset(const fs::path& dir, const DatasetSpec& spec) {
  if (spec.samples == 0 || (spec.record_bytes == 0 && !spec.is_jpeg()) ||
      spec.samples_per_shard == 0) {
    throw bad_input("empty dataset requested",
                    "samples, record_bytes and samples_per_shard must be > 0");
  }
  const JpegCodec* codec = spec.is_jpeg() ? &codec_for(spec) : nullptr;
  fs::create_directories(dir);
  Dataset d{spec, dir, {}};
  for (std::uint64_t s = 0; s < spec.shard_count(); ++s) {
    if (codec != nullptr) {
      write_jpeg_shard(dir, spec, *codec, s, d.files);
    } else {
      write_shard(dir, spec, s, d.files);
    }
  }
  write_file_atomic(dir / "manifest.json", manifest_json(d).dump(2));
  return d;
}

}  // namespace gpubench::dataloader
