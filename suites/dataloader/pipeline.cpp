#include "suites/dataloader/pipeline.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "suites/dataloader/training_step.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Blocking queue of slot numbers; close() wakes every waiter (used on error).
class SlotQueue {
 public:
  void push(std::size_t slot) {
    {
      std::lock_guard lock(m_mutex);
      m_items.push_back(slot);
    }
    m_cv.notify_one();
  }
  // False when closed and empty.
  bool pop(std::size_t& slot) {
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [&] { return !m_items.empty() || m_closed; });
    if (m_items.empty()) return false;
    slot = m_items.front();
    m_items.pop_front();
    return true;
  }
  void close() {
    {
      std::lock_guard lock(m_mutex);
      m_closed = true;
    }
    m_cv.notify_all();
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<std::size_t> m_items;
  bool m_closed = false;
};

class AlignedBuffer final : public HostBuffer {
 public:
  explicit AlignedBuffer(std::size_t bytes) : m_size(bytes) {
    const std::size_t rounded = (bytes + 4095) / 4096 * 4096;
    m_data = std::aligned_alloc(4096, rounded == 0 ? 4096 : rounded);
    if (!m_data)
      throw infrastructure("cannot allocate " + std::to_string(bytes) + " bytes of staging memory");
    std::memset(m_data, 0, rounded);  // fault the pages in now, not while timing
  }
  ~AlignedBuffer() override { std::free(m_data); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  void* data() noexcept override { return m_data; }
  std::size_t size() const noexcept override { return m_size; }

 private:
  void* m_data = nullptr;
  std::size_t m_size = 0;
};

std::size_t pixel_region_bytes(std::size_t batch, std::size_t record_bytes) {
  return (batch * record_bytes + 4095) / 4096 * 4096;
}

// Bytes of one sample in a staging slot: the source's output record, else the dataset's.
std::size_t record_bytes_of(const DatasetReader& reader, const PipelineConfig& config) {
  return config.source ? config.source->record_bytes() : reader.spec().record_bytes;
}

}  // namespace

const char* to_string(HostMemory memory) {
  return memory == HostMemory::pinned ? "pinned" : "pageable";
}

std::unique_ptr<HostBuffer> allocate_host_buffer(std::size_t bytes, HostMemory memory) {
  if (memory == HostMemory::pinned) return allocate_pinned_buffer(bytes);
  return std::make_unique<AlignedBuffer>(bytes);
}

void validate(const PipelineConfig& config) {
  if (config.workers < 1 || config.workers > k_max_workers) {
    throw bad_input("worker count " + std::to_string(config.workers) + " is out of range",
                    "it must be between 1 and " + std::to_string(k_max_workers),
                    "use a worker count such as 1, 2, 4 or 2 x cores (" +
                        std::to_string(std::thread::hardware_concurrency()) + " cores here)");
  }
  if (config.batch_size < 1 || config.batch_size > (std::size_t{1} << 20)) {
    throw bad_input("batch size " + std::to_string(config.batch_size) + " is out of range",
                    "it must be between 1 and 1048576");
  }
  if (config.slots != 0 && config.slots < 2) {
    throw bad_input("pipeline needs at least 2 staging slots, got " + std::to_string(config.slots));
  }
}

Pipeline::Pipeline(const DatasetReader& reader, const PipelineConfig& config)
    : m_reader(reader), m_config(config) {
  validate(m_config);
  if (m_config.slots == 0) m_config.slots = static_cast<std::size_t>(m_config.workers) + 2;
  const std::size_t rb = record_bytes_of(m_reader, m_config);
  const std::size_t bytes = pixel_region_bytes(m_config.batch_size, rb) + m_config.batch_size * 4;
  for (std::size_t i = 0; i < m_config.slots; ++i) {
    m_slots.push_back(allocate_host_buffer(bytes, m_config.memory));
  }
}

Pipeline::~Pipeline() = default;

PipelineResult Pipeline::run(BatchSink* sink, TrainingStep* step) {
  const DatasetSpec& spec = m_reader.spec();
  const std::size_t batch = m_config.batch_size;
  const std::size_t rb = record_bytes_of(m_reader, m_config);
  std::uint64_t batches = (spec.samples + batch - 1) / batch;
  if (m_config.max_batches > 0) batches = std::min(batches, m_config.max_batches);

  // This epoch's order, checked before the clock starts: a duplicate or missing sample here
  // would be a wrong answer measured as a fast one.
  std::vector<std::uint64_t> order;
  if (m_config.order != Order::sequential) {
    order =
        epoch_order(spec, m_config.order, m_config.order_seed, m_epoch, m_config.shuffle_buffer);
    if (const std::string bad = check_permutation(order, spec.samples); !bad.empty()) {
      throw infrastructure(std::string(to_string(m_config.order)) + " order of epoch " +
                           std::to_string(m_epoch) + " is not a permutation: " + bad);
    }
  }
  const std::uint64_t epoch = m_epoch++;
  std::vector<Batch> meta(m_slots.size());
  std::vector<double> latency_us(batches, 0.0);
  SlotQueue free_slots;
  SlotQueue ready;
  for (std::size_t i = 0; i < m_slots.size(); ++i) free_slots.push(i);
  std::atomic<std::uint64_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto abort_with = [&](std::exception_ptr e) {
    {
      std::lock_guard lock(error_mutex);
      if (!error) error = e;
    }
    free_slots.close();
    ready.close();
  };

  auto worker = [&] {
    try {
      auto byte_reader = make_byte_reader(m_reader.read_path());
      std::vector<char> scratch;
      const auto source = m_config.source ? m_config.source->make_worker() : nullptr;
      std::size_t slot = 0;
      while (free_slots.pop(slot)) {
        const std::uint64_t k = next.fetch_add(1);
        if (k >= batches) {
          free_slots.push(slot);  // let the other workers see the end too
          return;
        }
        const auto t0 = Clock::now();
        auto* base = static_cast<std::uint8_t*>(m_slots[slot]->data());
        Batch& b = meta[slot];
        b.index = k;
        b.first_sample = k * batch;
        b.count =
            static_cast<std::size_t>(std::min<std::uint64_t>(batch, spec.samples - b.first_sample));
        b.pixels = base;
        b.labels = reinterpret_cast<std::uint32_t*>(base + pixel_region_bytes(batch, rb));
        b.slot = slot;
        b.indices = order.empty() ? nullptr : order.data() + b.first_sample;
        b.epoch = epoch;
        if (source) source->fill(b);
        // One read per run of consecutive samples (all of them when sequential).
        for (std::size_t i = 0; !source && i < b.count;) {
          std::size_t run = 1;
          while (i + run < b.count && b.sample(i + run) == b.sample(i) + run) ++run;
          m_reader.read_samples(b.sample(i), run, b.labels + i, b.pixels + i * rb, *byte_reader,
                                scratch);
          i += run;
        }
        latency_us[k] = seconds_between(t0, Clock::now()) * 1e6;
        ready.push(slot);
      }
    } catch (...) {
      abort_with(std::current_exception());
    }
  };

  PipelineResult result;
  // Slots a sink may still be reading after end(); never all of them, so workers keep one.
  const std::size_t held_limit =
      sink ? std::min(sink->held(), m_slots.size() > 2 ? m_slots.size() - 2 : 0) : 0;
  std::deque<std::size_t> held;
  EmulatedStep emulated(m_config.step);
  TrainingStep* consumer_step = step ? step : m_config.step.count() > 0 ? &emulated : nullptr;
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(m_config.workers));
  for (int i = 0; i < m_config.workers; ++i) threads.emplace_back(worker);

  try {
    for (std::uint64_t got = 0; got < batches; ++got) {
      const auto wait0 = Clock::now();
      std::size_t slot = 0;
      if (!ready.pop(slot)) break;  // a worker failed
      result.stall_s += seconds_between(wait0, Clock::now());
      const Batch& b = meta[slot];
      if (sink) sink->begin(b);
      if (consumer_step) consumer_step->run(b);
      if (sink) sink->end(b);
      result.batches += 1;
      result.samples += b.count;
      result.bytes += b.count * (rb + 4);
      // A sink still copying from the slot holds it until the batch it is about to reuse the
      // device buffer of is finished (double buffering: two copies in flight at most).
      if (held_limit == 0) {
        free_slots.push(slot);
        continue;
      }
      held.push_back(slot);
      while (held.size() > held_limit) {
        sink->finish(meta[held.front()]);
        free_slots.push(held.front());
        held.pop_front();
      }
    }
    if (consumer_step) consumer_step->finish();  // the wall time covers the last step
    while (!held.empty()) {
      sink->finish(meta[held.front()]);
      free_slots.push(held.front());
      held.pop_front();
    }
  } catch (...) {
    abort_with(std::current_exception());
  }
  result.wall_s = seconds_between(start, Clock::now());
  free_slots.close();  // workers blocked on a slot after the last batch exit
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
  result.batch_latency_us = std::move(latency_us);
  return result;
}

VerifySink::VerifySink(const DatasetSpec& spec)
    : m_spec(spec), m_seen(spec.samples, 0), m_expected(spec.record_bytes) {}

void VerifySink::begin(const Batch& batch) {
  for (std::size_t i = 0; i < batch.count; ++i) {
    const std::uint64_t index = batch.sample(i);
    if (index >= m_seen.size()) {
      ++m_mismatches;
      if (m_first_mismatch.empty())
        m_first_mismatch = "sample index " + std::to_string(index) + " is past the end";
      continue;
    }
    if (m_seen[index]++) ++m_duplicates;
    ++m_checked;
    fill_sample_pixels(m_spec.seed, index, m_expected);
    const bool label_ok = batch.labels[i] == sample_label(m_spec.seed, index);
    const bool pixels_ok = std::memcmp(batch.pixels + i * m_spec.record_bytes, m_expected.data(),
                                       m_spec.record_bytes) == 0;
    if (!label_ok || !pixels_ok) {
      ++m_mismatches;
      if (m_first_mismatch.empty()) {
        m_first_mismatch = "sample " + std::to_string(index) + ": " +
                           (label_ok ? "pixels differ from the generator's"
                                     : "label " + std::to_string(batch.labels[i]) + " != " +
                                           std::to_string(sample_label(m_spec.seed, index)));
      }
    }
  }
}

std::uint64_t VerifySink::missing() const {
  std::uint64_t n = 0;
  for (auto s : m_seen) n += s == 0 ? 1 : 0;
  return n;
}

double percentile(std::vector<double> values, double pct) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = pct / 100.0 * static_cast<double>(values.size());
  std::size_t idx = rank <= 1 ? 0 : static_cast<std::size_t>(std::ceil(rank)) - 1;
  return values[std::min(idx, values.size() - 1)];
}

}  // namespace gpubench::dataloader
