// Built when the CUDA part is off: the nvJPEG cases report why they cannot run.
#include "suites/common/suite_support.hpp"
#include "suites/dataloader/device_staging.hpp"
#include "suites/dataloader/image_gpu.hpp"

namespace gpubench::dataloader {

std::string nvjpeg_unavailable_reason() {
  return first_unavailable_reason(cuda_unavailable_reason(), {}, {});
}

void run_nvjpeg_case(benchmark::State& state, const NvjpegCase& /*c*/,
                     const std::function<const Dataset&(const DatasetSpec&)>& /*dataset*/) {
  suite::skip(state, nvjpeg_unavailable_reason());
}

}  // namespace gpubench::dataloader
