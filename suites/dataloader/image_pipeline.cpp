#include "suites/dataloader/image_pipeline.hpp"

#include <chrono>
#include <cstdio>
#include <limits>

#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// bf16 bits as a signed position on the number line: sign-magnitude to two's complement, so
// neighbouring values differ by 1 and +0 / -0 both map to 0.
std::int32_t bf16_position(std::uint16_t bits) {
  const auto magnitude = static_cast<std::int32_t>(bits & 0x7fffu);
  return (bits & 0x8000u) ? -magnitude : magnitude;
}

std::string sample_text(std::uint64_t index) {
  return "sample " + std::to_string(index) + " (key " + wds_key(index) + ")";
}

}  // namespace

std::uint32_t bf16_steps_between(std::uint16_t a, std::uint16_t b) {
  // A NaN equals nothing, itself included: exponent all ones with a non-zero mantissa.
  const auto is_nan = [](std::uint16_t bits) {
    return (bits & 0x7f80u) == 0x7f80u && (bits & 0x007fu) != 0;
  };
  if (is_nan(a) || is_nan(b)) return std::numeric_limits<std::uint32_t>::max();
  const std::int32_t d = bf16_position(a) - bf16_position(b);
  return static_cast<std::uint32_t>(d < 0 ? -d : d);
}

// --- ImageCheck ------------------------------------------------------------------------------

void ImageCheck::add(std::uint64_t& counter) {
  std::lock_guard lock(m_mutex);
  ++counter;
}

void ImageCheck::mismatch(const std::string& what) {
  std::lock_guard lock(m_mutex);
  if (m_mismatches++ == 0) m_first_mismatch = what;
}

std::uint64_t ImageCheck::decodes_checked() const {
  std::lock_guard lock(m_mutex);
  return m_decodes_checked;
}
std::uint64_t ImageCheck::augments_checked() const {
  std::lock_guard lock(m_mutex);
  return m_augments_checked;
}
std::uint64_t ImageCheck::mismatches() const {
  std::lock_guard lock(m_mutex);
  return m_mismatches;
}
std::string ImageCheck::first_mismatch() const {
  std::lock_guard lock(m_mutex);
  return m_first_mismatch;
}

// --- CpuImageSteps ---------------------------------------------------------------------------

CpuImageSteps::CpuImageSteps(const JpegCodec& codec, const DatasetSpec& spec)
    : m_codec(codec), m_spec(spec) {}

void CpuImageSteps::decode(std::span<const std::uint8_t> jpeg, DecodedImage& out) const {
  m_codec.decode_rgb(jpeg, out);
}
CropBox CpuImageSteps::crop_box(int width, int height, std::uint64_t seed, std::uint64_t epoch,
                                std::uint64_t sample) const {
  return sample_crop_box(width, height, seed, epoch, sample);
}
void CpuImageSteps::augment(const DecodedImage& image, const CropBox& box, std::uint16_t* out,
                            std::vector<float>& scratch) const {
  augment_cpu(image.rgb.data(), image.width, image.height, box, k_crop_size, out, scratch);
}
void CpuImageSteps::augment_reference(const DecodedImage& image, const CropBox& box,
                                      std::uint16_t* out) const {
  dataloader::augment_reference(image.rgb.data(), image.width, image.height, box, k_crop_size, out);
}
void CpuImageSteps::expected_image(std::uint64_t index, DecodedImage& out) const {
  out.width = static_cast<int>(m_spec.image_width);
  out.height = static_cast<int>(m_spec.image_height);
  out.rgb.resize(std::size_t{m_spec.image_width} * m_spec.image_height * 3);
  fill_image_rgb(m_spec.seed, index, out.width, out.height, out.rgb);
}
DecodeDifference CpuImageSteps::compare(const DecodedImage& decoded,
                                        const DecodedImage& expected) const {
  return compare_images(decoded, expected, k_decode_tolerance_q90);
}
bool CpuImageSteps::acceptable(const DecodeDifference& d) const {
  return within(d, k_decode_tolerance_q90);
}

// --- ImageSource -----------------------------------------------------------------------------

// What a worker thread keeps between images and epochs: its reader and buffers, sized by its
// first images and reused, so no image allocates after them.
struct ImageSource::WorkerBuffers {
  std::unique_ptr<ByteReader> reader;
  std::vector<std::uint8_t> jpeg;
  std::vector<char> scratch;
  DecodedImage image;
  std::vector<float> augment_scratch;
  DecodedImage expected;                 // checking only
  std::vector<std::uint16_t> reference;  // checking only
};

// One worker thread's epoch: the buffers it borrows from the source, and what it did.
class ImageSource::ImageWorker final : public SampleSource::Worker {
 public:
  explicit ImageWorker(const ImageSource& source) : m_source(source), m_b(source.take_buffers()) {}
  ~ImageWorker() override { m_source.give_back(std::move(m_b), m_work); }
  ImageWorker(const ImageWorker&) = delete;
  ImageWorker& operator=(const ImageWorker&) = delete;

  void fill(const Batch& batch) override {
    const auto t0 = Clock::now();
    constexpr std::size_t values = k_augmented_image_bytes / sizeof(std::uint16_t);
    for (std::size_t i = 0; i < batch.count; ++i) {
      const std::uint64_t index = batch.sample(i);
      batch.labels[i] =
          m_source.m_reader.read_encoded(index, m_b->jpeg, *m_b->reader, m_b->scratch);
      const auto d0 = Clock::now();
      m_source.m_steps.decode(m_b->jpeg, m_b->image);
      m_work.decode_s += seconds_since(d0);
      const CropBox box = m_source.m_steps.crop_box(m_b->image.width, m_b->image.height,
                                                    m_source.m_crop_seed, batch.epoch, index);
      // Staging slots are page-aligned and records 2-byte multiples: aligned for uint16_t.
      auto* out = reinterpret_cast<std::uint16_t*>(batch.pixels + i * k_augmented_image_bytes);
      m_source.m_steps.augment(m_b->image, box, out, m_b->augment_scratch);
      m_work.images += 1;
      m_work.jpeg_bytes += m_b->jpeg.size();
      if (m_source.m_check) check(index, box, std::span<const std::uint16_t>(out, values));
    }
    m_work.busy_s += seconds_since(t0);
  }

 private:
  // Untimed (checking epochs only): the decode against the generator, sampled augmentations
  // against the reference.
  void check(std::uint64_t index, const CropBox& box, std::span<const std::uint16_t> out) {
    ImageCheck& c = *m_source.m_check;
    m_source.m_steps.expected_image(index, m_b->expected);
    if (m_b->expected.width != m_b->image.width || m_b->expected.height != m_b->image.height) {
      c.mismatch(sample_text(index) + " decodes to " + std::to_string(m_b->image.width) + "x" +
                 std::to_string(m_b->image.height) + ", the dataset's images are " +
                 std::to_string(m_b->expected.width) + "x" + std::to_string(m_b->expected.height));
      return;
    }
    const DecodeDifference d = m_source.m_steps.compare(m_b->image, m_b->expected);
    if (!m_source.m_steps.acceptable(d)) {
      char text[160];
      std::snprintf(text, sizeof text,
                    " decodes outside the tolerance: max |diff| %d, mean %.2f, PSNR %.1f dB",
                    d.max_abs, d.mean_abs, d.psnr_db);
      c.mismatch(sample_text(index) + text);
      return;
    }
    c.decoded_ok();
    if (index % k_reference_every != 0) return;
    m_b->reference.resize(out.size());
    m_source.m_steps.augment_reference(m_b->image, box, m_b->reference.data());
    for (std::size_t v = 0; v < out.size(); ++v) {
      if (bf16_steps_between(out[v], m_b->reference[v]) > 1) {
        const std::size_t plane = std::size_t{k_crop_size} * k_crop_size;
        c.mismatch(sample_text(index) + ": augmented value " + std::to_string(v) + " (channel " +
                   std::to_string(v / plane) + ", row " + std::to_string(v % plane / k_crop_size) +
                   ", column " + std::to_string(v % k_crop_size) + ") is " +
                   std::to_string(bf16_to_float(out[v])) + ", the reference " +
                   std::to_string(bf16_to_float(m_b->reference[v])) + ": more than one bf16 step");
        return;
      }
    }
    c.augmented_ok();
  }

  const ImageSource& m_source;
  std::unique_ptr<WorkerBuffers> m_b;
  ImageWork m_work;
};

ImageSource::ImageSource(const DatasetReader& reader, const ImageSteps& steps,
                         std::uint64_t crop_seed, ImageCheck* check)
    : m_reader(reader), m_steps(steps), m_crop_seed(crop_seed), m_check(check) {
  if (!reader.spec().is_jpeg()) {
    throw bad_input("dataset " + reader.spec().directory_name() + " holds no JPEG images",
                    "the image pipeline decodes JPEG datasets (image_width > 0)",
                    "give it a wds or tfrecord dataset with image_width and image_height set");
  }
}

std::unique_ptr<SampleSource::Worker> ImageSource::make_worker() const {
  return std::make_unique<ImageWorker>(*this);
}

ImageSource::~ImageSource() = default;

std::size_t ImageSource::pooled_buffers() const {
  std::lock_guard lock(m_mutex);
  return m_pool.size();
}

std::unique_ptr<ImageSource::WorkerBuffers> ImageSource::take_buffers() const {
  {
    std::lock_guard lock(m_mutex);
    if (!m_pool.empty()) {
      auto b = std::move(m_pool.back());
      m_pool.pop_back();
      return b;
    }
  }
  auto b = std::make_unique<WorkerBuffers>();
  b->reader = make_byte_reader(m_reader.read_path());
  return b;
}

void ImageSource::give_back(std::unique_ptr<WorkerBuffers> buffers, const ImageWork& w) const {
  std::lock_guard lock(m_mutex);
  m_pool.push_back(std::move(buffers));
  m_work.images += w.images;
  m_work.jpeg_bytes += w.jpeg_bytes;
  m_work.busy_s += w.busy_s;
  m_work.decode_s += w.decode_s;
}

ImageWork ImageSource::take_work() {
  std::lock_guard lock(m_mutex);
  const ImageWork w = m_work;
  m_work = {};
  return w;
}

// --- ImageVerifySink -------------------------------------------------------------------------

ImageVerifySink::ImageVerifySink(const DatasetSpec& spec) : m_spec(spec), m_seen(spec.samples, 0) {}

void ImageVerifySink::begin(const Batch& batch) {
  for (std::size_t i = 0; i < batch.count; ++i) {
    const std::uint64_t index = batch.sample(i);
    if (index >= m_seen.size()) {
      if (m_mismatches++ == 0)
        m_first_mismatch = "sample index " + std::to_string(index) + " is past the end";
      continue;
    }
    if (m_seen[index]++) ++m_duplicates;
    ++m_checked;
    const std::uint32_t want = sample_label(m_spec.seed, index);
    if (batch.labels[i] != want && m_mismatches++ == 0) {
      m_first_mismatch = sample_text(index) + ": label " + std::to_string(batch.labels[i]) +
                         " != " + std::to_string(want);
    }
  }
}

std::uint64_t ImageVerifySink::missing() const {
  std::uint64_t n = 0;
  for (auto s : m_seen) n += s == 0 ? 1 : 0;
  return n;
}

std::string check_image_epoch(Pipeline& pipeline, const DatasetSpec& spec,
                              const ImageCheck& check) {
  ImageVerifySink verify(spec);
  pipeline.run(&verify);
  std::string problem;
  if (check.mismatches() > 0) {
    problem = check.first_mismatch() + " (" + std::to_string(check.mismatches()) + " wrong)";
  } else if (verify.mismatches() || verify.missing() || verify.duplicates()) {
    const std::string first = verify.first_mismatch().empty()
                                  ? std::string("samples missing or delivered twice")
                                  : verify.first_mismatch();
    problem = first + " (" + std::to_string(verify.mismatches()) + " wrong, " +
              std::to_string(verify.missing()) + " missing, " +
              std::to_string(verify.duplicates()) + " duplicated)";
  } else if (check.decodes_checked() != spec.samples) {
    problem = std::to_string(check.decodes_checked()) + " of " + std::to_string(spec.samples) +
              " images were checked against the generator";
  } else if (check.augments_checked() !=
             (spec.samples + k_reference_every - 1) / k_reference_every) {
    problem = std::to_string(check.augments_checked()) + " of " +
              std::to_string((spec.samples + k_reference_every - 1) / k_reference_every) +
              " sampled augmentations were checked against augment_reference";
  }
  return problem;
}

}  // namespace gpubench::dataloader
