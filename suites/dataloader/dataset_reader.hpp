// Reads and decodes samples of a generated dataset in any format through any read path.
// Every decode validates what the format can validate: record framing and CRC32C, CSV/JSONL
// syntax and value counts, .npy headers, HDF5 shapes, TFRecord CRCs and tf.train.Example
// fields, tar header checksums and member names. Errors name the file and byte offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "suites/dataloader/dataset.hpp"
#include "suites/dataloader/read_paths.hpp"

namespace gpubench::dataloader {

class Hdf5Shard;

class DatasetReader {
 public:
  // Opens every file of `dataset` (maps them for ReadPath::mmap), loads the text-format line
  // indexes and parses .npy headers. Throws Error(bad_input) naming the file on any mismatch.
  DatasetReader(const Dataset& dataset, ReadPath path);
  ~DatasetReader();
  DatasetReader(const DatasetReader&) = delete;
  DatasetReader& operator=(const DatasetReader&) = delete;

  const DatasetSpec& spec() const noexcept { return m_spec; }
  ReadPath read_path() const noexcept { return m_path; }
  // Data files (for cache eviction and the sequential-read ceiling).
  std::vector<const OpenFile*> files() const;

  // Decodes samples [first, first + count) into labels[count] and pixels[count * record_bytes].
  // Thread-safe: each calling thread passes its own ByteReader and scratch buffer.
  void read_samples(std::uint64_t first, std::size_t count, std::uint32_t* labels,
                    std::uint8_t* pixels, ByteReader& reader, std::vector<char>& scratch) const;
  // JPEG datasets (spec().is_jpeg()): the encoded bytes of sample `index` into `jpeg` (resized),
  // checked like read_samples checks (CRCs, tar headers, member names); returns its label.
  std::uint32_t read_encoded(std::uint64_t index, std::vector<std::uint8_t>& jpeg,
                             ByteReader& reader, std::vector<char>& scratch) const;

 private:
  struct Shard {
    std::vector<std::unique_ptr<OpenFile>> files;  // in shard_file_names order
    std::vector<std::uint64_t> line_offsets;       // csv/jsonl: n + 1 byte offsets
    // tfrecord/wds: n + 1 byte offsets, where each sample's record (tfrecord) or first tar
    // header (wds) starts, then the end of the last; found by walking the file when opened.
    std::vector<std::uint64_t> sample_offsets;
    std::uint64_t data_offset = 0;   // raw/npy: where pixels start
    std::uint64_t label_offset = 0;  // raw/npy: where labels start
    std::unique_ptr<Hdf5Shard> hdf5;
  };
  void index_tfrecord(Shard& shard, std::uint64_t n, ByteReader& reader) const;
  void index_wds(Shard& shard, std::uint64_t n, ByteReader& reader) const;
  void read_tfrecord(const Shard& shard, std::uint64_t index, std::size_t count,
                     std::uint32_t* labels, std::uint8_t* pixels, ByteReader& reader,
                     std::vector<char>& scratch) const;
  void read_wds(const Shard& shard, std::uint64_t first_sample, std::uint64_t index,
                std::size_t count, std::uint32_t* labels, std::uint8_t* pixels, ByteReader& reader,
                std::vector<char>& scratch) const;
  void read_in_shard(std::uint64_t shard, std::uint64_t index, std::size_t count,
                     std::uint32_t* labels, std::uint8_t* pixels, ByteReader& reader,
                     std::vector<char>& scratch) const;

  DatasetSpec m_spec;
  ReadPath m_path;
  std::vector<Shard> m_shards;
};

}  // namespace gpubench::dataloader
