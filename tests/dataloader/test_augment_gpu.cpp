// GPU tests (label `gpu`): the batched device augmentation (augment_device.hpp) against the CPU
// reference, bit for bit, on random images with padded rows and random boxes; the descriptor
// checks, which refuse before any CUDA call and so also run without a device.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <random>
#include <vector>

#include "suites/common/cuda/resources.hpp"
#include "suites/dataloader/augment.hpp"
#include "suites/dataloader/augment_device.hpp"
#include "tests/gpu/require_device.hpp"

namespace dl = gpubench::dataloader;
namespace cu = gpubench::suite::cuda;

namespace {

struct HostImage {
  int width = 0;
  int height = 0;
  std::size_t pitch = 0;          // bytes per row on the device (padded past 3 * width)
  std::vector<std::uint8_t> rgb;  // packed, 3 * width bytes per row, for the reference
  dl::CropBox box;
};

}  // namespace

TEST(DataloaderAugmentGpu, BatchEqualsTheReference) {
  GPUBENCH_REQUIRE_DEVICE();
  // 70 images: two full launches of 32 and a partial one of 6.
  constexpr int count = 70;
  constexpr int n = dl::k_crop_size;
  std::mt19937 gen(2041);
  std::vector<HostImage> images(count);
  std::vector<cu::DeviceBuffer<std::uint8_t>> pixels;
  std::vector<dl::DeviceAugmentImage> descriptors(count);
  for (int i = 0; i < count; ++i) {
    HostImage& im = images[static_cast<std::size_t>(i)];
    // Every few images a 1280x960 (the suite's large size), else random sizes, some smaller
    // than the output (upscaling).
    im.width = i % 7 == 0 ? 1280 : 16 + static_cast<int>(gen() % 700);
    im.height = i % 7 == 0 ? 960 : 16 + static_cast<int>(gen() % 600);
    im.pitch = static_cast<std::size_t>(im.width) * 3 + gen() % 64;
    im.rgb.resize(static_cast<std::size_t>(im.width) * im.height * 3);
    for (int y = 0; y < im.height; ++y) {
      for (int x = 0; x < im.width * 3; ++x) {
        im.rgb[static_cast<std::size_t>(y) * im.width * 3 + x] =
            static_cast<std::uint8_t>((x + 2 * y) % 256 ^ (gen() % 64));
      }
    }
    im.box = dl::sample_crop_box(im.width, im.height, 5, 1, static_cast<std::uint64_t>(i));
    pixels.emplace_back(im.pitch * im.height);
    ASSERT_EQ(
        cudaMemcpy2D(pixels.back().data(), im.pitch, im.rgb.data(),
                     static_cast<std::size_t>(im.width) * 3, static_cast<std::size_t>(im.width) * 3,
                     im.height, cudaMemcpyHostToDevice),
        cudaSuccess);
    descriptors[static_cast<std::size_t>(i)] = {pixels.back().data(), im.pitch, im.width, im.height,
                                                im.box};
  }
  const std::size_t per_image = 3 * static_cast<std::size_t>(n) * n;
  cu::DeviceBuffer<std::uint16_t> out(per_image * count);
  // Poison: 0xffff is a bf16 NaN, which no augmented value is.
  ASSERT_EQ(cudaMemset(out.data(), 0xff, out.bytes()), cudaSuccess);
  ASSERT_EQ(dl::launch_augment_batch(descriptors.data(), count, n, out.data(), nullptr),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<std::uint16_t> got(per_image * count);
  ASSERT_EQ(cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);

  std::vector<std::uint16_t> want(per_image);
  for (int i = 0; i < count; ++i) {
    const HostImage& im = images[static_cast<std::size_t>(i)];
    dl::augment_reference(im.rgb.data(), im.width, im.height, im.box, n, want.data());
    std::size_t differing = 0;
    std::size_t first = 0;
    for (std::size_t v = 0; v < per_image; ++v) {
      if (got[i * per_image + v] != want[v]) {
        if (differing++ == 0) first = v;
      }
    }
    EXPECT_EQ(differing, 0u) << "image " << i << " " << im.width << "x" << im.height << " box "
                             << im.box.x << "," << im.box.y << " " << im.box.width << "x"
                             << im.box.height << " flip " << im.box.flip << ": first at " << first
                             << " got " << got[i * per_image + first] << " want " << want[first];
  }
}

// No device needed: every refusal happens on the host before any CUDA call.
TEST(DataloaderAugmentGpu, WrongDescriptorsAreRefusedBeforeAnyLaunch) {
  std::vector<std::uint8_t> fake(64);  // never dereferenced: the checks refuse first
  auto* out = reinterpret_cast<std::uint16_t*>(fake.data());
  const dl::DeviceAugmentImage good{fake.data(), 30, 10, 10, dl::CropBox{0, 0, 10, 10, false}};
  auto refused = [&](dl::DeviceAugmentImage d) {
    const dl::DeviceAugmentImage batch[2] = {good, d};
    return dl::launch_augment_batch(batch, 2, 4, out, nullptr) == cudaErrorInvalidValue;
  };
  dl::DeviceAugmentImage d = good;
  d.rgb = nullptr;
  EXPECT_TRUE(refused(d));
  d = good;
  d.pitch_bytes = 29;  // under 3 * width
  EXPECT_TRUE(refused(d));
  d = good;
  d.box = dl::CropBox{1, 0, 10, 10, false};  // one column past the right edge
  EXPECT_TRUE(refused(d));
  d = good;
  d.box = dl::CropBox{0, 0, 0, 10, false};
  EXPECT_TRUE(refused(d));
  // A 20000-pixel-wide crop to 224: support 89, 179 taps per column, 160 KiB of shared memory.
  d = {fake.data(), 60000, 20000, 10, dl::CropBox{0, 0, 20000, 10, false}};
  EXPECT_EQ(dl::launch_augment_batch(&d, 1, 224, out, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(dl::launch_augment_batch(&good, 1, 0, out, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(dl::launch_augment_batch(&good, -1, 4, out, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(dl::launch_augment_batch(&good, 1, 4, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(dl::launch_augment_batch(nullptr, 0, 4, nullptr, nullptr), cudaSuccess);  // no work
}
