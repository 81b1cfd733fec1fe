// The augmentation of augment.hpp on the GPU, batched (issue 41): for each image of a batch, its
// crop box resized to out_size x out_size with PIL's bilinear filter and 8-bit intermediate,
// mirrored when the box says so, normalised with the ImageNet mean and std and written as bf16,
// CHW. Same arithmetic as augment_reference (integer fixed point, IEEE double for the weights,
// IEEE float for the normalisation), so the result is the same bits.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "suites/dataloader/augment.hpp"

namespace gpubench::dataloader {

// One image of a batch, described on the host: where its decoded pixels are on the device and
// which crop of it to augment. Non-owning.
struct DeviceAugmentImage {
  const std::uint8_t* rgb = nullptr;  // device memory: interleaved 8-bit RGB, row 0 first
  std::size_t pitch_bytes = 0;        // bytes from one row to the next, at least 3 * width
  int width = 0;                      // pixels
  int height = 0;                     // pixels
  CropBox box;                        // inside the image (sample_crop_box)
};

// Images one kernel launch carries in its parameter block (under the 4 KiB every CUDA version
// accepts); larger batches are split into several launches on the same stream.
constexpr int k_augment_images_per_launch = 32;

// Enqueues on `stream` the augmentation of images[0..count) into `out`: device memory of
// count * 3 * out_size * out_size bf16 values, image i at i * 3 * out_size * out_size, CHW.
// `images` is host memory, read before the call returns (the descriptors travel as kernel
// parameters); the pixels and `out` must stay valid until the stream has run the work.
// Returns cudaErrorInvalidValue, having enqueued nothing, when any descriptor is wrong (null
// pointer, pitch under 3 * width, box not inside the image, out_size < 1, count < 0) or a crop is
// so much larger than out_size that its filter taps do not fit in 48 KiB of shared memory
// (a downscale of about 50x at out_size 224); else the launches' error (cudaSuccess when queued).
cudaError_t launch_augment_batch(const DeviceAugmentImage* images, int count, int out_size,
                                 std::uint16_t* out, cudaStream_t stream);

}  // namespace gpubench::dataloader
