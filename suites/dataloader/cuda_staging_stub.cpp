// Built when the CUDA part is off: the GPU cases report why they cannot run.
#include "suites/dataloader/device_staging.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {

std::string cuda_unavailable_reason() {
  return "no CUDA device (gpubench was built without CUDA)";
}

int cuda_device_count() {
  return 0;
}

void set_staging_device(int /*device*/) {}

int staging_device() {
  return 0;
}

std::string staging_devices_json() {
  return "[]";
}

std::unique_ptr<HostBuffer> allocate_pinned_buffer(std::size_t /*bytes*/) {
  throw infrastructure("pinned memory needs CUDA", cuda_unavailable_reason());
}

std::unique_ptr<H2DSink> make_h2d_sink(std::size_t /*batch_size*/, std::size_t /*record_bytes*/) {
  throw infrastructure("host-to-device copies need CUDA", cuda_unavailable_reason());
}

}  // namespace gpubench::dataloader
