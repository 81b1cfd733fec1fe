// Host half of the nvJPEG image pipeline (image_gpu.hpp): batch assembly, the encoded-bytes
// loader, device layouts, skip reasons and counters. No CUDA here.
#include "suites/dataloader/image_gpu.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "suites/dataloader/image_pipeline.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {

void EncodedBatch::clear() {
  m_bytes.clear();
  m_offsets.clear();
  m_lengths.clear();
  m_samples.clear();
  m_labels.clear();
}

void EncodedBatch::add(std::uint64_t sample, std::uint32_t label,
                       std::span<const std::uint8_t> jpeg) {
  m_offsets.push_back(m_bytes.size());
  m_lengths.push_back(jpeg.size());
  m_samples.push_back(sample);
  m_labels.push_back(label);
  m_bytes.insert(m_bytes.end(), jpeg.begin(), jpeg.end());
}

const unsigned char* const* EncodedBatch::data_pointers() const {
  // Rebuilt on demand: add() may have moved m_bytes.
  m_pointers.resize(m_lengths.size());
  for (std::size_t i = 0; i < m_lengths.size(); ++i) m_pointers[i] = m_bytes.data() + m_offsets[i];
  return m_pointers.data();
}

EncodedLoader::EncodedLoader(int workers, std::size_t batch_size, ReadEncodedFn read)
    : m_workers(workers), m_batch(batch_size), m_read(std::move(read)) {
  if (workers < 1 || workers > 1024) {
    throw bad_input("loader workers " + std::to_string(workers) + " out of range",
                    "1..1024 workers", "set GPUBENCH_DATALOADER_WORKERS within that range");
  }
  if (batch_size == 0) throw bad_input("batch size 0", "a batch holds at least one image");
  m_slots.resize(static_cast<std::size_t>(workers) + 2);
}

double EncodedLoader::run(const std::vector<std::uint64_t>& order,
                          const std::function<void(const EncodedBatch&)>& consume) {
  const std::uint64_t batches = (order.size() + m_batch - 1) / m_batch;
  // Slots move free -> a worker -> ready -> the consumer -> free, one owner at a time, through
  // these two queues under one mutex.
  std::mutex mu;
  std::condition_variable cv;
  std::deque<EncodedBatch*> free_slots;
  std::deque<EncodedBatch*> ready;
  for (EncodedBatch& s : m_slots) free_slots.push_back(&s);
  std::atomic<std::uint64_t> next{0};
  bool stop = false;
  std::exception_ptr worker_error;

  const double t0 = monotonic_seconds();
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(m_workers));
  for (int w = 0; w < m_workers; ++w) {
    threads.emplace_back([&, w] {
      std::vector<std::uint8_t> jpeg;
      try {
        for (;;) {
          const std::uint64_t k = next.fetch_add(1);
          if (k >= batches) return;
          EncodedBatch* slot = nullptr;
          {
            std::unique_lock lock(mu);
            cv.wait(lock, [&] { return stop || !free_slots.empty(); });
            if (stop) return;
            slot = free_slots.front();
            free_slots.pop_front();
          }
          slot->clear();
          slot->index = k;
          const std::size_t first = static_cast<std::size_t>(k * m_batch);
          const std::size_t last = std::min(order.size(), first + m_batch);
          for (std::size_t p = first; p < last; ++p) {
            const std::uint32_t label = m_read(w, order[p], jpeg);
            slot->add(order[p], label, jpeg);
          }
          {
            std::lock_guard lock(mu);
            ready.push_back(slot);
          }
          cv.notify_all();
        }
      } catch (...) {
        std::lock_guard lock(mu);
        if (!worker_error) worker_error = std::current_exception();
        stop = true;
        cv.notify_all();
      }
    });
  }
  std::exception_ptr consumer_error;
  for (std::uint64_t n = 0; n < batches; ++n) {
    EncodedBatch* slot = nullptr;
    {
      std::unique_lock lock(mu);
      cv.wait(lock, [&] { return stop || !ready.empty(); });
      if (stop) break;
      slot = ready.front();
      ready.pop_front();
    }
    try {
      consume(*slot);
    } catch (...) {
      consumer_error = std::current_exception();
      std::lock_guard lock(mu);
      stop = true;
      cv.notify_all();
      break;
    }
    {
      std::lock_guard lock(mu);
      free_slots.push_back(slot);
    }
    cv.notify_all();
  }
  const double wall = monotonic_seconds() - t0;
  for (std::thread& t : threads) t.join();
  if (worker_error) std::rethrow_exception(worker_error);
  if (consumer_error) std::rethrow_exception(consumer_error);
  return wall;
}

RgbBatchLayout layout_rgb_batch(std::span<const int> widths, std::span<const int> heights,
                                std::size_t pitch_align) {
  if (widths.size() != heights.size()) {
    throw infrastructure("layout_rgb_batch: " + std::to_string(widths.size()) + " widths but " +
                         std::to_string(heights.size()) + " heights");
  }
  if (pitch_align == 0) pitch_align = 1;
  RgbBatchLayout out;
  out.offsets.reserve(widths.size());
  out.pitches.reserve(widths.size());
  for (std::size_t i = 0; i < widths.size(); ++i) {
    if (widths[i] <= 0 || heights[i] <= 0) {
      throw bad_input("image " + std::to_string(i) + " of the batch is " +
                          std::to_string(widths[i]) + "x" + std::to_string(heights[i]) + " pixels",
                      "nvjpegGetImageInfo gave no usable size");
    }
    const auto row = static_cast<std::size_t>(widths[i]) * 3;
    const std::size_t pitch = (row + pitch_align - 1) / pitch_align * pitch_align;
    out.offsets.push_back(out.total_bytes);
    out.pitches.push_back(pitch);
    // Each image starts aligned too: its size is a multiple of the (aligned) pitch.
    out.total_bytes += pitch * static_cast<std::size_t>(heights[i]);
  }
  return out;
}

void unpitch_rgb(const std::uint8_t* pitched, std::size_t pitch, int width, int height,
                 std::vector<std::uint8_t>& tight) {
  const auto row = static_cast<std::size_t>(width) * 3;
  tight.resize(row * static_cast<std::size_t>(height));
  for (int y = 0; y < height; ++y) {
    std::memcpy(tight.data() + row * static_cast<std::size_t>(y),
                pitched + pitch * static_cast<std::size_t>(y), row);
  }
}

std::size_t count_beyond_one_bf16_step(std::span<const std::uint16_t> got,
                                       std::span<const std::uint16_t> want) {
  if (got.size() != want.size()) {
    throw infrastructure("bf16 comparison of " + std::to_string(got.size()) + " values with " +
                         std::to_string(want.size()));
  }
  std::size_t beyond = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (bf16_steps_between(got[i], want[i]) > 1) ++beyond;
  }
  return beyond;
}

std::string first_unavailable_reason(const std::string& cuda_reason,
                                     const std::string& nvjpeg_reason,
                                     const std::string& turbojpeg_reason) {
  if (!cuda_reason.empty()) return cuda_reason;
  if (!nvjpeg_reason.empty()) return nvjpeg_reason;
  if (!turbojpeg_reason.empty()) {
    return turbojpeg_reason + " (the CPU decode that checks nvJPEG's pixels)";
  }
  return {};
}

std::vector<std::pair<std::string, double>> image_gpu_counters(const ImageGpuTotals& t) {
  const double per_s = t.wall_s > 0 ? 1 / t.wall_s : 0;
  const auto images = static_cast<double>(t.images);
  // What the CPU image case's MB_per_s counts: each delivered sample is one augmented
  // 3 x 224 x 224 bf16 image plus its 4-byte label.
  const double delivered_bytes = images * static_cast<double>(k_augmented_image_bytes + 4);
  return {
      {"images_per_s", images * per_s},
      {"samples_per_s", images * per_s},
      {"MB_per_s", delivered_bytes * per_s / 1e6},
      {"decoded_MB_per_s", static_cast<double>(t.decoded_bytes) * per_s / 1e6},
      {"input_MB_per_s", static_cast<double>(t.jpeg_bytes) * per_s / 1e6},
      {"cpu_cores_used", t.cpu_s * per_s},
      {"gpu_decode_fraction", t.decode_s * per_s},
  };
}

void report_image_gpu_counters(benchmark::State& state, const ImageGpuTotals& t) {
  for (const auto& [name, value] : image_gpu_counters(t)) state.counters[name] = value;
}

std::string nvjpeg_case_name(const NvjpegCase& c) {
  return "dataloader/image/format:" + std::string(to_string(c.spec.format)) +
         "/size:" + std::to_string(c.spec.image_width) + "x" + std::to_string(c.spec.image_height) +
         "/decode:nvjpeg/path:" + to_string(c.path) + "/workers:" + std::to_string(c.workers) +
         "/order:" + to_string(c.order) + "/cache:warm";
}

}  // namespace gpubench::dataloader
