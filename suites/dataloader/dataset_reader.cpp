#include "suites/dataloader/dataset_reader.hpp"

#include <cstring>

#include "suites/dataloader/crc32c.hpp"
#include "suites/dataloader/hdf5_io.hpp"
#include "suites/dataloader/npy.hpp"
#include "suites/dataloader/text_codec.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

[[noreturn]] void corrupt(const OpenFile& f, std::uint64_t offset, const std::string& why) {
  throw bad_input(
      "corrupt shard '" + f.path().string() + "' at byte offset " + std::to_string(offset), why,
      "delete the dataset directory so it is regenerated");
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
      case Format::record:
      case Format::hdf5:
        break;
    }
  }
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
