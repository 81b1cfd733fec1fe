// The image pipeline with the decode on the GPU (issue 41, `decode:nvjpeg`): CPU workers only
// read each sample's JPEG bytes (DatasetReader::read_encoded) into variable-size batches; the
// consumer hands a batch to nvJPEG's batched decoder (interleaved RGB into device memory), then
// to the GPU augmentation (augment_device.hpp: random resized crop 224, flip, normalise, bf16).
//
//   workers --(free slots)--> JPEG bytes of batch k --(ready)--> consumer: nvjpegDecodeBatched,
//                                                                augment kernel, slot back
//
// Host logic here (batch assembly, the loader, layouts, skip reasons, metrics) is built and
// tested everywhere; the GPU half (image_gpu_cuda.cpp) is built only with the CUDA part
// (GPUBENCH_HAVE_CUDA), image_gpu_stub.cpp otherwise.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "suites/dataloader/dataset.hpp"
#include "suites/dataloader/read_paths.hpp"
#include "suites/dataloader/sample_order.hpp"

namespace gpubench::dataloader {

// One batch of encoded images, back to back in one host buffer (reused across batches: no
// allocation once it has held the largest batch). Image i is bytes[offset(i), offset(i) +
// length(i)). Owned by one thread at a time (the loader hands it over).
class EncodedBatch {
 public:
  void clear();
  // Appends one image's bytes.
  void add(std::uint64_t sample, std::uint32_t label, std::span<const std::uint8_t> jpeg);
  std::size_t count() const noexcept { return m_lengths.size(); }
  std::size_t offset(std::size_t i) const { return m_offsets[i]; }
  std::size_t length(std::size_t i) const { return m_lengths[i]; }
  std::uint64_t sample(std::size_t i) const { return m_samples[i]; }
  std::uint32_t label(std::size_t i) const { return m_labels[i]; }
  std::span<const std::uint8_t> image(std::size_t i) const {
    return {m_bytes.data() + m_offsets[i], m_lengths[i]};
  }
  std::uint64_t total_bytes() const noexcept { return m_bytes.size(); }
  // nvjpegDecodeBatched's `data` and `lengths` arrays (count() entries each), valid until the
  // next add() or clear().
  const unsigned char* const* data_pointers() const;
  const std::size_t* lengths() const noexcept { return m_lengths.data(); }
  std::uint64_t index = 0;  // batch number in the epoch

 private:
  std::vector<std::uint8_t> m_bytes;
  std::vector<std::size_t> m_offsets;
  std::vector<std::size_t> m_lengths;
  std::vector<std::uint64_t> m_samples;
  std::vector<std::uint32_t> m_labels;
  mutable std::vector<const unsigned char*> m_pointers;
};

// Reads the encoded bytes of `sample` into `jpeg` (resized) and returns its label; `worker` is
// the calling worker's number, so the reader can keep per-thread state (ByteReader, scratch).
using ReadEncodedFn =
    std::function<std::uint32_t(int worker, std::uint64_t sample, std::vector<std::uint8_t>& jpeg)>;

// Workers fill EncodedBatch slots with the samples of an epoch's order, batch k holding positions
// [k * batch, ...) (the last batch may be short); the calling thread consumes them in any order.
// Slots: workers + 2, allocated once, so each worker can be one batch ahead.
class EncodedLoader {
 public:
  EncodedLoader(int workers, std::size_t batch_size, ReadEncodedFn read);
  // One epoch over `order`: `consume` runs on the calling thread once per batch. Returns the
  // wall seconds from the first claim to the last batch consumed. Rethrows the first worker
  // error, or the consumer's (after stopping the workers).
  double run(const std::vector<std::uint64_t>& order,
             const std::function<void(const EncodedBatch&)>& consume);
  int workers() const noexcept { return m_workers; }

 private:
  int m_workers;
  std::size_t m_batch;
  ReadEncodedFn m_read;
  std::vector<EncodedBatch> m_slots;
};

// Where nvJPEG writes each decoded image of a batch: interleaved RGB (NVJPEG_OUTPUT_RGBI) at
// offsets[i] of one device allocation, rows pitches[i] bytes apart (width * 3 rounded up to
// `pitch_align` bytes, so rows start aligned for the augmentation's loads).
struct RgbBatchLayout {
  std::vector<std::size_t> offsets;
  std::vector<std::size_t> pitches;
  std::size_t total_bytes = 0;
};
RgbBatchLayout layout_rgb_batch(std::span<const int> widths, std::span<const int> heights,
                                std::size_t pitch_align = 256);

// A decoded image copied back with its pitch (row y starts at y * pitch): packs rows of `pitch`
// bytes into tight width * 3 rows (what JpegCodec::decode_rgb produces).
void unpitch_rgb(const std::uint8_t* pitched, std::size_t pitch, int width, int height,
                 std::vector<std::uint8_t>& tight);

// How many values of `got` are more than one bf16 step from `want` (bf16 bit patterns, same
// length): steps counted along the ordered bf16 line, so +0 and -0 are the same value and a
// sign change counts every step through zero; a NaN on either side is always beyond.
std::size_t count_beyond_one_bf16_step(std::span<const std::uint16_t> got,
                                       std::span<const std::uint16_t> want);

// Why the nvJPEG cases cannot run, in the order that names the real cause first: no usable GPU
// (the suite's usual no-device reason), then libnvjpeg (its loader's reason), then libturbojpeg
// (the CPU reference decode the validation needs). Empty when all three are there.
std::string first_unavailable_reason(const std::string& cuda_reason,
                                     const std::string& nvjpeg_reason,
                                     const std::string& turbojpeg_reason);
// The same for this process (image_gpu_cuda.cpp or the stub, which names the CUDA-less build).
std::string nvjpeg_unavailable_reason();

// The counters of one case (per epoch sums over the timed iterations).
struct ImageGpuTotals {
  std::uint64_t images = 0;
  std::uint64_t jpeg_bytes = 0;     // encoded bytes consumed (the dataset's JPEG members)
  std::uint64_t decoded_bytes = 0;  // RGB bytes decoded (width * height * 3) plus 4 per label
  double wall_s = 0;                // loader runs, first claim to last batch consumed
  double cpu_s = 0;                 // process CPU seconds over the same runs
  double decode_s = 0;              // nvjpegDecodeBatched time, CUDA events
};
// images_per_s (and samples_per_s, the same), MB_per_s (augmented bf16 images + labels, 1e6
// bytes: the CPU image case's definition), decoded_MB_per_s (nvJPEG's RGB + labels, 1e6),
// input_MB_per_s (JPEG bytes, 1e6), cpu_cores_used (process CPU s / wall s),
// gpu_decode_fraction (nvJPEG's CUDA-event time / wall: not the CPU case's decode_fraction, a
// share of the workers' busy time): all 0 without wall time.
std::vector<std::pair<std::string, double>> image_gpu_counters(const ImageGpuTotals& t);
// Sets image_gpu_counters(t) on `state`.
void report_image_gpu_counters(benchmark::State& state, const ImageGpuTotals& t);

// A `decode:nvjpeg` case: the image dataset (format wds or tfrecord, JPEG), how its bytes are
// read, and how the epoch is batched and ordered.
struct NvjpegCase {
  DatasetSpec spec;
  ReadPath path = ReadPath::pread;
  int workers = 2;
  std::size_t batch = 64;
  Order order = Order::shuffled;
  std::uint64_t seed = 42;  // the order's and the crop boxes' seed
  int iterations = 2;       // timed epochs per repetition
};
// dataloader/image/format:F/size:WxH/decode:nvjpeg/path:P/workers:W/order:O/cache:warm
std::string nvjpeg_case_name(const NvjpegCase& c);

// The case body (GPU half, or the stub's skip). `dataset` is only called once the case knows it
// can run (it generates the dataset on first use).
void run_nvjpeg_case(benchmark::State& state, const NvjpegCase& c,
                     const std::function<const Dataset&(const DatasetSpec&)>& dataset);

}  // namespace gpubench::dataloader
