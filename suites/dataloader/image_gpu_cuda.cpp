// GPU half of the nvJPEG image pipeline (image_gpu.hpp): nvJPEG's batched decode into device
// memory, the GPU augmentation of the decoded images (augment_device.hpp), the check of every
// decoded image against the CPU decode and of a sample of augmented ones against
// augment_reference, and the timed case. CUDA runtime only, no device code, so a .cpp; built
// only with the CUDA part (GPUBENCH_HAVE_CUDA).
//
// nvJPEG calls, in the order the documentation prescribes (nvJPEG "Batched Image Decoding"):
// nvjpegCreateSimple -> per batch size (the full batch, and the epoch's short last batch when
// the sample count is not a multiple of it): nvjpegJpegStateCreate and
// nvjpegDecodeBatchedInitialize(batch size, NVJPEG_OUTPUT_RGBI) once -> per batch:
// nvjpegGetImageInfo on each image (sizes the device buffers), nvjpegDecodeBatched with the
// state of that size on our stream. Every status is checked and named (nvjpeg_status_text).
#include <cuda_runtime_api.h>

#include <array>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/suite_support.hpp"
#include "suites/dataloader/augment.hpp"
#include "suites/dataloader/augment_device.hpp"
#include "suites/dataloader/dataset_reader.hpp"
#include "suites/dataloader/device_staging.hpp"
#include "suites/dataloader/image_gpu.hpp"
#include "suites/dataloader/image_pipeline.hpp"
#include "suites/dataloader/jpeg_codec.hpp"
#include "suites/dataloader/nvjpeg_api.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

namespace cuda = gpubench::suite::cuda;
namespace abi = nvjpeg_abi;

// nvjpeg_abi declares cudaStream_t from the runtime's own opaque type: the same type.
static_assert(std::is_same_v<abi::cudaStream_t, ::cudaStream_t>);

void check_nvjpeg(abi::nvjpegStatus_t status, const char* call) {
  if (status == abi::NVJPEG_STATUS_SUCCESS) return;
  throw infrastructure(std::string(call) + " failed", nvjpeg_status_text(status));
}

// Library handle and one batched-decode state per batch size; owns them all (the states are
// destroyed first, as they belong to the handle). One per case: nvJPEG states are not shared
// between threads, and only the consumer thread decodes.
class NvjpegSession {
 public:
  explicit NvjpegSession(const NvjpegApi& api) : m_api(api) {
    check_nvjpeg(m_api.CreateSimple(&m_handle), "nvjpegCreateSimple");
  }
  ~NvjpegSession() {
    for (const auto& [size, state] : m_states) (void)m_api.JpegStateDestroy(state);
    (void)m_api.Destroy(m_handle);
  }
  NvjpegSession(const NvjpegSession&) = delete;
  NvjpegSession& operator=(const NvjpegSession&) = delete;
  abi::nvjpegHandle_t handle() const noexcept { return m_handle; }

  // The state initialised for batches of `batch_size` images, created and initialised on first
  // use. The batched decoder decodes exactly the batch size its state was initialised with, and
  // an epoch whose sample count is not a multiple of the batch ends with a short batch: one state
  // per size means no re-initialisation inside a timed epoch (once validation or the warm-up has
  // seen both sizes).
  abi::nvjpegJpegState_t batched_state(int batch_size) {
    if (const auto it = m_states.find(batch_size); it != m_states.end()) return it->second;
    abi::nvjpegJpegState_t state = nullptr;
    check_nvjpeg(m_api.JpegStateCreate(m_handle, &state), "nvjpegJpegStateCreate");
    // max_cpu_threads is documented as unused: 1.
    const abi::nvjpegStatus_t s =
        m_api.DecodeBatchedInitialize(m_handle, state, batch_size, 1, abi::NVJPEG_OUTPUT_RGBI);
    if (s != abi::NVJPEG_STATUS_SUCCESS) {
      (void)m_api.JpegStateDestroy(state);
      check_nvjpeg(s, "nvjpegDecodeBatchedInitialize");
    }
    m_states.emplace(batch_size, state);
    return state;
  }

 private:
  const NvjpegApi& m_api;
  abi::nvjpegHandle_t m_handle = nullptr;
  std::map<int, abi::nvjpegJpegState_t> m_states;  // batch size -> its initialised state
};

// Decodes one batch at a time into one device allocation (grown, never shrunk: after the
// validation epoch it holds the largest batch, so timed epochs allocate nothing).
class NvjpegBatchDecoder {
 public:
  NvjpegBatchDecoder(const NvjpegApi& api, cudaStream_t stream)
      : m_api(api),
        m_session(api),
        m_stream(stream),
        m_start(cuda::Event::create()),
        m_stop(cuda::Event::create()) {}

  // Enqueues the decode of `batch` on the stream (returns once nvJPEG's host phase is done).
  // Throws Error(bad_input) naming the sample for an image nvJPEG cannot parse or that is not
  // 3-component, Error(infrastructure) for any other status.
  void decode(const EncodedBatch& batch) {
    const std::size_t n = batch.count();
    m_widths.resize(n);
    m_heights.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      int components = 0;
      abi::nvjpegChromaSubsampling_t css = abi::NVJPEG_CSS_UNKNOWN;
      std::array<int, abi::k_max_component> w{};
      std::array<int, abi::k_max_component> h{};
      const auto image = batch.image(i);
      const abi::nvjpegStatus_t s = m_api.GetImageInfo(
          m_session.handle(), image.data(), image.size(), &components, &css, w.data(), h.data());
      if (s != abi::NVJPEG_STATUS_SUCCESS || components != 3) {
        throw bad_input("sample " + std::to_string(batch.sample(i)) + " (" +
                            std::to_string(image.size()) + " JPEG bytes) cannot be decoded",
                        s != abi::NVJPEG_STATUS_SUCCESS
                            ? "nvjpegGetImageInfo: " + nvjpeg_status_text(s)
                            : std::to_string(components) + " components, not RGB",
                        "regenerate the dataset (delete its directory under GPUBENCH_DATA_DIR)");
      }
      m_widths[i] = w[0];  // component 0 (Y) has the full image size
      m_heights[i] = h[0];
    }
    m_layout = layout_rgb_batch(m_widths, m_heights);
    if (m_layout.total_bytes > m_rgb.bytes()) {
      // The old buffer may still be read by work queued before: finish it first.
      GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(m_stream));
      m_rgb = cuda::DeviceBuffer<unsigned char>(m_layout.total_bytes);
    }
    m_destinations.assign(n, abi::nvjpegImage_t{});
    for (std::size_t i = 0; i < n; ++i) {
      // RGBI: nvJPEG writes channel[0] only (pitch[0] >= width * 3).
      m_destinations[i].channel[0] = m_rgb.data() + m_layout.offsets[i];
      m_destinations[i].pitch[0] = m_layout.pitches[i];
    }
    const abi::nvjpegJpegState_t state = m_session.batched_state(static_cast<int>(n));
    m_start.record(m_stream);
    const abi::nvjpegStatus_t s =
        m_api.DecodeBatched(m_session.handle(), state, batch.data_pointers(), batch.lengths(),
                            m_destinations.data(), m_stream);
    if (s == abi::NVJPEG_STATUS_BAD_JPEG || s == abi::NVJPEG_STATUS_INCOMPLETE_BITSTREAM) {
      throw bad_input("batch " + std::to_string(batch.index) + " (samples " +
                          std::to_string(batch.sample(0)) + "...) cannot be decoded",
                      "nvjpegDecodeBatched: " + nvjpeg_status_text(s));
    }
    check_nvjpeg(s, "nvjpegDecodeBatched");
    m_stop.record(m_stream);
  }

  // The last decode's time on the GPU's clock (seconds, CUDA events: from when the stream
  // reached the decode to its last task, nvJPEG's host phase included). Call once the stream has
  // been synchronised (the caller waits for the augmentation after the decode anyway).
  double decode_seconds() const {
    return static_cast<double>(m_stop.elapsed_ms_since(m_start)) / 1e3;
  }

  const RgbBatchLayout& layout() const noexcept { return m_layout; }
  const std::vector<int>& widths() const noexcept { return m_widths; }
  const std::vector<int>& heights() const noexcept { return m_heights; }
  const unsigned char* device_rgb() const noexcept { return m_rgb.data(); }

 private:
  const NvjpegApi& m_api;
  NvjpegSession m_session;
  cudaStream_t m_stream;
  cuda::Event m_start;
  cuda::Event m_stop;
  cuda::DeviceBuffer<unsigned char> m_rgb;
  RgbBatchLayout m_layout;
  std::vector<int> m_widths;
  std::vector<int> m_heights;
  std::vector<abi::nvjpegImage_t> m_destinations;
};

// The GPU augmentation of a decoded batch: each image's crop box from (seed, epoch, sample),
// output batch x 3 x 224 x 224 bf16 (CHW per image) in one device buffer sized for the
// largest batch.
class BatchAugmenter {
 public:
  explicit BatchAugmenter(std::size_t max_batch)
      : m_out(max_batch * k_values_per_image), m_max_batch(max_batch) {}
  static constexpr std::size_t k_values_per_image =
      3 * static_cast<std::size_t>(k_crop_size) * k_crop_size;

  // Enqueues the augmentation of the batch `decoder` holds on `stream`.
  void enqueue(const NvjpegBatchDecoder& decoder, const EncodedBatch& batch, std::uint64_t seed,
               std::uint64_t epoch, cudaStream_t stream) {
    const std::size_t n = batch.count();
    if (n > m_max_batch) {
      throw infrastructure("batch of " + std::to_string(n) + " images for an augmentation " +
                           "buffer of " + std::to_string(m_max_batch));
    }
    m_images.resize(n);
    m_boxes.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const int w = decoder.widths()[i];
      const int h = decoder.heights()[i];
      m_boxes[i] = sample_crop_box(w, h, seed, epoch, batch.sample(i));
      m_images[i] = {decoder.device_rgb() + decoder.layout().offsets[i],
                     decoder.layout().pitches[i], w, h, m_boxes[i]};
    }
    GPUBENCH_CUDA_CHECK(launch_augment_batch(m_images.data(), static_cast<int>(n), k_crop_size,
                                             m_out.data(), stream));
  }
  const std::uint16_t* device_out() const noexcept { return m_out.data(); }
  const CropBox& box(std::size_t i) const { return m_boxes[i]; }

 private:
  cuda::DeviceBuffer<std::uint16_t> m_out;
  std::size_t m_max_batch;
  std::vector<DeviceAugmentImage> m_images;
  std::vector<CropBox> m_boxes;
};

// One untimed epoch: every image decoded on the GPU, copied back and compared with the CPU
// decode (JpegCodec::decode_rgb) within the decoder-vs-decoder tolerance; each sample exactly
// once, with the generator's label. Returns empty when all hold, else what failed first.
std::string validate_epoch(EncodedLoader& loader, NvjpegBatchDecoder& decoder,
                           BatchAugmenter& augmenter, const JpegCodec& codec, const NvjpegCase& c,
                           cudaStream_t stream) {
  const DatasetSpec& spec = c.spec;
  std::vector<std::uint8_t> seen(spec.samples, 0);
  std::vector<std::uint8_t> host;
  DecodedImage gpu;
  DecodedImage cpu;
  std::string first;
  std::uint64_t wrong = 0;
  // jpeg_codec.hpp's decoder-vs-decoder bound: covers a different IDCT and nearest (not
  // libjpeg's fancy) chroma upsampling, the two ways nvJPEG may differ.
  const DecodeTolerance tolerance = k_decoder_agreement_tolerance;
  std::vector<std::uint16_t> augmented;
  std::vector<std::uint16_t> reference(BatchAugmenter::k_values_per_image);
  std::uint64_t position = 0;  // of the image in the epoch, for the augmentation sample
  loader.run(epoch_order(spec, c.order, c.seed, 0), [&](const EncodedBatch& b) {
    decoder.decode(b);
    augmenter.enqueue(decoder, b, c.seed, 0, stream);
    const RgbBatchLayout& layout = decoder.layout();
    host.resize(layout.total_bytes);
    augmented.resize(b.count() * BatchAugmenter::k_values_per_image);
    GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(host.data(), decoder.device_rgb(), layout.total_bytes,
                                        cudaMemcpyDeviceToHost, stream));
    GPUBENCH_CUDA_CHECK(cudaMemcpyAsync(augmented.data(), augmenter.device_out(),
                                        augmented.size() * sizeof(std::uint16_t),
                                        cudaMemcpyDeviceToHost, stream));
    GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < b.count(); ++i, ++position) {
      const std::uint64_t s = b.sample(i);
      auto note = [&](const std::string& what) {
        ++wrong;
        if (first.empty()) first = "sample " + std::to_string(s) + ": " + what;
      };
      if (s >= spec.samples || seen[s]++) {
        note("delivered twice or out of range");
        continue;
      }
      if (b.label(i) != sample_label(spec.seed, s)) note("label differs from the generator's");
      gpu.width = decoder.widths()[i];
      gpu.height = decoder.heights()[i];
      unpitch_rgb(host.data() + layout.offsets[i], layout.pitches[i], gpu.width, gpu.height,
                  gpu.rgb);
      codec.decode_rgb(b.image(i), cpu);
      if (gpu.width != cpu.width || gpu.height != cpu.height) {
        note("nvJPEG decoded " + std::to_string(gpu.width) + "x" + std::to_string(gpu.height) +
             ", the CPU " + std::to_string(cpu.width) + "x" + std::to_string(cpu.height));
        continue;
      }
      // Every k_reference_every-th image, as the CPU pipeline's check (augment_reference takes
      // milliseconds per image on one thread).
      if (position % k_reference_every == 0) {
        // The augmentation of nvJPEG's own pixels, so this checks the kernel alone.
        augment_reference(gpu.rgb.data(), gpu.width, gpu.height, augmenter.box(i), k_crop_size,
                          reference.data());
        const std::span<const std::uint16_t> got(
            augmented.data() + i * BatchAugmenter::k_values_per_image,
            BatchAugmenter::k_values_per_image);
        if (const std::size_t beyond = count_beyond_one_bf16_step(got, reference); beyond > 0) {
          note("GPU augmentation: " + std::to_string(beyond) +
               " values more than one bf16 step from augment_reference");
        }
      }
      const DecodeDifference d = compare_images(gpu, cpu, tolerance);
      if (!within(d, tolerance)) {
        note("nvJPEG vs CPU decode: max |diff| " + std::to_string(d.max_abs) + ", mean " +
             std::to_string(d.mean_abs) + ", PSNR " + std::to_string(d.psnr_db) +
             " dB (allowed: max " + std::to_string(tolerance.max_abs) + ", mean " +
             std::to_string(tolerance.max_mean_abs) +
             ", PSNR >= " + std::to_string(tolerance.min_psnr_db) + " dB)");
      }
    }
  });
  std::uint64_t missing = 0;
  for (std::uint8_t v : seen) missing += v == 0 ? 1 : 0;
  if (missing > 0 && first.empty()) first = std::to_string(missing) + " samples never delivered";
  if (first.empty()) return {};
  return "nvJPEG's decode check failed: " + first + " (" + std::to_string(wrong) + " wrong, " +
         std::to_string(missing) + " missing)";
}

}  // namespace

std::string nvjpeg_unavailable_reason() {
  std::string nvjpeg_reason;
  std::string turbo_reason;
  const std::string cuda_reason = cuda_unavailable_reason();
  // Only look for the libraries when there is a GPU: the first cause is the one to fix.
  if (cuda_reason.empty()) {
    (void)nvjpeg_api(&nvjpeg_reason);
    (void)JpegCodec::get(&turbo_reason);
  }
  return first_unavailable_reason(cuda_reason, nvjpeg_reason, turbo_reason);
}

void run_nvjpeg_case(benchmark::State& state, const NvjpegCase& c,
                     const std::function<const Dataset&(const DatasetSpec&)>& dataset) {
  if (const std::string why = nvjpeg_unavailable_reason(); !why.empty()) {
    suite::skip(state, why);
    return;
  }
  std::string reason;
  const NvjpegApi* api = nvjpeg_api(&reason);
  const JpegCodec* codec = JpegCodec::get(&reason);
  GPUBENCH_CUDA_CHECK(cudaSetDevice(staging_device()));
  const Dataset& d = dataset(c.spec);
  DatasetReader reader(d, c.path);
  // Per worker: its own ByteReader and scratch (thread-safety contract of read_encoded).
  std::vector<std::unique_ptr<ByteReader>> byte_readers;
  std::vector<std::vector<char>> scratch(static_cast<std::size_t>(c.workers));
  for (int w = 0; w < c.workers; ++w) byte_readers.push_back(make_byte_reader(c.path));
  EncodedLoader loader(c.workers, c.batch,
                       [&](int w, std::uint64_t sample, std::vector<std::uint8_t>& jpeg) {
                         const auto i = static_cast<std::size_t>(w);
                         return reader.read_encoded(sample, jpeg, *byte_readers[i], scratch[i]);
                       });
  const cuda::Stream stream = cuda::Stream::create();
  NvjpegBatchDecoder decoder(*api, stream.get());
  BatchAugmenter augmenter(c.batch);
  // Validation before timing, once per case and process (later repetitions decode the same
  // images with the same library): every image checked. A failed check fails every repetition.
  static std::map<std::string, std::string> checked;  // case name -> "" or what failed
  const std::string name = nvjpeg_case_name(c);
  const bool validate_now = !checked.contains(name);
  if (validate_now) {
    checked[name] = validate_epoch(loader, decoder, augmenter, *codec, c, stream.get());
  }
  if (!checked[name].empty()) {
    suite::fail(state, checked[name]);
    return;
  }
  // Warm-up (untimed), for a repetition whose validation was cached: one epoch sizes the device
  // buffer and initialises a batched-decode state per batch size (full, and the short last
  // batch). A validation epoch run just now did both with this decoder, so no second untimed
  // epoch then.
  if (!validate_now) {
    loader.run(epoch_order(c.spec, c.order, c.seed, 0), [&](const EncodedBatch& b) {
      decoder.decode(b);
      augmenter.enqueue(decoder, b, c.seed, 0, stream.get());
      GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    });
  }
  ImageGpuTotals totals;
  std::uint64_t epoch = 1;
  for (auto _ : state) {
    const std::uint64_t e = epoch++;
    const std::vector<std::uint64_t> order = epoch_order(c.spec, c.order, c.seed, e);
    const double cpu0 = process_cpu_seconds();
    // One batch in flight on the GPU: the consumer waits for its decode and augmentation before
    // it returns the slot (nvJPEG may read the host bitstreams until then); workers keep
    // reading ahead.
    const double wall = loader.run(order, [&](const EncodedBatch& b) {
      decoder.decode(b);
      augmenter.enqueue(decoder, b, c.seed, e, stream.get());
      GPUBENCH_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
      totals.decode_s += decoder.decode_seconds();
      totals.images += b.count();
      totals.jpeg_bytes += b.total_bytes();
      for (std::size_t i = 0; i < b.count(); ++i) {
        totals.decoded_bytes += static_cast<std::uint64_t>(decoder.widths()[i]) *
                                    static_cast<std::uint64_t>(decoder.heights()[i]) * 3 +
                                4;
      }
    });
    totals.cpu_s += process_cpu_seconds() - cpu0;
    totals.wall_s += wall;
    state.SetIterationTime(wall);
  }
  report_image_gpu_counters(state, totals);
  state.SetLabel("device_index=" + std::to_string(staging_device()) + " nvjpeg=" + api->path);
}

}  // namespace gpubench::dataloader
