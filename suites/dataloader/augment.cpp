// The CPU augmentation of augment.hpp: crop sampling as torchvision draws it, bf16 conversion, and
// PIL's BILINEAR resize of the crop to out_size x out_size, twice (a reference that computes each
// output value on its own, and the pipeline's table-driven version).
//
// What "as PIL does it" means here, exactly (Pillow src/libImaging/Resample.c, 8-bit images):
// torchvision's resized_crop crops first (Image.crop), then resizes the crop (Image.resize, no
// box), so the filter never reads pixels outside the crop. Each output coordinate o of an axis of
// `in` source pixels gets, in double: scale = in / out, filterscale = max(scale, 1),
// support = filterscale (the triangle's support is 1), center = (o + 0.5) * scale,
// first = max(0, (int)(center - support + 0.5)), end = min(in, (int)(center + support + 0.5)),
// w_i = max(0, 1 - |(i - center + 0.5) / filterscale|) for i in [first, end), normalised by their
// sum, then turned into 22-bit fixed point ((int)(0.5 + w * 2^22)). The horizontal pass runs
// first, and PIL stores its result as 8-bit (the sum plus 2^21, shifted right 22 bits, clamped to
// 0..255); the vertical pass does the same on those 8-bit values. We match that 8-bit intermediate
// rounding bit for bit: the output is then exactly the uint8 image torchvision hands to ToTensor,
// and the CPU, reference and GPU versions agree exactly, not only within a bf16 step.
// ToTensor divides by 255 in float32, Normalize subtracts the mean and divides by the std in
// float32, and .to(torch.bfloat16) rounds to nearest even: a 256-entry table per channel.
#include "suites/dataloader/augment.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

// --- crop sampling -------------------------------------------------------------------------------

constexpr std::uint64_t k_golden_gamma = 0x9E3779B97F4A7C15ull;

// splitmix64's output function (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// splitmix64 seeded from (seed, epoch, sample): each input is mixed in turn, so neighbouring
// epochs or samples give unrelated streams.
class SplitMix64 {
 public:
  SplitMix64(std::uint64_t seed, std::uint64_t epoch, std::uint64_t sample)
      : m_state(mix64(mix64(mix64(seed + k_golden_gamma) ^ epoch) + k_golden_gamma) ^ sample) {}

  std::uint64_t next() {
    m_state += k_golden_gamma;
    return mix64(m_state);
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [low, high), as torch's uniform_.
  double uniform(double low, double high) { return low + (high - low) * uniform01(); }
  // Uniform integer in [0, n), unbiased (rejects the top partial block of 2^64 mod n values).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t threshold = (0 - n) % n;
    for (;;) {
      const std::uint64_t r = next();
      if (r >= threshold) return r % n;
    }
  }

 private:
  std::uint64_t m_state;
};

// Python's round() on a double: half to even (the default rounding mode of nearbyint).
int python_round(double value) {
  return static_cast<int>(std::nearbyint(value));
}

void check_image(const char* what, int width, int height) {
  if (width <= 0 || height <= 0) {
    throw bad_input(
        what, "image size " + std::to_string(width) + "x" + std::to_string(height) + " is empty",
        "pass the decoded image's width and height (both at least 1)");
  }
}

void check_box(const char* what, int width, int height, const CropBox& box, int out_size) {
  check_image(what, width, height);
  if (box.width <= 0 || box.height <= 0 || box.x < 0 || box.y < 0 || box.x > width - box.width ||
      box.y > height - box.height) {
    throw bad_input(what,
                    "crop box x=" + std::to_string(box.x) + " y=" + std::to_string(box.y) + " " +
                        std::to_string(box.width) + "x" + std::to_string(box.height) +
                        " is not inside the " + std::to_string(width) + "x" +
                        std::to_string(height) + " image",
                    "draw the box with sample_crop_box for this image's size");
  }
  if (out_size <= 0) {
    throw bad_input(what, "output size " + std::to_string(out_size) + " is not positive",
                    "pass k_crop_size");
  }
}

// --- PIL's bilinear taps ------------------------------------------------------------------------

constexpr int k_precision_bits = 22;  // PIL's PRECISION_BITS for 8-bit images: 32 - 8 - 2
constexpr std::int32_t k_half = 1 << (k_precision_bits - 1);

// One axis of the resize: `in` source pixels (the crop) to `out` outputs.
struct Axis {
  double scale = 0;        // source pixels per output pixel
  double filterscale = 0;  // max(scale, 1): the triangle is stretched when downscaling
  double support = 0;      // half-width of the filter in source pixels
  int max_taps = 0;        // PIL's ksize: 2 * ceil(support) + 1, at least every output's taps

  Axis(int in, int out)
      : scale(static_cast<double>(in) / out),
        filterscale(std::max(scale, 1.0)),
        support(filterscale),
        max_taps(static_cast<int>(std::ceil(support)) * 2 + 1) {}
};

// The taps of output `o`: sets `first` (source index of tap 0) and k[0..count) (22-bit fixed
// point), returns count (<= axis.max_taps). `weights` holds max_taps doubles of scratch.
int pil_taps(const Axis& axis, int in, int o, int& first, std::int32_t* k, double* weights) {
  const double center = (o + 0.5) * axis.scale;
  const double inv_filterscale = 1.0 / axis.filterscale;
  const int lo = std::max(0, static_cast<int>(center - axis.support + 0.5));
  const int hi = std::min(in, static_cast<int>(center + axis.support + 0.5));
  const int count = hi - lo;
  double sum = 0.0;
  for (int i = 0; i < count; ++i) {
    // PIL's bilinear_filter of ((i + lo) - center + 0.5) / filterscale, in its operation order.
    const double t = std::fabs((i + lo - center + 0.5) * inv_filterscale);
    const double w = t < 1.0 ? 1.0 - t : 0.0;
    weights[i] = w;
    sum += w;
  }
  for (int i = 0; i < count; ++i) {
    const double w = sum != 0.0 ? weights[i] / sum : weights[i];
    // Bilinear weights are never negative: PIL's positive branch (its negative one is unused).
    k[i] = static_cast<std::int32_t>(0.5 + w * (1 << k_precision_bits));
  }
  first = lo;
  return count;
}

// PIL's clip8: the fixed-point sum (which already holds the 2^21 rounding bias) to 0..255.
inline std::uint8_t clip8(std::int32_t sum) {
  const std::int32_t v = sum >> k_precision_bits;
  return static_cast<std::uint8_t>(v < 0 ? 0 : (v > 255 ? 255 : v));
}

// --- normalisation ------------------------------------------------------------------------------

// ToTensor then Normalize, in float32 as torchvision computes them.
float normalised(int channel, int value) {
  const float x = static_cast<float>(value) / 255.0f;
  return (x - k_imagenet_mean[channel]) / k_imagenet_std[channel];
}

// bf16 of every (channel, 8-bit value): the pipeline's last step as one load.
const std::array<std::array<std::uint16_t, 256>, 3>& bf16_table() {
  static const auto table = [] {
    std::array<std::array<std::uint16_t, 256>, 3> t{};
    for (int c = 0; c < 3; ++c) {
      for (int v = 0; v < 256; ++v) t[c][v] = float_to_bf16(normalised(c, v));
    }
    return t;
  }();
  return table;
}

}  // namespace

CropBox sample_crop_box(int image_width, int image_height, std::uint64_t seed, std::uint64_t epoch,
                        std::uint64_t sample) {
  check_image("crop sampling", image_width, image_height);
  constexpr double scale_min = 0.08;
  constexpr double scale_max = 1.0;
  constexpr double ratio_min = 3.0 / 4.0;
  constexpr double ratio_max = 4.0 / 3.0;
  SplitMix64 rng(seed, epoch, sample);
  const double area = static_cast<double>(image_width) * image_height;
  const double log_ratio_min = std::log(ratio_min);
  const double log_ratio_max = std::log(ratio_max);
  CropBox box;
  bool found = false;
  for (int attempt = 0; attempt < 10 && !found; ++attempt) {
    const double target_area = area * rng.uniform(scale_min, scale_max);
    const double aspect_ratio = std::exp(rng.uniform(log_ratio_min, log_ratio_max));
    const int w = python_round(std::sqrt(target_area * aspect_ratio));
    const int h = python_round(std::sqrt(target_area / aspect_ratio));
    if (0 < w && w <= image_width && 0 < h && h <= image_height) {
      // torch.randint(0, H - h + 1) for the top, then the same for the left.
      box.y = static_cast<int>(rng.below(static_cast<std::uint64_t>(image_height - h) + 1));
      box.x = static_cast<int>(rng.below(static_cast<std::uint64_t>(image_width - w) + 1));
      box.width = w;
      box.height = h;
      found = true;
    }
  }
  if (!found) {
    // The central crop, clamped to the ratio bounds (whole image when its ratio is inside them).
    const double in_ratio = static_cast<double>(image_width) / image_height;
    int w = image_width;
    int h = image_height;
    if (in_ratio < ratio_min) {
      h = python_round(w / ratio_min);
    } else if (in_ratio > ratio_max) {
      w = python_round(h * ratio_max);
    }
    box.width = w;
    box.height = h;
    box.y = (image_height - h) / 2;
    box.x = (image_width - w) / 2;
  }
  box.flip = (rng.next() >> 63) != 0;  // RandomHorizontalFlip(0.5)
  return box;
}

std::uint16_t float_to_bf16(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    // NaN: keep the sign and the top payload bits, force the quiet bit so it cannot become Inf.
    return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
  }
  // Round to nearest, ties to even: add 0x7fff plus the lowest kept bit, then truncate. Overflow
  // past the largest finite bf16 carries into the exponent and gives Inf, as IEEE rounding does.
  const std::uint32_t lsb = (bits >> 16) & 1u;
  return static_cast<std::uint16_t>((bits + 0x7fffu + lsb) >> 16);
}

float bf16_to_float(std::uint16_t bits) {
  const std::uint32_t wide = static_cast<std::uint32_t>(bits) << 16;
  float value = 0;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

void augment_reference(const std::uint8_t* rgb, int width, int height, const CropBox& box,
                       int out_size, std::uint16_t* out) {
  check_box("augmentation", width, height, box, out_size);
  const Axis ax(box.width, out_size);
  const Axis ay(box.height, out_size);
  std::vector<std::int32_t> kx(static_cast<std::size_t>(ax.max_taps));
  std::vector<std::int32_t> ky(static_cast<std::size_t>(ay.max_taps));
  std::vector<double> weights(static_cast<std::size_t>(std::max(ax.max_taps, ay.max_taps)));
  const std::size_t plane = static_cast<std::size_t>(out_size) * out_size;
  for (int c = 0; c < 3; ++c) {
    for (int oy = 0; oy < out_size; ++oy) {
      for (int ox = 0; ox < out_size; ++ox) {
        // The flip mirrors the resized image: output column ox shows resized column sx.
        const int sx = box.flip ? out_size - 1 - ox : ox;
        int first_x = 0;
        int first_y = 0;
        const int nx = pil_taps(ax, box.width, sx, first_x, kx.data(), weights.data());
        const int ny = pil_taps(ay, box.height, oy, first_y, ky.data(), weights.data());
        std::int32_t vertical = k_half;
        for (int ty = 0; ty < ny; ++ty) {
          const std::uint8_t* row =
              rgb + static_cast<std::size_t>(box.y + first_y + ty) * width * 3;
          std::int32_t horizontal = k_half;
          for (int tx = 0; tx < nx; ++tx) {
            horizontal += row[static_cast<std::size_t>(box.x + first_x + tx) * 3 + c] * kx[tx];
          }
          // PIL keeps the horizontal pass as an 8-bit image.
          vertical += clip8(horizontal) * ky[ty];
        }
        out[c * plane + static_cast<std::size_t>(oy) * out_size + ox] =
            float_to_bf16(normalised(c, clip8(vertical)));
      }
    }
  }
}

void augment_cpu(const std::uint8_t* rgb, int width, int height, const CropBox& box, int out_size,
                 std::uint16_t* out, std::vector<float>& scratch) {
  check_box("augmentation", width, height, box, out_size);
  const Axis ax(box.width, out_size);
  const Axis ay(box.height, out_size);
  const std::size_t out_n = static_cast<std::size_t>(out_size);
  const std::size_t row_values = out_n * 3;  // one intermediate row, interleaved RGB

  // Per-thread tables, reused across images so the steady state allocates nothing: per output
  // column and row its first source index, tap count and 22-bit taps, then one accumulator row.
  thread_local std::vector<std::int32_t> tables;
  thread_local std::vector<double> weights;
  const std::size_t kx_size = out_n * static_cast<std::size_t>(ax.max_taps);
  const std::size_t ky_size = out_n * static_cast<std::size_t>(ay.max_taps);
  tables.resize(4 * out_n + kx_size + ky_size + row_values);
  weights.resize(static_cast<std::size_t>(std::max(ax.max_taps, ay.max_taps)));
  std::int32_t* first_x = tables.data();
  std::int32_t* count_x = first_x + out_n;
  std::int32_t* first_y = count_x + out_n;
  std::int32_t* count_y = first_y + out_n;
  std::int32_t* kx = count_y + out_n;
  std::int32_t* ky = kx + kx_size;
  std::int32_t* acc = ky + ky_size;
  for (int o = 0; o < out_size; ++o) {
    int first = 0;
    count_x[o] = pil_taps(ax, box.width, o, first, kx + o * ax.max_taps, weights.data());
    first_x[o] = first;
    count_y[o] = pil_taps(ay, box.height, o, first, ky + o * ay.max_taps, weights.data());
    first_y[o] = first;
  }
  // Only the crop rows some output row reads (PIL's ybox_first .. ybox_last).
  const int row_begin = first_y[0];
  const int row_end = first_y[out_size - 1] + count_y[out_size - 1];
  const std::size_t rows = static_cast<std::size_t>(row_end - row_begin);

  // Horizontal pass into scratch: one row of out_size RGB values per source row, each an integer
  // 0..255 (exact in a float), PIL's 8-bit intermediate image.
  scratch.resize(rows * row_values);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::uint8_t* src = rgb + (static_cast<std::size_t>(box.y + row_begin) + r) * width * 3 +
                              static_cast<std::size_t>(box.x) * 3;
    float* dst = scratch.data() + r * row_values;
    for (std::size_t o = 0; o < out_n; ++o) {
      const std::uint8_t* p = src + static_cast<std::size_t>(first_x[o]) * 3;
      const std::int32_t* k = kx + o * static_cast<std::size_t>(ax.max_taps);
      std::int32_t s0 = k_half;
      std::int32_t s1 = k_half;
      std::int32_t s2 = k_half;
      for (int t = 0; t < count_x[o]; ++t, p += 3) {
        s0 += p[0] * k[t];
        s1 += p[1] * k[t];
        s2 += p[2] * k[t];
      }
      dst[o * 3 + 0] = clip8(s0);
      dst[o * 3 + 1] = clip8(s1);
      dst[o * 3 + 2] = clip8(s2);
    }
  }

  // Vertical pass, a whole intermediate row per tap (contiguous, vectorisable), then the table
  // lookup that does ToTensor, Normalize and bf16 at once, written CHW (and mirrored if flipped).
  const auto& lut = bf16_table();
  const std::size_t plane = out_n * out_n;
  for (std::size_t oy = 0; oy < out_n; ++oy) {
    std::fill(acc, acc + row_values, k_half);
    const std::int32_t* k = ky + oy * static_cast<std::size_t>(ay.max_taps);
    for (int t = 0; t < count_y[oy]; ++t) {
      const float* row =
          scratch.data() + static_cast<std::size_t>(first_y[oy] - row_begin + t) * row_values;
      const std::int32_t kt = k[t];
      for (std::size_t i = 0; i < row_values; ++i) acc[i] += static_cast<std::int32_t>(row[i]) * kt;
    }
    for (int c = 0; c < 3; ++c) {
      std::uint16_t* dst = out + static_cast<std::size_t>(c) * plane + oy * out_n;
      const auto& channel_lut = lut[static_cast<std::size_t>(c)];
      for (std::size_t ox = 0; ox < out_n; ++ox) {
        const std::size_t sx = box.flip ? out_n - 1 - ox : ox;
        dst[ox] = channel_lut[clip8(acc[sx * 3 + static_cast<std::size_t>(c)])];
      }
    }
  }
}

}  // namespace gpubench::dataloader
