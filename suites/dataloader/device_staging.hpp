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

// A sink that copies every batch (pixels and labels) to device memory with cudaMemcpyAsync on its
// own non-blocking stream. Two device buffers alternate (double buffering): the copy of batch k
// overlaps the consumer's step and the workers' reading of k + 1; end() waits for batch k's copy,
// so its staging slot can be reused. Throws Error(infrastructure) when CUDA is unavailable.
class H2DSink : public BatchSink {
 public:
  // Device bytes copied and the copy engine's time (CUDA events), for the GB/s figure.
  virtual double copied_bytes() const = 0;
  virtual double copy_seconds() const = 0;
};
std::unique_ptr<H2DSink> make_h2d_sink(std::size_t batch_size, std::size_t record_bytes);

}  // namespace gpubench::dataloader
