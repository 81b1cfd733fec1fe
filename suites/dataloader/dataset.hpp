// The synthetic dataset: what a sample is, how it is generated (seeded, reproducible), how each
// format lays it out on disk, and the cache that keeps generated datasets between runs.
//
// A sample is an image-like tensor of `record_bytes` uint8 values plus a uint32 label (0..999).
// Sample i depends only on (seed, i), so any reader can check any sample it decodes.
//
// On-disk layouts, one directory per dataset, files split into shards of `samples_per_shard`:
//   raw     shard-NNNNN.raw: labels (uint32 LE x n), zero padding to 4096, pixels (n x
//   record_bytes) record  shard-NNNNN.rec: per sample  u64 length | u32 masked crc32c(length) |
//           payload (u32 label + pixels) | u32 masked crc32c(payload)   (TFRecord framing)
//   csv     shard-NNNNN.csv: "label,v0,v1,...\n" + shard-NNNNN.csv.idx (u64 line offsets, n + 1)
//   jsonl   shard-NNNNN.jsonl: {"label":L,"pixels":[v0,...]}\n + .jsonl.idx like csv
//   npy     shard-NNNNN.images.npy (|u1, shape (n, record_bytes)) + shard-NNNNN.labels.npy (<u4,
//   (n,)) hdf5    shard-NNNNN.h5 with datasets "images" (uint8, n x record_bytes) and "labels"
//   (uint32, n)
//   tfrecord shard-NNNNN.tfrecord: TFRecord files as TensorFlow writes them, u64 length | u32
//           masked crc32c(length) | payload | u32 masked crc32c(payload), the payload a
//           tf.train.Example {"image": bytes_list [pixels], "label": int64_list [label]}
//   wds     shard-NNNNN.tar: a WebDataset shard (POSIX ustar), per sample the members
//           <key>.cls (label, decimal ASCII) and <key>.bin (pixels), key = wds_key(index)
// plus manifest.json (parameters, file sizes, CRC32C of every file). The directory name carries
// the parameters, and the manifest is compared with them, so a changed parameter regenerates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace gpubench::dataloader {

enum class Format { raw, record, csv, jsonl, npy, hdf5, tfrecord, wds };
const char* to_string(Format format);
Format format_from_string(const std::string& name);  // throws Error(bad_input)
const std::vector<Format>& all_formats();

struct DatasetSpec {
  Format format = Format::raw;
  std::uint64_t seed = 42;
  std::size_t record_bytes = 3 * 224 * 224;  // bytes of pixels per sample
  std::uint64_t samples = 256;
  std::uint64_t samples_per_shard = 128;
  // JPEG image datasets (formats wds and tfrecord only; issue 41): when image_width > 0 sample i
  // is the image fill_image_rgb(seed, i, ...) encoded as JPEG at jpeg_quality (jpeg_codec.hpp),
  // and record_bytes is unused. wds members <key>.jpg and <key>.cls; tfrecord features "image"
  // (the JPEG bytes) and "label".
  std::uint32_t image_width = 0;
  std::uint32_t image_height = 0;
  int jpeg_quality = 90;
  bool is_jpeg() const { return image_width > 0; }

  std::uint64_t shard_count() const {
    return (samples + samples_per_shard - 1) / samples_per_shard;
  }
  std::uint64_t samples_in_shard(std::uint64_t shard) const;
  // Directory name below the data directory: every parameter is in it.
  std::string directory_name() const;
  // Bytes the dataset will take on disk (exact for binary formats, an upper bound for text).
  std::uint64_t estimated_disk_bytes() const;
};

// --- samples -------------------------------------------------------------------------------
std::uint32_t sample_label(std::uint64_t seed, std::uint64_t index);
// Fills `pixels` (record_bytes long) with sample `index`'s values.
void fill_sample_pixels(std::uint64_t seed, std::uint64_t index, std::span<std::uint8_t> pixels);

// Fills `rgb` (width * height * 3, interleaved RGB) with image `index`: deterministic content
// with the edges, textures and smooth areas of a photograph, so its JPEG has a realistic size.
void fill_image_rgb(std::uint64_t seed, std::uint64_t index, int width, int height,
                    std::span<std::uint8_t> rgb);

// --- files ---------------------------------------------------------------------------------
// The files of shard `shard`, in the order the manifest lists them (data file first).
std::vector<std::string> shard_file_names(Format format, std::uint64_t shard);
// Byte offset of the pixel data in a raw shard of `n` samples (labels come first, page-aligned).
std::uint64_t raw_pixel_offset(std::uint64_t n);
// The WebDataset key of sample `index` (9 decimal digits, zero-padded: sorts like the samples).
std::string wds_key(std::uint64_t index);
// Feature names of the tf.train.Example payloads of a tfrecord dataset.
constexpr const char* k_tfrecord_image_key = "image";
constexpr const char* k_tfrecord_label_key = "label";
// Bytes one sample takes in a record file.
inline std::uint64_t record_stride(std::size_t record_bytes) {
  return 8 + 4 + 4 + record_bytes + 4;
}

struct ManifestFile {
  std::string name;
  std::uint64_t bytes = 0;
  std::uint32_t crc32c = 0;
};

// A dataset that exists on disk, with its manifest.
struct Dataset {
  DatasetSpec spec;
  std::filesystem::path dir;
  std::vector<ManifestFile> files;
  std::filesystem::path file(const std::string& name) const { return dir / name; }
  std::uint64_t total_bytes() const;
};

// --- data directory and cache ----------------------------------------------------------------
// GPUBENCH_DATA_DIR when set (must exist and be writable), else the user's cache:
// $XDG_CACHE_HOME/gpubench, else $HOME/.cache/gpubench, else gpubench-data-<uid> under the
// system temp dir (created). Throws Error(bad_input) with the path and reason.
std::filesystem::path resolve_data_dir();
// Checks that `dir` exists, is a directory and is writable (by creating a probe file).
void check_data_dir(const std::filesystem::path& dir);
// Throws Error(bad_input) naming both numbers when `needed_bytes` exceeds the free space of
// `dir` (free space is measured, or given for tests).
void check_free_space(const std::filesystem::path& dir, std::uint64_t needed_bytes);
void check_free_space(const std::filesystem::path& dir, std::uint64_t needed_bytes,
                      std::uint64_t free_bytes);

// Returns the dataset for `spec` under `data_dir`, generating it first when no valid cached copy
// exists (manifest missing, different parameters, or a file of the wrong size). Generation
// checks free space before writing anything, writes into a temp directory, then renames, all
// under an flock on `<data_dir>/<dataset>.lock` (concurrent callers wait, then reuse it).
// `regenerated` (optional) tells whether it wrote files.
Dataset ensure_dataset(const std::filesystem::path& data_dir, const DatasetSpec& spec,
                       bool* regenerated = nullptr);
// Writes the dataset into `dir` (created) unconditionally; returns it with its manifest.
Dataset generate_dataset(const std::filesystem::path& dir, const DatasetSpec& spec);
// Recomputes every file's CRC32C and compares with the manifest; throws Error(bad_input) naming
// the file on mismatch.
void verify_dataset_files(const Dataset& dataset);

}  // namespace gpubench::dataloader
