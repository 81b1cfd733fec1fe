// The CPU augmentation (augment.hpp): torchvision's crop sampling (bounds, fallback, seeding,
// flip), bf16 rounding vectors, the PIL-bilinear reference on hand-computed cases, and the fast
// version against the reference on random images and boxes (same bits).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "suites/dataloader/augment.hpp"
#include "util/error.hpp"

namespace dl = gpubench::dataloader;

namespace {

std::uint32_t float_bits(float f) {
  std::uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

float bits_float(std::uint32_t b) {
  float f = 0;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// torchvision's ToTensor + Normalize of one 8-bit value, in float32, as bf16: what an output
// value must be when the resize leaves the pixel unchanged.
std::uint16_t expected_bf16(int channel, int value) {
  const float x = static_cast<float>(value) / 255.0f;
  return dl::float_to_bf16((x - dl::k_imagenet_mean[channel]) / dl::k_imagenet_std[channel]);
}

std::size_t at(int out_size, int c, int y, int x) {
  return (static_cast<std::size_t>(c) * out_size + y) * out_size + x;
}

}  // namespace

// --- crop sampling -------------------------------------------------------------------------------

TEST(DataloaderAugmentCrop, TenThousandBoxesInsideTheImageAndWithinScaleAndRatio) {
  for (auto [w, h] : {std::pair{500, 375}, std::pair{1280, 960}, std::pair{375, 500}}) {
    const double area = static_cast<double>(w) * h;
    double min_fraction = 1.0;
    double max_fraction = 0.0;
    int flips = 0;
    constexpr int draws = 10000;
    for (int s = 0; s < draws; ++s) {
      const dl::CropBox b = dl::sample_crop_box(w, h, 42, 3, static_cast<std::uint64_t>(s));
      ASSERT_GT(b.width, 0);
      ASSERT_GT(b.height, 0);
      ASSERT_GE(b.x, 0);
      ASSERT_GE(b.y, 0);
      ASSERT_LE(b.x + b.width, w) << s;
      ASSERT_LE(b.y + b.height, h) << s;
      // w and h are sqrt(area * scale * ratio) and sqrt(area * scale / ratio) rounded to
      // integers, so the bounds hold up to half a pixel on each side.
      const double bw = b.width;
      const double bh = b.height;
      EXPECT_GE((bw + 0.5) * (bh + 0.5), 0.08 * area) << s;
      EXPECT_LE((bw - 0.5) * (bh - 0.5), area) << s;
      EXPECT_GE((bw + 0.5) / (bh - 0.5), 3.0 / 4.0) << s;
      EXPECT_LE((bw - 0.5) / (bh + 0.5), 4.0 / 3.0) << s;
      min_fraction = std::min(min_fraction, bw * bh / area);
      max_fraction = std::max(max_fraction, bw * bh / area);
      flips += b.flip ? 1 : 0;
    }
    // The draws span the scale range, and the coin is fair: 10k draws put the fraction within
    // 0.5 +- 0.02 (4 standard deviations) unless the flip is biased.
    EXPECT_LT(min_fraction, 0.1) << w << "x" << h;
    EXPECT_GT(max_fraction, 0.9) << w << "x" << h;
    EXPECT_NEAR(static_cast<double>(flips) / draws, 0.5, 0.02) << w << "x" << h;
  }
}

TEST(DataloaderAugmentCrop, ExtremeAspectImagesTakeTheCentralCropClampedToTheRatio) {
  // 1000x10: every try needs h >= sqrt(800 / (4/3)) = 24 > 10 rows, so all 10 fail; the
  // fallback keeps the 10 rows and takes w = round(10 * 4/3) = 13 columns, centred.
  for (std::uint64_t s = 0; s < 50; ++s) {
    const dl::CropBox wide = dl::sample_crop_box(1000, 10, 7, 0, s);
    EXPECT_EQ(std::tie(wide.x, wide.y, wide.width, wide.height), std::make_tuple(493, 0, 13, 10));
    const dl::CropBox tall = dl::sample_crop_box(10, 1000, 7, 0, s);
    EXPECT_EQ(std::tie(tall.x, tall.y, tall.width, tall.height), std::make_tuple(0, 493, 10, 13));
  }
  const dl::CropBox one = dl::sample_crop_box(1, 1, 7, 0, 0);
  EXPECT_EQ(std::tie(one.x, one.y, one.width, one.height), std::make_tuple(0, 0, 1, 1));
}

TEST(DataloaderAugmentCrop, ReproduciblePerSeedEpochSampleAndNewEachEpoch) {
  auto same = [](const dl::CropBox& a, const dl::CropBox& b) {
    return a.x == b.x && a.y == b.y && a.width == b.width && a.height == b.height &&
           a.flip == b.flip;
  };
  int equal_across_epochs = 0;
  int equal_across_seeds = 0;
  std::set<std::tuple<int, int, int, int>> distinct;
  for (std::uint64_t s = 0; s < 200; ++s) {
    const dl::CropBox a = dl::sample_crop_box(500, 375, 1, 0, s);
    EXPECT_TRUE(same(a, dl::sample_crop_box(500, 375, 1, 0, s))) << s;
    equal_across_epochs += same(a, dl::sample_crop_box(500, 375, 1, 1, s)) ? 1 : 0;
    equal_across_seeds += same(a, dl::sample_crop_box(500, 375, 2, 0, s)) ? 1 : 0;
    distinct.insert({a.x, a.y, a.width, a.height});
  }
  EXPECT_LE(equal_across_epochs, 2);
  EXPECT_LE(equal_across_seeds, 2);
  EXPECT_GE(distinct.size(), 195u);  // the samples of one epoch differ too
}

TEST(DataloaderAugmentCrop, EmptyImageIsRefusedWithTheCause) {
  try {
    (void)dl::sample_crop_box(0, 375, 1, 0, 0);
    FAIL() << "an empty image was accepted";
  } catch (const gpubench::Error& e) {
    EXPECT_NE(std::string(e.what()).find("0x375"), std::string::npos) << e.what();
  }
}

// --- bf16 ---------------------------------------------------------------------------------------

TEST(DataloaderAugmentBf16, RoundsToNearestEven) {
  EXPECT_EQ(dl::float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(dl::float_to_bf16(-2.0f), 0xc000);
  EXPECT_EQ(dl::float_to_bf16(-0.0f), 0x8000);
  // 1 + 2^-8 is halfway between 0x3f80 and 0x3f81: ties go to the even 0x3f80.
  EXPECT_EQ(dl::float_to_bf16(bits_float(0x3f808000u)), 0x3f80);
  EXPECT_EQ(dl::float_to_bf16(bits_float(0x3f818000u)), 0x3f82);  // odd below: up to even
  EXPECT_EQ(dl::float_to_bf16(bits_float(0x3f808001u)), 0x3f81);  // just above half: up
  EXPECT_EQ(dl::float_to_bf16(bits_float(0x3f807fffu)), 0x3f80);  // just below half: down
  EXPECT_EQ(dl::float_to_bf16(bits_float(0xbf808001u)), 0xbf81);  // sign does not matter
}

TEST(DataloaderAugmentBf16, LargestFiniteInfinityAndOverflow) {
  EXPECT_EQ(dl::float_to_bf16(bits_float(0x7f7f0000u)), 0x7f7f);  // bf16's largest finite
  EXPECT_EQ(dl::float_to_bf16(bits_float(0x7f7f7fffu)), 0x7f7f);  // below the halfway point
  // FLT_MAX is past the halfway point to the next binade: IEEE rounding gives +Inf.
  EXPECT_EQ(dl::float_to_bf16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(dl::float_to_bf16(-std::numeric_limits<float>::max()), 0xff80);
  EXPECT_EQ(dl::float_to_bf16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(dl::float_to_bf16(-std::numeric_limits<float>::infinity()), 0xff80);
}

TEST(DataloaderAugmentBf16, DenormalsRoundLikeAnyOtherValue) {
  EXPECT_EQ(dl::float_to_bf16(bits_float(0x00000001u)), 0x0000);  // smallest float denormal
  EXPECT_EQ(dl::float_to_bf16(bits_float(0x00010000u)), 0x0001);  // smallest bf16 denormal
  EXPECT_EQ(dl::float_to_bf16(bits_float(0x00008000u)), 0x0000);  // tie to even (0)
  EXPECT_EQ(dl::float_to_bf16(bits_float(0x00018000u)), 0x0002);  // tie to even (2)
  EXPECT_EQ(dl::float_to_bf16(bits_float(0x007fffffu)), 0x0080);  // rounds up to the normal
  EXPECT_EQ(float_bits(dl::bf16_to_float(0x0001)), 0x00010000u);
}

TEST(DataloaderAugmentBf16, NanStaysNan) {
  EXPECT_EQ(dl::float_to_bf16(std::numeric_limits<float>::quiet_NaN()), 0x7fc0);
  EXPECT_EQ(dl::float_to_bf16(bits_float(0xffc00000u)), 0xffc0);
  // A NaN whose payload sits only in the dropped bits must not truncate to Inf (0x7f80).
  const std::uint16_t low_payload = dl::float_to_bf16(bits_float(0x7f800001u));
  EXPECT_TRUE(std::isnan(dl::bf16_to_float(low_payload))) << std::hex << low_payload;
  EXPECT_TRUE(std::isnan(dl::bf16_to_float(dl::float_to_bf16(bits_float(0x7fffffffu)))));
}

TEST(DataloaderAugmentBf16, EveryBf16ValueRoundTrips) {
  for (std::uint32_t b = 0; b < 0x10000u; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const float f = dl::bf16_to_float(bits);
    EXPECT_EQ(float_bits(f), b << 16);
    if (!std::isnan(f)) {
      ASSERT_EQ(dl::float_to_bf16(f), bits) << std::hex << b;
    }
  }
}

// --- the reference on hand-computed cases -------------------------------------------------------

TEST(DataloaderAugmentReference, IdentitySizeCropGivesTheNormalisedPixels) {
  constexpr int w = 300;
  constexpr int h = 250;
  constexpr int n = 224;
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w) * h * 3);
  std::mt19937 gen(5);
  for (auto& v : rgb) v = static_cast<std::uint8_t>(gen());
  for (bool flip : {false, true}) {
    const dl::CropBox box{40, 17, n, n, flip};
    std::vector<std::uint16_t> out(3 * n * n);
    dl::augment_reference(rgb.data(), w, h, box, n, out.data());
    for (int c = 0; c < 3; ++c) {
      for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
          const int sx = flip ? n - 1 - x : x;
          const int v = rgb[(static_cast<std::size_t>(box.y + y) * w + box.x + sx) * 3 + c];
          ASSERT_EQ(out[at(n, c, y, x)], expected_bf16(c, v))
              << "flip " << flip << " c" << c << " y" << y << " x" << x;
        }
      }
    }
  }
}

TEST(DataloaderAugmentReference, ConstantImageGivesConstantOutput) {
  constexpr int w = 500;
  constexpr int h = 375;
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w) * h * 3);
  for (std::size_t i = 0; i < rgb.size(); ++i) rgb[i] = i % 3 == 0 ? 77 : (i % 3 == 1 ? 0 : 255);
  // A downscale (2.2x by 1.3x), an upscale (5.6x by 4.5x) and the whole image.
  for (const dl::CropBox& box :
       {dl::CropBox{10, 20, 490, 300, false}, dl::CropBox{100, 50, 40, 50, true},
        dl::CropBox{0, 0, w, h, false}}) {
    std::vector<std::uint16_t> out(3 * 224 * 224);
    dl::augment_reference(rgb.data(), w, h, box, 224, out.data());
    for (int c = 0; c < 3; ++c) {
      const std::uint16_t want = expected_bf16(c, c == 0 ? 77 : (c == 1 ? 0 : 255));
      for (int i = 0; i < 224 * 224; ++i) {
        ASSERT_EQ(out[static_cast<std::size_t>(c) * 224 * 224 + i], want)
            << "box " << box.width << "x" << box.height << " c" << c << " i" << i;
      }
    }
  }
}

TEST(DataloaderAugmentReference, TwoTimesDownscaleOfStripes) {
  // 8x8 image, columns alternating: red 0,200,0,200,..., green 200,0,200,0,..., blue 50; every
  // row the same. Resized to 4x4 (scale 2, so the triangle is 2 pixels wide on each side):
  //   column 0: center 1, source 0..2, weights 0.75, 0.75, 0.25 -> 3/7, 3/7, 1/7
  //   columns 1, 2: center 3 and 5, four sources with weights 1/8, 3/8, 3/8, 1/8
  //   column 3: center 7, sources 5..7 (the image ends), weights 1/7, 3/7, 3/7
  // red:   600/7 = 85.7 -> 86, 100, 100, 800/7 = 114.3 -> 114
  // green: 800/7 -> 114, 100, 100, 600/7 -> 86;  blue: 50 everywhere.
  // The rows are equal, so the vertical pass (weights summing to 1) keeps these values.
  constexpr int w = 8;
  std::vector<std::uint8_t> rgb(w * w * 3);
  for (int y = 0; y < w; ++y) {
    for (int x = 0; x < w; ++x) {
      std::uint8_t* p = &rgb[static_cast<std::size_t>(y * w + x) * 3];
      p[0] = x % 2 == 0 ? 0 : 200;
      p[1] = x % 2 == 0 ? 200 : 0;
      p[2] = 50;
    }
  }
  const int want[3][4] = {{86, 100, 100, 114}, {114, 100, 100, 86}, {50, 50, 50, 50}};
  for (bool flip : {false, true}) {
    std::vector<std::uint16_t> out(3 * 4 * 4);
    dl::augment_reference(rgb.data(), w, w, dl::CropBox{0, 0, w, w, flip}, 4, out.data());
    for (int c = 0; c < 3; ++c) {
      for (int y = 0; y < 4; ++y) {
        for (int x = 0; x < 4; ++x) {
          EXPECT_EQ(out[at(4, c, y, x)], expected_bf16(c, want[c][flip ? 3 - x : x]))
              << "flip " << flip << " c" << c << " y" << y << " x" << x;
        }
      }
    }
  }
}

TEST(DataloaderAugmentReference, BoxOutsideTheImageIsRefusedWithTheCause) {
  std::vector<std::uint8_t> rgb(10 * 10 * 3);
  std::vector<std::uint16_t> out(3 * 4 * 4);
  std::vector<float> scratch;
  const dl::CropBox box{5, 0, 6, 10, false};  // columns 5..10 of a 10-column image
  for (bool fast : {false, true}) {
    try {
      if (fast) {
        dl::augment_cpu(rgb.data(), 10, 10, box, 4, out.data(), scratch);
      } else {
        dl::augment_reference(rgb.data(), 10, 10, box, 4, out.data());
      }
      FAIL() << "a box outside the image was accepted";
    } catch (const gpubench::Error& e) {
      EXPECT_NE(std::string(e.what()).find("not inside the 10x10 image"), std::string::npos)
          << e.what();
    }
  }
}

// --- the fast version against the reference ----------------------------------------------------

TEST(DataloaderAugmentCpu, EqualsTheReferenceOnRandomImagesAndBoxes) {
  std::mt19937 gen(41);
  std::vector<float> scratch;  // reused across images, as a worker does
  int flipped = 0;
  int upscaled = 0;
  for (int image = 0; image < 200; ++image) {
    // Sizes from smaller than the output (upscaling) to 4x larger; content mixes a gradient
    // with noise so neighbouring pixels differ by small and large amounts.
    const int w = 16 + static_cast<int>(gen() % 900);
    const int h = 16 + static_cast<int>(gen() % 700);
    std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w) * h * 3);
    const int noise = 1 + static_cast<int>(gen() % 255);
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        for (int c = 0; c < 3; ++c) {
          const int v = (x * (c + 1) + y * (3 - c)) % 256 + static_cast<int>(gen() % noise);
          rgb[(static_cast<std::size_t>(y) * w + x) * 3 + c] = static_cast<std::uint8_t>(v % 256);
        }
      }
    }
    const dl::CropBox box = dl::sample_crop_box(w, h, 9, 0, static_cast<std::uint64_t>(image));
    flipped += box.flip ? 1 : 0;
    upscaled += box.width < dl::k_crop_size || box.height < dl::k_crop_size ? 1 : 0;
    const std::size_t values = 3 * dl::k_crop_size * dl::k_crop_size;
    std::vector<std::uint16_t> want(values);
    std::vector<std::uint16_t> got(values, 0xffff);
    dl::augment_reference(rgb.data(), w, h, box, dl::k_crop_size, want.data());
    dl::augment_cpu(rgb.data(), w, h, box, dl::k_crop_size, got.data(), scratch);
    // Same arithmetic, so the same bits (stronger than the contract's one bf16 step).
    std::size_t differing = 0;
    for (std::size_t i = 0; i < values; ++i) differing += want[i] != got[i] ? 1 : 0;
    ASSERT_EQ(differing, 0u) << "image " << image << " " << w << "x" << h << " box " << box.x << ","
                             << box.y << " " << box.width << "x" << box.height;
  }
  // The draws covered both flips and both resize directions.
  EXPECT_GT(flipped, 50);
  EXPECT_GT(upscaled, 10);
}
