// The training-time image augmentation of an ImageNet-style input pipeline (issue 41), on the
// CPU: torchvision's RandomResizedCrop(224, scale=(0.08, 1), ratio=(3/4, 4/3)) with its bilinear
// resize as PIL does it (separable triangle filter whose support grows with the downscale
// factor, i.e. antialiased), RandomHorizontalFlip(0.5), ToTensor (/255), Normalize(ImageNet mean
// and std), then conversion to bfloat16 (round to nearest even), laid out CHW.
//
// The crop box of a sample is drawn from (seed, epoch, sample) alone, so a GPU version of the
// same augmentation (augment_device.hpp) and a test can recompute it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpubench::dataloader {

constexpr int k_crop_size = 224;
constexpr float k_imagenet_mean[3] = {0.485f, 0.456f, 0.406f};
constexpr float k_imagenet_std[3] = {0.229f, 0.224f, 0.225f};

// A crop of the source image (pixels; inside it) and whether the output is mirrored.
struct CropBox {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
  bool flip = false;
};

// torchvision's RandomResizedCrop.get_params (10 tries of area fraction in `scale` and log-uniform
// aspect ratio in `ratio`, then the central crop clamped to `ratio`) plus a fair coin for the flip,
// with a generator seeded from (seed, epoch, sample).
CropBox sample_crop_box(int image_width, int image_height, std::uint64_t seed, std::uint64_t epoch,
                        std::uint64_t sample);

// bfloat16 bits of `value`, rounded to nearest even (NaN stays NaN), and back.
std::uint16_t float_to_bf16(float value);
float bf16_to_float(std::uint16_t bits);

// The reference: one output value at a time, with PIL's own arithmetic (double weights turned
// into 22-bit fixed point, the horizontal pass rounded to 8 bits before the vertical one, as
// augment.cpp explains), so it is the uint8 image torchvision would produce. `rgb` is
// interleaved 8-bit RGB (width * 3 bytes per row); `out` holds 3 * out_size * out_size bf16
// values, channel-major (CHW).
void augment_reference(const std::uint8_t* rgb, int width, int height, const CropBox& box,
                       int out_size, std::uint16_t* out);

// The pipeline's version: the same result (each value within one bf16 step of the reference),
// fast. `scratch` is the caller's per-thread buffer (resized as needed).
void augment_cpu(const std::uint8_t* rgb, int width, int height, const CropBox& box, int out_size,
                 std::uint16_t* out, std::vector<float>& scratch);

}  // namespace gpubench::dataloader
