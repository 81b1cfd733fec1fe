#include "suites/dataloader/dataset_reader.hpp"

#include <cstring>

#include "suites/dataloader/crc32c.hpp"
#include "suites/dataloader/hdf5_io.hpp"
#include "suites/dataloader/npy.hpp"
#include "suites/dataloader/tar_format.hpp"
#include "suites/dataloader/text_codec.hpp"
#include "suites/dataloader/tf_example.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

[[noreturn]] void corrupt(const OpenFile& f, std::uint64_t offset, const std::string& why) {
  throw bad_input(
      "corrupt shard '" + f.path().string() + "' at byte offset " + std::to_string(offset), why,
      "delete the dataset directory so it is regenerated");
}

// The payload of the TFRecord record at byte `at` of `f` (its bytes at `rec`; the next record
// starts at `end`), after checking the length's and the payload's masked CRC32C.
std::string_view tfrecord_payload(const OpenFile& f, std::uint64_t at, const char* rec,
                                  std::uint64_t end) {
  std::uint64_t length = 0;
  std::uint32_t length_crc = 0;
  std::uint32_t data_crc = 0;
  std::memcpy(&length, rec, 8);
  std::memcpy(&length_crc, rec + 8, 4);
  if (mask_crc(crc32c(rec, 8)) != length_crc) corrupt(f, at, "record length checksum mismatch");
  if (length + 16 != end - at) {
    corrupt(f, at,
            "record length " + std::to_string(length) + " changed since the file was opened");
  }
  const char* payload = rec + 12;
  std::memcpy(&data_crc, payload + length, 4);
  if (mask_crc(crc32c(payload, length)) != data_crc) {
    corrupt(f, at, "record payload checksum mismatch (CRC32C)");
  }
  return {payload, length};
}

// The tar member whose header is at byte `at` of `f` (its bytes at `h`), checked to be a member
// of sample `key` that ends by `end` (where the next sample starts).
TarMember wds_member(const OpenFile& f, std::uint64_t at, const char* h, std::uint64_t end,
                     const std::string& key) {
  TarMember m;
  try {
    m = parse_tar_header(h);
  } catch (const std::runtime_error& e) {
    corrupt(f, at, e.what());
  }
  if (m.end_of_archive || at + k_tar_block + tar_padded(m.size) > end) {
    corrupt(f, at, "tar member does not fit its sample (changed since the file was opened)");
  }
  const std::string_view name = m.name;
  if (name.substr(0, name.find('.')) != key) {
    corrupt(f, at,
            "tar member '" + std::string(name) + "' where sample key " + key + " was expected");
  }
  return m;
}

// The label of a <key>.cls member (decimal ASCII) whose data starts at byte `at`.
std::uint32_t wds_label(const OpenFile& f, std::uint64_t at, const char* data, std::uint64_t size) {
  std::uint64_t label = 0;
  if (size == 0 || size > 10) corrupt(f, at, "label is not a number");
  for (std::uint64_t k = 0; k < size; ++k) {
    if (data[k] < '0' || data[k] > '9') corrupt(f, at + k, "label is not a decimal number");
    label = label * 10 + static_cast<std::uint64_t>(data[k] - '0');
  }
  return static_cast<std::uint32_t>(label);
}

}  // namespace

DatasetReader::DatasetReader(const Dataset& dataset, ReadPath path)
    : m_spec(dataset.spec), m_path(path) {
  const bool map = path == ReadPath::mmap;
  m_shards.resize(m_spec.shard_count());
  auto reader = make_byte_reader(ReadPath::pread);
  for (std::uint64_t s = 0; s < m_spec.shard_count(); ++s) {
    Shard& shard = m_shards[s];
    const std::uint64_t n = m_spec.samples_in_shard(s);
    const auto names = shard_file_names(m_spec.format, s);
    if (m_spec.format == Format::hdf5) {
      shard.hdf5 = std::make_unique<Hdf5Shard>(dataset.file(names[0]));
      if (shard.hdf5->samples() != n || shard.hdf5->record_bytes() != m_spec.record_bytes) {
        throw bad_input("HDF5 shard '" + dataset.file(names[0]).string() + "' has the wrong shape");
      }
      shard.files.push_back(std::make_unique<OpenFile>(dataset.file(names[0]), false));
      continue;
    }
    for (const auto& name : names) {
      shard.files.push_back(std::make_unique<OpenFile>(dataset.file(name), map));
    }
    switch (m_spec.format) {
      case Format::raw:
        shard.label_offset = 0;
        shard.data_offset = raw_pixel_offset(n);
        break;
      case Format::npy: {
        for (int k = 0; k < 2; ++k) {
          const OpenFile& f = *shard.files[static_cast<std::size_t>(k)];
          std::string head(std::min<std::uint64_t>(f.size(), 4096), '\0');
          reader->read(f, 0, head.size(), head.data());
          NpyHeader h = parse_npy_header(head, f.path().string());
          const bool ok = k == 0 ? (h.descr == "|u1" && h.shape.size() == 2 && h.shape[0] == n &&
                                    h.shape[1] == m_spec.record_bytes)
                                 : (h.descr == "<u4" && h.shape.size() == 1 && h.shape[0] == n);
          if (!ok || h.fortran_order) {
            throw bad_input("'" + f.path().string() + "' has dtype " + h.descr +
                            " or a shape this dataset does not expect");
          }
          (k == 0 ? shard.data_offset : shard.label_offset) = h.data_offset;
        }
        break;
      }
      case Format::csv:
      case Format::jsonl: {
        const OpenFile& idx = *shard.files[1];
        if (idx.size() != (n + 1) * 8) corrupt(idx, 0, "index has the wrong size");
        shard.line_offsets.resize(n + 1);
        reader->read(idx, 0, idx.size(), shard.line_offsets.data());
        for (std::uint64_t i = 0; i < n; ++i) {
          if (shard.line_offsets[i] >= shard.line_offsets[i + 1]) {
            corrupt(idx, i * 8, "line offsets are not increasing");
          }
        }
        if (shard.line_offsets[n] != shard.files[0]->size()) {
          corrupt(*shard.files[0], shard.files[0]->size(),
                  "file size " + std::to_string(shard.files[0]->size()) +
                      " differs from its index (" + std::to_string(shard.line_offsets[n]) +
                      "): truncated or appended");
        }
        break;
      }
      case Format::tfrecord:
        index_tfrecord(shard, n, *reader);
        break;
      case Format::wds:
        index_wds(shard, n, *reader);
        break;
      case Format::record:
      case Format::hdf5:
        break;
    }
  }
}

// Walks the record headers (length and its CRC), as a TFRecord reader without an index file
// does, so later reads of any sample are one read at a known offset.
void DatasetReader::index_tfrecord(Shard& shard, std::uint64_t n, ByteReader& reader) const {
  const OpenFile& f = *shard.files[0];
  std::uint64_t at = 0;
  shard.sample_offsets.reserve(n + 1);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (at + 12 > f.size()) corrupt(f, at, "truncated: record header past the end of the file");
    char head[12];
    reader.read(f, at, sizeof head, head);
    std::uint64_t length = 0;
    std::uint32_t length_crc = 0;
    std::memcpy(&length, head, 8);
    std::memcpy(&length_crc, head + 8, 4);
    if (mask_crc(crc32c(head, 8)) != length_crc) corrupt(f, at, "record length checksum mismatch");
    if (length > f.size() - at - 12 || f.size() - at - 12 - length < 4) {
      corrupt(f, at, "record length " + std::to_string(length) + " runs past the end of the file");
    }
    shard.sample_offsets.push_back(at);
    at += 12 + length + 4;
  }
  if (at != f.size()) {
    corrupt(f, at,
            std::to_string(f.size() - at) + " bytes after the last of " + std::to_string(n) +
                " records");
  }
  shard.sample_offsets.push_back(at);
}

// Walks the tar headers and groups members by key (WebDataset: consecutive <key>.<ext>).
void DatasetReader::index_wds(Shard& shard, std::uint64_t n, ByteReader& reader) const {
  const OpenFile& f = *shard.files[0];
  std::uint64_t at = 0;
  std::string key;
  char block[k_tar_block];
  for (;;) {
    if (at + k_tar_block > f.size()) corrupt(f, at, "truncated: no end-of-archive blocks");
    reader.read(f, at, k_tar_block, block);
    TarMember m;
    try {
      m = parse_tar_header(block);
    } catch (const std::runtime_error& e) {
      corrupt(f, at, e.what());
    }
    if (m.end_of_archive) break;
    const std::string_view name = m.name;
    const std::string member_key(name.substr(0, name.find('.')));
    if (shard.sample_offsets.empty() || member_key != key) {
      shard.sample_offsets.push_back(at);
      key = member_key;
    }
    at += k_tar_block + tar_padded(m.size);
    if (at > f.size()) corrupt(f, at - k_tar_block, "tar member runs past the end of the file");
  }
  if (shard.sample_offsets.size() != n) {
    corrupt(f, 0,
            "holds " + std::to_string(shard.sample_offsets.size()) + " samples, expected " +
                std::to_string(n));
  }
  shard.sample_offsets.push_back(at);
}

void DatasetReader::read_tfrecord(const Shard& shard, std::uint64_t index, std::size_t count,
                                  std::uint32_t* labels, std::uint8_t* pixels, ByteReader& reader,
                                  std::vector<char>& scratch) const {
  const OpenFile& f = *shard.files[0];
  const std::size_t rb = m_spec.record_bytes;
  const std::uint64_t base = shard.sample_offsets[index];
  scratch.resize(shard.sample_offsets[index + count] - base);
  reader.read(f, base, scratch.size(), scratch.data());
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t at = shard.sample_offsets[index + i];
    const std::string_view payload =
        tfrecord_payload(f, at, scratch.data() + (at - base), shard.sample_offsets[index + i + 1]);
    bool have_label = false;
    bool have_image = false;
    try {
      for (const ExampleFeature& feat : parse_example(payload)) {
        if (feat.key == k_tfrecord_label_key) {
          if (feat.int64s.size() != 1 || feat.int64s[0] < 0 || feat.int64s[0] > 0xffffffffll) {
            throw ProtoError("feature 'label' is not one uint32 in an int64_list", 0);
          }
          labels[i] = static_cast<std::uint32_t>(feat.int64s[0]);
          have_label = true;
        } else if (feat.key == k_tfrecord_image_key) {
          if (feat.bytes.size() != 1 || feat.bytes[0].size() != rb) {
            throw ProtoError(
                "feature 'image' is not one bytes value of " + std::to_string(rb) + " bytes", 0);
          }
          std::memcpy(pixels + i * rb, feat.bytes[0].data(), rb);
          have_image = true;
        }
      }
    } catch (const ProtoError& e) {
      corrupt(f, at + 12 + e.offset(), std::string("tf.train.Example: ") + e.what());
    }
    if (!have_label || !have_image) {
      corrupt(f, at + 12, "tf.train.Example lacks the 'image' or 'label' feature");
    }
  }
}

void DatasetReader::read_wds(const Shard& shard, std::uint64_t first_sample, std::uint64_t index,
                             std::size_t count, std::uint32_t* labels, std::uint8_t* pixels,
                             ByteReader& reader, std::vector<char>& scratch) const {
  const OpenFile& f = *shard.files[0];
  const std::size_t rb = m_spec.record_bytes;
  const std::uint64_t base = shard.sample_offsets[index];
  scratch.resize(shard.sample_offsets[index + count] - base);
  reader.read(f, base, scratch.size(), scratch.data());
  for (std::size_t i = 0; i < count; ++i) {
    const std::string key = wds_key(first_sample + i);
    std::uint64_t at = shard.sample_offsets[index + i];
    const std::uint64_t end = shard.sample_offsets[index + i + 1];
    bool have_label = false;
    bool have_image = false;
    while (at < end) {
      const char* h = scratch.data() + (at - base);
      const TarMember m = wds_member(f, at, h, end, key);
      const std::string_view name = m.name;
      const char* data = h + k_tar_block;
      const std::string_view ext = name.substr(std::min(name.size(), key.size()));
      if (ext == ".cls") {
        labels[i] = wds_label(f, at + k_tar_block, data, m.size);
        have_label = true;
      } else if (ext == ".bin") {
        if (m.size != rb) {
          corrupt(f, at,
                  "'" + std::string(name) + "' holds " + std::to_string(m.size) +
                      " bytes, expected " + std::to_string(rb));
        }
        std::memcpy(pixels + i * rb, data, rb);
        have_image = true;
      }
      at += k_tar_block + tar_padded(m.size);
    }
    if (!have_label || !have_image) {
      corrupt(f, shard.sample_offsets[index + i],
              "sample " + key + " lacks its .cls or .bin member");
    }
  }
}

std::uint32_t DatasetReader::read_encoded(std::uint64_t index, std::vector<std::uint8_t>& jpeg,
                                          ByteReader& reader, std::vector<char>& scratch) const {
  if (!m_spec.is_jpeg()) {
    throw bad_input("read_encoded on " + m_spec.directory_name(), "it is not a JPEG dataset",
                    "read its samples with read_samples");
  }
  if (index >= m_spec.samples) {
    throw bad_input("read past the end of the dataset: sample " + std::to_string(index) + " of " +
                    std::to_string(m_spec.samples));
  }
  const Shard& shard = m_shards[index / m_spec.samples_per_shard];
  const std::uint64_t i = index % m_spec.samples_per_shard;
  const OpenFile& f = *shard.files[0];
  const std::uint64_t begin = shard.sample_offsets[i];
  const std::uint64_t end = shard.sample_offsets[i + 1];
  scratch.resize(end - begin);
  reader.read(f, begin, scratch.size(), scratch.data());
  std::uint32_t label = 0;
  bool have_label = false;
  bool have_image = false;
  if (m_spec.format == Format::tfrecord) {
    const std::string_view payload = tfrecord_payload(f, begin, scratch.data(), end);
    try {
      for (const ExampleFeature& feat : parse_example(payload)) {
        if (feat.key == k_tfrecord_label_key) {
          if (feat.int64s.size() != 1 || feat.int64s[0] < 0 || feat.int64s[0] > 0xffffffffll) {
            throw ProtoError("feature 'label' is not one uint32 in an int64_list", 0);
          }
          label = static_cast<std::uint32_t>(feat.int64s[0]);
          have_label = true;
        } else if (feat.key == k_tfrecord_image_key) {
          if (feat.bytes.size() != 1 || feat.bytes[0].empty()) {
            throw ProtoError("feature 'image' is not one non-empty bytes value", 0);
          }
          jpeg.assign(feat.bytes[0].begin(), feat.bytes[0].end());
          have_image = true;
        }
      }
    } catch (const ProtoError& e) {
      corrupt(f, begin + 12 + e.offset(), std::string("tf.train.Example: ") + e.what());
    }
    if (!have_label || !have_image) {
      corrupt(f, begin + 12, "tf.train.Example lacks the 'image' or 'label' feature");
    }
    return label;
  }
  // wds: the members <key>.cls and <key>.jpg, in any order.
  const std::string key = wds_key(index);
  for (std::uint64_t at = begin; at < end;) {
    const char* h = scratch.data() + (at - begin);
    const TarMember m = wds_member(f, at, h, end, key);
    const std::string_view name = m.name;
    const std::string_view ext = name.substr(std::min(name.size(), key.size()));
    const char* data = h + k_tar_block;
    if (ext == ".cls") {
      label = wds_label(f, at + k_tar_block, data, m.size);
      have_label = true;
    } else if (ext == ".jpg") {
      if (m.size == 0) corrupt(f, at, "'" + std::string(name) + "' is empty");
      jpeg.assign(data, data + m.size);
      have_image = true;
    }
    at += k_tar_block + tar_padded(m.size);
  }
  if (!have_label || !have_image) {
    corrupt(f, begin, "sample " + key + " lacks its .cls or .jpg member");
  }
  return label;
}

DatasetReader::~DatasetReader() = default;

std::vector<const OpenFile*> DatasetReader::files() const {
  std::vector<const OpenFile*> out;
  for (const auto& s : m_shards) {
    for (const auto& f : s.files) out.push_back(f.get());
  }
  return out;
}

void DatasetReader::read_samples(std::uint64_t first, std::size_t count, std::uint32_t* labels,
                                 std::uint8_t* pixels, ByteReader& reader,
                                 std::vector<char>& scratch) const {
  if (m_spec.is_jpeg()) {
    throw bad_input("read_samples on the JPEG dataset " + m_spec.directory_name(),
                    "its samples are JPEG files of varying size, not fixed-size pixel records",
                    "read them with read_encoded and decode them");
  }
  if (first + count > m_spec.samples) {
    throw bad_input("read past the end of the dataset: samples " + std::to_string(first) + ".." +
                    std::to_string(first + count) + " of " + std::to_string(m_spec.samples));
  }
  while (count > 0) {
    const std::uint64_t shard = first / m_spec.samples_per_shard;
    const std::uint64_t index = first % m_spec.samples_per_shard;
    const std::size_t here = static_cast<std::size_t>(
        std::min<std::uint64_t>(count, m_spec.samples_in_shard(shard) - index));
    read_in_shard(shard, index, here, labels, pixels, reader, scratch);
    first += here;
    count -= here;
    labels += here;
    pixels += here * m_spec.record_bytes;
  }
}

void DatasetReader::read_in_shard(std::uint64_t shard_no, std::uint64_t index, std::size_t count,
                                  std::uint32_t* labels, std::uint8_t* pixels, ByteReader& reader,
                                  std::vector<char>& scratch) const {
  const Shard& shard = m_shards[shard_no];
  const std::size_t rb = m_spec.record_bytes;
  switch (m_spec.format) {
    case Format::raw:
      reader.read(*shard.files[0], shard.label_offset + index * 4, count * 4, labels);
      reader.read(*shard.files[0], shard.data_offset + index * rb, count * rb, pixels);
      return;
    case Format::npy:
      reader.read(*shard.files[1], shard.label_offset + index * 4, count * 4, labels);
      reader.read(*shard.files[0], shard.data_offset + index * rb, count * rb, pixels);
      return;
    case Format::hdf5:
      shard.hdf5->read(index, std::span<std::uint32_t>(labels, count),
                       std::span<std::uint8_t>(pixels, count * rb));
      return;
    case Format::record: {
      const OpenFile& f = *shard.files[0];
      const std::uint64_t stride = record_stride(rb);
      const std::uint64_t base = index * stride;
      scratch.resize(count * stride);
      reader.read(f, base, scratch.size(), scratch.data());
      const std::uint64_t expected_length = 4 + rb;
      for (std::size_t i = 0; i < count; ++i) {
        const char* rec = scratch.data() + i * stride;
        const std::uint64_t at = base + i * stride;
        std::uint64_t length = 0;
        std::uint32_t length_crc = 0;
        std::uint32_t data_crc = 0;
        std::memcpy(&length, rec, 8);
        std::memcpy(&length_crc, rec + 8, 4);
        if (mask_crc(crc32c(rec, 8)) != length_crc)
          corrupt(f, at, "record length checksum mismatch");
        if (length != expected_length) {
          corrupt(f, at,
                  "record length " + std::to_string(length) + ", expected " +
                      std::to_string(expected_length));
        }
        const char* payload = rec + 12;
        std::memcpy(&data_crc, payload + length, 4);
        if (mask_crc(crc32c(payload, length)) != data_crc) {
          corrupt(f, at, "record payload checksum mismatch (CRC32C)");
        }
        std::memcpy(labels + i, payload, 4);
        std::memcpy(pixels + i * rb, payload + 4, rb);
      }
      return;
    }
    case Format::tfrecord:
      read_tfrecord(shard, index, count, labels, pixels, reader, scratch);
      return;
    case Format::wds:
      read_wds(shard, shard_no * m_spec.samples_per_shard + index, index, count, labels, pixels,
               reader, scratch);
      return;
    case Format::csv:
    case Format::jsonl: {
      const OpenFile& f = *shard.files[0];
      const std::uint64_t begin = shard.line_offsets[index];
      const std::uint64_t end = shard.line_offsets[index + count];
      scratch.resize(end - begin);
      reader.read(f, begin, scratch.size(), scratch.data());
      const char* p = scratch.data();
      const char* stop = p + scratch.size();
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t line_begin = shard.line_offsets[index + i] - begin;
        const std::uint64_t line_end = shard.line_offsets[index + i + 1] - begin;
        const char* line = p + line_begin;
        std::size_t used = 0;
        try {
          auto out = std::span<std::uint8_t>(pixels + i * rb, rb);
          used = m_spec.format == Format::csv
                     ? parse_csv_record(line, p + line_end, labels[i], out)
                     : parse_jsonl_record(line, p + line_end, labels[i], out);
        } catch (const ParseError& e) {
          corrupt(
              f, begin + line_begin + e.offset(),
              std::string(m_spec.format == Format::csv ? "CSV" : "JSON lines") + ": " + e.what());
        }
        if (used != line_end - line_begin) {
          corrupt(f, begin + line_begin + used, "record is not followed by the next line");
        }
      }
      (void)stop;
      return;
    }
  }
}

}  // namespace gpubench::dataloader
