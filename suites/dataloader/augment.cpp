// PLACEHOLDER (issue 41 contract): replaced by branch i41-augment.
#include "suites/dataloader/augment.hpp"

#include "util/error.hpp"

namespace gpubench::dataloader {

CropBox sample_crop_box(int, int, std::uint64_t, std::uint64_t, std::uint64_t) {
  throw infrastructure("crop sampling", "not built yet (issue 41 placeholder)");
}
std::uint16_t float_to_bf16(float) {
  throw infrastructure("bf16 conversion", "not built yet (issue 41 placeholder)");
}
float bf16_to_float(std::uint16_t) {
  throw infrastructure("bf16 conversion", "not built yet (issue 41 placeholder)");
}
void augment_reference(const std::uint8_t*, int, int, const CropBox&, int, std::uint16_t*) {
  throw infrastructure("augmentation", "not built yet (issue 41 placeholder)");
}
void augment_cpu(const std::uint8_t*, int, int, const CropBox&, int, std::uint16_t*,
                 std::vector<float>&) {
  throw infrastructure("augmentation", "not built yet (issue 41 placeholder)");
}

}  // namespace gpubench::dataloader
