// The GPU half of the pipeline: pinned staging and host-to-device copies. No CUDA headers here;
// cuda_staging.cpp implements it when the CUDA part is built (GPUBENCH_HAVE_CUDA), and
// cuda_staging_stub.cpp otherwise, so the rest of the suite is the same either way.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "suites/dataloader/pipeline.hpp"

namespace gpubench::dataloader {

// Empty when a CUDA device is usable; else a reason ready for skip(), e.g.
// "no CUDA device (<the driver's message>)".
std::string cuda_unavailable_reason();

// CUDA devices visible to this process (0 without CUDA).
int cuda_device_count();

// The GPU the staging buffers and copies are for (--device / GPUBENCH_DEVICE; default 0). Set
// once, before any pinned buffer or sink is made.
void set_staging_device(int device);
int staging_device();

// The staging GPU as the context key gpubench.devices describes GPUs (CUDA ordinal, UUID, PCI
// bus id), so the store ties the copy results to it; "[]" without CUDA.
std::string staging_devices_json();

// Which of the H2D sink's two device buffers holds which batch (the sink's host logic, CUDA-free
// so it is unit-tested). Batches reach the consumer in any order (workers finish out of order:
// batch 3 then 5), so the buffer follows the order of begin() calls, not the batch index: the
// k-th begin() takes buffer k % 2, last taken by the (k-2)-th begin(), whose batch the pipeline
// finished before it passed the (k-1)-th batch on. finish() and copy_done_event() look the batch
// up by index. Consumer thread only.
class CopySlots {
 public:
  static constexpr std::size_t k_count = 2;
  static constexpr std::uint64_t k_none = ~std::uint64_t{0};
  // The buffer the next claim() takes, and the batch still in it (k_none when free).
  std::size_t next() const noexcept { return m_begun % k_count; }
  std::uint64_t batch_in(std::size_t slot) const noexcept { return m_batch[slot]; }
  // Records `batch` in buffer next() and moves on; the caller has released that buffer.
  std::size_t claim(std::uint64_t batch) noexcept {
    const std::size_t slot = next();
    m_batch[slot] = batch;
    m_begun += 1;
    return slot;
  }
  // The buffer holding `batch`; k_count when none does (finished, or never begun).
  std::size_t find(std::uint64_t batch) const noexcept {
    for (std::size_t s = 0; s < k_count; ++s) {
      if (m_batch[s] == batch) return s;
    }
    return k_count;
  }
  void release(std::size_t slot) noexcept { m_batch[slot] = k_none; }

 private:
  std::array<std::uint64_t, k_count> m_batch{k_none, k_none};
  std::uint64_t m_begun = 0;
};

// A sink that copies every batch to device memory with cudaMemcpyAsync on its own non-blocking
// stream, pixels and labels in one transfer (they share the staging slot). Two device buffers
// alternate by begin() call (CopySlots) and two copies may be in flight: end() returns at once
// and the pipeline calls finish() on the batch begun before (waiting for its copy only) before it
// reuses that staging slot, so each copy overlaps the consumer's step, the workers and the copy
// queued ahead of it. Throws Error(infrastructure) when CUDA is unavailable.
class H2DSink : public BatchSink {
 public:
  // Device bytes copied and the copy engine's time (CUDA events), for the GB/s figure.
  virtual double copied_bytes() const = 0;
  virtual double copy_seconds() const = 0;
  // Transfers issued per batch (1 when pixels and labels are contiguous in the staging slot).
  virtual double transfers_per_batch() const = 0;
  // The cudaEvent_t (untyped: no CUDA header here) recorded on the sink's stream after `batch`'s
  // copy, for work on another stream to wait on (cudaStreamWaitEvent: the training step). Valid
  // from begin(batch) until the second begin() after it, which re-records it; nullptr when
  // `batch` is not in flight.
  virtual void* copy_done_event(const Batch& batch) const = 0;
};
std::unique_ptr<H2DSink> make_h2d_sink(std::size_t batch_size, std::size_t record_bytes);

}  // namespace gpubench::dataloader
