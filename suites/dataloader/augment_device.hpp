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

// Dynamic shared memory one launch may use: 48 KiB needs no opt-in
// (cudaFuncAttributeMaxDynamicSharedMemorySize) on any GPU.
constexpr std::size_t k_augment_max_shared_bytes = 48 * 1024;

// Bytes of shared memory the kernel needs for one launch of images[0..count) (count <=
// k_augment_images_per_launch) at out_size: tap tables strided by the largest x taps and the
// largest y taps of the launch, which can come from two different images. Host only, reads only
// the boxes.
std::size_t augment_launch_shared_bytes(const DeviceAugmentImage* images, int count, int out_size);

// Enqueues on `stream` the augmentation of images[0..count) into `out`: device memory of
// count * 3 * out_size * out_size bf16 values, image i at i * 3 * out_size * out_size, CHW.
// `images` is host memory, read before the call returns (the descriptors travel as kernel
// parameters); the pixels and `out` must stay valid until the stream has run the work.
// Returns cudaErrorInvalidValue, having enqueued nothing, when any descriptor is wrong (null
// pointer, pitch under 3 * width, box not inside the image, out_size < 1, count < 0) or a launch
// of k_augment_images_per_launch images (images [0, 32), [32, 64), ...) needs more than
// k_augment_max_shared_bytes (augment_launch_shared_bytes; at out_size 224: a crop downscaled
// more than 25x horizontally, or a launch holding one crop downscaled 25x horizontally and
// another 25x vertically); else the launches' error (cudaSuccess when queued).
cudaError_t launch_augment_batch(const DeviceAugmentImage* images, int count, int out_size,
                                 std::uint16_t* out, cudaStream_t stream);

}  // namespace gpubench::dataloader
