// The image input pipeline on the CPU (issue 41): each loader worker reads a sample's JPEG bytes
// (DatasetReader::read_encoded), decodes them (JpegCodec::decode_rgb), draws the sample's crop
// box (sample_crop_box(seed, epoch, sample)) and augments into the staging slot
// (augment_cpu: random resized crop 224, flip, normalise, bf16 CHW), the label alongside. It is
// a SampleSource of the ordinary Pipeline (pipeline.hpp), so slots, queues, orders, the
// consumer and its BatchSink (the H2D copy, the training step) are the same as for raw records.
//
// Per worker thread: its own ByteReader, JPEG buffer, DecodedImage and augmentation scratch,
// sized by its first images and kept by the source between epochs, so no image after those
// allocates.
//
// Checking (before any timing): an ImageCheck given to the source makes every worker compare
// each decode with the generator's image (fill_image_rgb) within k_decode_tolerance_q90
// (jpeg_codec.hpp; the datasets are quality 90), and
// every k_reference_every-th sample's augmented output with augment_reference within one bf16
// step; ImageVerifySink on the consumer side checks each sample arrives exactly once with its
// label.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "suites/dataloader/augment.hpp"
#include "suites/dataloader/dataset_reader.hpp"
#include "suites/dataloader/jpeg_codec.hpp"
#include "suites/dataloader/pipeline.hpp"

namespace gpubench::dataloader {

// One augmented image in the staging slot: 3 x 224 x 224 bf16 values, CHW.
constexpr std::size_t k_augmented_image_bytes =
    std::size_t{3} * k_crop_size * k_crop_size * sizeof(std::uint16_t);

// Every this many samples (sample index % k_reference_every == 0) the check also runs
// augment_reference: it is plain float code, tens of milliseconds per image.
constexpr std::uint64_t k_reference_every = 16;

// The distance between two bf16 values in representable steps (0: equal; +0 and -0 are
// equal). Values of opposite sign count the steps through zero. A NaN on either side is the
// largest distance (UINT32_MAX), so a NaN never passes a check, not even against a NaN.
std::uint32_t bf16_steps_between(std::uint16_t a, std::uint16_t b);

// Collects what the checking workers find (thread-safe). The first mismatch names the sample.
class ImageCheck {
 public:
  void decoded_ok() { add(m_decodes_checked); }
  void augmented_ok() { add(m_augments_checked); }
  void mismatch(const std::string& what);  // keeps the first, counts all

  std::uint64_t decodes_checked() const;
  std::uint64_t augments_checked() const;
  std::uint64_t mismatches() const;
  std::string first_mismatch() const;  // empty: none

 private:
  void add(std::uint64_t& counter);
  mutable std::mutex m_mutex;
  std::uint64_t m_decodes_checked = 0;
  std::uint64_t m_augments_checked = 0;
  std::uint64_t m_mismatches = 0;
  std::string m_first_mismatch;
};

// What the workers did in one or more epochs, summed over workers (seconds of steady_clock).
struct ImageWork {
  std::uint64_t images = 0;
  std::uint64_t jpeg_bytes = 0;  // encoded bytes read
  double busy_s = 0;             // inside fill(): read, decode, crop, augment
  double decode_s = 0;           // inside decode_rgb
  double decode_fraction() const { return busy_s > 0 ? decode_s / busy_s : 0; }
};

// The per-image steps a worker runs, behind one interface so the pipeline logic can be tested
// with a fake (no libturbojpeg, no augmentation code needed).
class ImageSteps {
 public:
  virtual ~ImageSteps() = default;
  virtual void decode(std::span<const std::uint8_t> jpeg, DecodedImage& out) const = 0;
  virtual CropBox crop_box(int width, int height, std::uint64_t seed, std::uint64_t epoch,
                           std::uint64_t sample) const = 0;
  virtual void augment(const DecodedImage& image, const CropBox& box, std::uint16_t* out,
                       std::vector<float>& scratch) const = 0;
  virtual void augment_reference(const DecodedImage& image, const CropBox& box,
                                 std::uint16_t* out) const = 0;
  // The generator's image `index` (what the decode is compared with).
  virtual void expected_image(std::uint64_t index, DecodedImage& out) const = 0;
  virtual DecodeDifference compare(const DecodedImage& decoded,
                                   const DecodedImage& expected) const = 0;
  virtual bool acceptable(const DecodeDifference& d) const = 0;
};

// The real steps: TurboJPEG decode, the dataset's generator, augment_cpu / augment_reference.
class CpuImageSteps final : public ImageSteps {
 public:
  CpuImageSteps(const JpegCodec& codec, const DatasetSpec& spec);
  void decode(std::span<const std::uint8_t> jpeg, DecodedImage& out) const override;
  CropBox crop_box(int width, int height, std::uint64_t seed, std::uint64_t epoch,
                   std::uint64_t sample) const override;
  void augment(const DecodedImage& image, const CropBox& box, std::uint16_t* out,
               std::vector<float>& scratch) const override;
  void augment_reference(const DecodedImage& image, const CropBox& box,
                         std::uint16_t* out) const override;
  void expected_image(std::uint64_t index, DecodedImage& out) const override;
  DecodeDifference compare(const DecodedImage& decoded,
                           const DecodedImage& expected) const override;
  bool acceptable(const DecodeDifference& d) const override;

 private:
  const JpegCodec& m_codec;
  DatasetSpec m_spec;
};

// The pipeline's SampleSource for a JPEG dataset (reader.spec().is_jpeg()). `crop_seed` seeds
// the crop boxes (with the batch's epoch and the sample). Workers add their ImageWork when their
// epoch ends; take_work() returns the sum since the last call (call it between runs).
class ImageSource final : public SampleSource {
 public:
  // Throws Error(bad_input) when the dataset is not a JPEG dataset.
  ImageSource(const DatasetReader& reader, const ImageSteps& steps, std::uint64_t crop_seed,
              ImageCheck* check = nullptr);
  std::size_t record_bytes() const override { return k_augmented_image_bytes; }
  std::unique_ptr<Worker> make_worker() const override;
  ImageWork take_work();
  // Starts or stops checking (null). Between runs only: workers read it without a lock.
  void set_check(ImageCheck* check) noexcept { m_check = check; }
  // Worker buffers kept for the next epoch (one per worker thread that has run).
  std::size_t pooled_buffers() const;
  ~ImageSource() override;

 private:
  class ImageWorker;
  struct WorkerBuffers;
  // A worker's buffers: from the pool (kept from an earlier epoch), else new.
  std::unique_ptr<WorkerBuffers> take_buffers() const;
  // Back to the pool when a worker's epoch ends, with what it did.
  void give_back(std::unique_ptr<WorkerBuffers> buffers, const ImageWork& w) const;
  const DatasetReader& m_reader;
  const ImageSteps& m_steps;
  std::uint64_t m_crop_seed;
  ImageCheck* m_check;
  mutable std::mutex m_mutex;
  mutable ImageWork m_work;
  mutable std::vector<std::unique_ptr<WorkerBuffers>> m_pool;  // at most one per worker thread
};

// Consumer-side check of the checking epoch: every sample of the dataset exactly once, each
// label the generator's (sample_label). Consumer thread only.
class ImageVerifySink : public BatchSink {
 public:
  explicit ImageVerifySink(const DatasetSpec& spec);
  void begin(const Batch& batch) override;
  std::uint64_t samples_checked() const noexcept { return m_checked; }
  std::uint64_t duplicates() const noexcept { return m_duplicates; }
  std::uint64_t missing() const;
  std::uint64_t mismatches() const noexcept { return m_mismatches; }
  const std::string& first_mismatch() const noexcept { return m_first_mismatch; }

 private:
  DatasetSpec m_spec;
  std::vector<std::uint8_t> m_seen;
  std::uint64_t m_checked = 0;
  std::uint64_t m_duplicates = 0;
  std::uint64_t m_mismatches = 0;
  std::string m_first_mismatch;
};

// One checking epoch through `pipeline` (configured with `source`, built with `check`): empty
// when every image arrived once with its label, decoded within tolerance and (sampled) augmented
// within one bf16 step; else what is wrong, naming the first bad sample.
std::string check_image_epoch(Pipeline& pipeline, const DatasetSpec& spec, const ImageCheck& check);

}  // namespace gpubench::dataloader
