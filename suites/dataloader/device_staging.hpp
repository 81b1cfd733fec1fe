// The GPU half of the pipeline: pinned staging and host-to-device copies. No CUDA headers here;
// cuda_staging.cpp implements it when the CUDA part is built (GPUBENCH_HAVE_CUDA), and
// cuda_staging_stub.cpp otherwise, so the rest of the suite is the same either way.
#pragma once

#include <cstddef>
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

// A sink that copies every batch to device memory with cudaMemcpyAsync on its own non-blocking
// stream, pixels and labels in one transfer (they share the staging slot). Two device buffers
// alternate and two copies may be in flight: end() returns at once and the pipeline calls
// finish() on batch k - 1 (waiting for its copy only) before it reuses that staging slot, so the
// copy of batch k overlaps the consumer's step, the workers and the copy of k - 1 queued ahead
// of it. Throws Error(infrastructure) when CUDA is unavailable.
class H2DSink : public BatchSink {
 public:
  // Device bytes copied and the copy engine's time (CUDA events), for the GB/s figure.
  virtual double copied_bytes() const = 0;
  virtual double copy_seconds() const = 0;
  // Transfers issued per batch (1 when pixels and labels are contiguous in the staging slot).
  virtual double transfers_per_batch() const = 0;
  // The cudaEvent_t (untyped: no CUDA header here) recorded on the sink's stream after `batch`'s
  // copy, for work on another stream to wait on (cudaStreamWaitEvent: the training step). Valid
  // from begin(batch) until the begin() of batch.index + 2, which re-records it.
  virtual void* copy_done_event(const Batch& batch) const = 0;
};
std::unique_ptr<H2DSink> make_h2d_sink(std::size_t batch_size, std::size_t record_bytes);

}  // namespace gpubench::dataloader
