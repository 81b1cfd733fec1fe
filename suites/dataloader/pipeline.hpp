// The input pipeline: N worker threads read and decode batches into host staging slots; one
// consumer (the calling thread) takes them in any order, hands them to a BatchSink (e.g. an H2D
// copy), runs a training step (training_step.hpp: emulated or on the GPU), and returns the slot.
//
//   workers --(free slots)--> fill batch k --(ready queue)--> consumer: sink.begin, step.run,
//                                                             sink.end, slot back to free
//
// Synchronisation: a slot is owned by exactly one side at a time, handed over through the two
// mutex+condvar queues. Every batch index in [0, batches) is claimed once (atomic counter), so a
// sample is counted once. The last batch of an epoch may be short.
//
// Order (sample_order.hpp): each run() is one epoch; batch k holds the samples at positions
// [k * batch, ...) of that epoch's order, which run() computes and checks is a permutation
// before it starts the clock. Sequential batches are one contiguous read; shuffled ones one read
// per run of consecutive samples (a shuffled epoch is random reads, which is the point).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "suites/dataloader/dataset_reader.hpp"
#include "suites/dataloader/host_memory.hpp"
#include "suites/dataloader/sample_order.hpp"

namespace gpubench::dataloader {

class TrainingStep;

struct Batch {
  std::uint64_t index = 0;         // batch number in the epoch
  std::uint64_t first_sample = 0;  // position of its first sample in the epoch's order
  std::size_t count = 0;           // samples in this batch (<= batch size)
  std::uint32_t* labels = nullptr;
  std::uint8_t* pixels = nullptr;  // count * record_bytes, in the staging slot
  std::size_t slot = 0;            // which staging slot holds it
  // The samples, in slot order, when the epoch is not sequential (count entries, owned by the
  // pipeline for the epoch); null: samples first_sample .. first_sample + count - 1.
  const std::uint64_t* indices = nullptr;
  std::uint64_t epoch = 0;  // the epoch this batch belongs to (Pipeline::run's epoch())
  std::uint64_t sample(std::size_t i) const { return indices ? indices[i] : first_sample + i; }
};

// What the workers put in a staging slot instead of the dataset's records as read_samples
// decodes them (the image pipeline, image_pipeline.hpp: JPEG decode and augmentation). Each
// sample becomes a fixed-size output record and a label.
class SampleSource {
 public:
  virtual ~SampleSource() = default;
  // Bytes of one sample's output record in the staging slot.
  virtual std::size_t record_bytes() const = 0;
  // One per worker thread and epoch, used by that thread only: it owns the thread's reader and
  // buffers, so a batch needs no allocation once the first images have sized them.
  class Worker {
   public:
    virtual ~Worker() = default;
    // Fills batch.labels[i] and the record at batch.pixels + i * record_bytes() for each
    // batch.sample(i), i < batch.count. Throws to abort the epoch (the pipeline rethrows).
    virtual void fill(const Batch& batch) = 0;
  };
  virtual std::unique_ptr<Worker> make_worker() const = 0;
};

// What the consumer does with each batch besides the emulated step.
class BatchSink {
 public:
  virtual ~BatchSink() = default;
  // On receipt; may start asynchronous work that reads the batch (an H2D copy).
  virtual void begin(const Batch& batch) = 0;
  // After the step. A sink with held() == 0 must finish every use of the batch's memory before
  // returning.
  virtual void end(const Batch& /*batch*/) {}
  // How many ended batches the sink may still be reading (an asynchronous copy in flight). The
  // pipeline keeps that many staging slots back and calls finish() on the oldest before it
  // reuses its slot, and on every held batch before run() returns.
  virtual std::size_t held() const { return 0; }
  // Must finish every use of the batch's memory before returning.
  virtual void finish(const Batch& /*batch*/) {}
};

// The limits worker counts are checked against: 0 is meaningless, above this is a typo.
constexpr int k_max_workers = 1024;

struct PipelineConfig {
  int workers = 2;
  std::size_t batch_size = 64;
  std::size_t slots = 0;              // staging slots; 0 = workers + 2 (each worker one ahead)
  std::chrono::microseconds step{0};  // emulated step per batch (sleep) when run() gets no step
  HostMemory memory = HostMemory::page_aligned;
  std::uint64_t max_batches = 0;  // 0 = one full epoch
  Order order = Order::sequential;
  std::uint64_t order_seed = 0;  // with the epoch number, picks each epoch's order
  std::size_t shuffle_buffer = k_default_shuffle_buffer;  // shard_shuffled's buffer, in samples
  // Not owned, outlives the pipeline; null: workers read the dataset's records (read_samples).
  const SampleSource* source = nullptr;
};

// Throws Error(bad_input) for workers outside 1..k_max_workers, batch size 0 or above 2^20.
void validate(const PipelineConfig& config);

struct PipelineResult {
  std::uint64_t batches = 0;
  std::uint64_t samples = 0;
  std::uint64_t bytes = 0;               // decoded bytes delivered (pixels + 4-byte labels)
  double wall_s = 0;                     // consumer start to last batch returned
  double stall_s = 0;                    // consumer time spent waiting for a ready batch
  std::vector<double> batch_latency_us;  // per batch: worker start to batch ready
  double stall_fraction() const { return wall_s > 0 ? stall_s / wall_s : 0; }
};

// Staging slots allocated once and reused across epochs (allocation stays out of timing).
class Pipeline {
 public:
  Pipeline(const DatasetReader& reader, const PipelineConfig& config);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // Runs one epoch (or max_batches) in the order of epoch epoch() and advances it. `sink` may be
  // null. `step` runs on every batch between sink.begin and sink.end and is finished before the
  // clock stops; null: an EmulatedStep of config.step when that is positive. Rethrows the first
  // worker error.
  PipelineResult run(BatchSink* sink = nullptr, TrainingStep* step = nullptr);
  std::uint64_t epoch() const noexcept { return m_epoch; }

 private:
  const DatasetReader& m_reader;
  PipelineConfig m_config;
  std::vector<std::unique_ptr<HostBuffer>> m_slots;
  std::uint64_t m_epoch = 0;
};

// Checks every sample it receives against the generator and records which samples it saw, so a
// caller can assert each sample arrived exactly once with the right values. Used before timing
// (a wrong answer is a failure, not a fast result) and by the tests. Consumer thread only.
class VerifySink : public BatchSink {
 public:
  explicit VerifySink(const DatasetSpec& spec);
  void begin(const Batch& batch) override;

  std::uint64_t samples_checked() const noexcept { return m_checked; }
  std::uint64_t duplicates() const noexcept { return m_duplicates; }
  std::uint64_t missing() const;  // samples of the dataset never seen
  const std::string& first_mismatch() const noexcept { return m_first_mismatch; }  // empty: none
  std::uint64_t mismatches() const noexcept { return m_mismatches; }

 private:
  DatasetSpec m_spec;
  std::vector<std::uint8_t> m_seen;
  std::vector<std::uint8_t> m_expected;
  std::uint64_t m_checked = 0;
  std::uint64_t m_duplicates = 0;
  std::uint64_t m_mismatches = 0;
  std::string m_first_mismatch;
};

// Percentile (0..100) by nearest rank of an unsorted copy; 0 for an empty vector.
double percentile(std::vector<double> values, double pct);

}  // namespace gpubench::dataloader
