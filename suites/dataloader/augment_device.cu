// The batched GPU augmentation of augment_device.hpp: one kernel, PIL's bilinear resize of each
// image's crop with its 8-bit intermediate, flip, normalise, bf16, CHW. The arithmetic is
// augment.cpp's, step for step (see its header comment for PIL's rules), written with
// round-to-nearest intrinsics (__dadd_rn, __dmul_rn, ...) so nvcc cannot contract any of it into
// an FMA: the 22-bit taps and therefore every output bit equal the CPU's.
//
// Work split: grid (ceil(out_size / k_rows_per_block), images in the launch); a block makes
// k_rows_per_block output rows of one image. It first computes in shared memory the horizontal
// taps of every output column (shared by its rows) and the vertical taps of its rows, then each
// thread makes whole output pixels (3 channels): for each vertical tap, the horizontal sum of that
// source row rounded to 8 bits as PIL stores it, weighted into the vertical sum.
#include "suites/dataloader/augment_device.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

namespace gpubench::dataloader {
namespace {

constexpr int k_precision_bits = 22;  // PIL's PRECISION_BITS for 8-bit images
constexpr int k_half = 1 << (k_precision_bits - 1);
constexpr int k_threads = 256;
constexpr int k_rows_per_block = 8;
constexpr std::size_t k_max_shared_bytes = 48 * 1024;  // no opt-in needed on any GPU

__constant__ float c_mean[3] = {k_imagenet_mean[0], k_imagenet_mean[1], k_imagenet_mean[2]};
__constant__ float c_std[3] = {k_imagenet_std[0], k_imagenet_std[1], k_imagenet_std[2]};

// One axis of one image, computed on the host exactly as augment.cpp's Axis does.
struct AxisParams {
  double scale;        // crop pixels per output pixel
  double filterscale;  // max(scale, 1); also the filter's support in crop pixels
  int max_taps;        // 2 * ceil(support) + 1
  int in;              // crop pixels on this axis
};

struct ImageParams {
  const std::uint8_t* rgb;
  unsigned long long pitch_bytes;
  AxisParams x;
  AxisParams y;
  int box_x;
  int box_y;
  int flip;
};

struct LaunchParams {
  ImageParams image[k_augment_images_per_launch];
  int out_size;
  int taps_stride_x;  // largest x max_taps of the launch: the shared table's row stride
  int taps_stride_y;  // same for y
};
static_assert(sizeof(LaunchParams) <= 4096, "kernel parameters must fit in 4 KiB");

AxisParams make_axis(int in, int out) {
  AxisParams a;
  a.scale = static_cast<double>(in) / out;
  a.filterscale = std::max(a.scale, 1.0);
  a.max_taps = static_cast<int>(std::ceil(a.filterscale)) * 2 + 1;
  a.in = in;
  return a;
}

// augment.cpp's pil_taps on the device: first source index, count, 22-bit taps of output o. The
// weights are computed twice (for the sum, then divided by it) instead of stored: the same
// operations on the same inputs give the same doubles.
__device__ int device_taps(const AxisParams& a, int o, int& first, int* k) {
  const double center = __dmul_rn(o + 0.5, a.scale);
  const double inv_filterscale = __ddiv_rn(1.0, a.filterscale);
  const int lo = max(0, __double2int_rz(__dadd_rn(__dsub_rn(center, a.filterscale), 0.5)));
  const int hi = min(a.in, __double2int_rz(__dadd_rn(__dadd_rn(center, a.filterscale), 0.5)));
  const int count = hi - lo;
  auto weight = [&](int i) {
    const double t =
        fabs(__dmul_rn(__dadd_rn(__dsub_rn(double(i + lo), center), 0.5), inv_filterscale));
    return t < 1.0 ? __dsub_rn(1.0, t) : 0.0;
  };
  double sum = 0.0;
  for (int i = 0; i < count; ++i) sum = __dadd_rn(sum, weight(i));
  for (int i = 0; i < count; ++i) {
    const double w = sum != 0.0 ? __ddiv_rn(weight(i), sum) : weight(i);
    k[i] = __double2int_rz(__dadd_rn(0.5, __dmul_rn(w, double(1 << k_precision_bits))));
  }
  first = lo;
  return count;
}

__device__ __forceinline__ int clip8(int sum) {
  return min(255, max(0, sum >> k_precision_bits));
}

// ToTensor (/255) then Normalize, in IEEE float as torchvision and augment.cpp compute them, then
// bf16 round to nearest even (never NaN here).
__device__ __forceinline__ std::uint16_t normalised_bf16(int channel, int value) {
  const float x = __fdiv_rn(static_cast<float>(value), 255.0f);
  const float y = __fdiv_rn(__fsub_rn(x, c_mean[channel]), c_std[channel]);
  return __bfloat16_as_ushort(__float2bfloat16_rn(y));
}

__global__ void __launch_bounds__(k_threads)
    augment_kernel(const __grid_constant__ LaunchParams p, std::uint16_t* __restrict__ out) {
  extern __shared__ int shared[];
  const ImageParams& img = p.image[blockIdx.y];
  const int n = p.out_size;
  // Shared layout (ints): x taps [n][taps_stride_x], x first [n], x count [n],
  // y taps [k_rows_per_block][taps_stride_y], y first [k_rows_per_block], y count [...].
  int* kx = shared;
  int* first_x = kx + n * p.taps_stride_x;
  int* count_x = first_x + n;
  int* ky = count_x + n;
  int* first_y = ky + k_rows_per_block * p.taps_stride_y;
  int* count_y = first_y + k_rows_per_block;

  const int row0 = blockIdx.x * k_rows_per_block;
  const int rows = min(k_rows_per_block, n - row0);
  for (int o = threadIdx.x; o < n; o += blockDim.x) {
    int first = 0;
    count_x[o] = device_taps(img.x, o, first, kx + o * p.taps_stride_x);
    first_x[o] = first;
  }
  for (int r = threadIdx.x; r < rows; r += blockDim.x) {
    int first = 0;
    count_y[r] = device_taps(img.y, row0 + r, first, ky + r * p.taps_stride_y);
    first_y[r] = first;
  }
  __syncthreads();

  const std::size_t plane = static_cast<std::size_t>(n) * n;
  std::uint16_t* image_out = out + static_cast<std::size_t>(blockIdx.y) * 3 * plane;
  // Crop origin: row box_y, byte 3 * box_x of that row.
  const std::uint8_t* crop = img.rgb + static_cast<std::size_t>(img.box_y) * img.pitch_bytes +
                             static_cast<std::size_t>(img.box_x) * 3;
  for (int idx = threadIdx.x; idx < rows * n; idx += blockDim.x) {
    const int r = idx / n;
    const int dst_x = idx - r * n;  // neighbouring threads write neighbouring bf16 values
    const int ox = img.flip ? n - 1 - dst_x : dst_x;  // the resized column shown at dst_x
    const int* k_h = kx + ox * p.taps_stride_x;
    const int* k_v = ky + r * p.taps_stride_y;
    const int nx = count_x[ox];
    const int ny = count_y[r];
    int v0 = k_half;
    int v1 = k_half;
    int v2 = k_half;
    for (int ty = 0; ty < ny; ++ty) {
      const std::uint8_t* src = crop + static_cast<std::size_t>(first_y[r] + ty) * img.pitch_bytes +
                                static_cast<std::size_t>(first_x[ox]) * 3;
      int h0 = k_half;
      int h1 = k_half;
      int h2 = k_half;
      for (int tx = 0; tx < nx; ++tx, src += 3) {
        const int k = k_h[tx];
        h0 += src[0] * k;
        h1 += src[1] * k;
        h2 += src[2] * k;
      }
      // PIL stores the horizontal pass as 8-bit before the vertical pass reads it.
      const int k = k_v[ty];
      v0 += clip8(h0) * k;
      v1 += clip8(h1) * k;
      v2 += clip8(h2) * k;
    }
    const std::size_t at = static_cast<std::size_t>(row0 + r) * n + dst_x;
    image_out[at] = normalised_bf16(0, clip8(v0));
    image_out[plane + at] = normalised_bf16(1, clip8(v1));
    image_out[2 * plane + at] = normalised_bf16(2, clip8(v2));
  }
}

bool valid(const DeviceAugmentImage& d) {
  const CropBox& b = d.box;
  return d.rgb != nullptr && d.width > 0 && d.height > 0 &&
         d.pitch_bytes >= static_cast<std::size_t>(d.width) * 3 && b.width > 0 && b.height > 0 &&
         b.x >= 0 && b.y >= 0 && b.x <= d.width - b.width && b.y <= d.height - b.height;
}

std::size_t shared_bytes(int out_size, int taps_stride_x, int taps_stride_y) {
  const std::size_t ints = static_cast<std::size_t>(out_size) * (taps_stride_x + 2) +
                           static_cast<std::size_t>(k_rows_per_block) * (taps_stride_y + 2);
  return ints * sizeof(int);
}

}  // namespace

cudaError_t launch_augment_batch(const DeviceAugmentImage* images, int count, int out_size,
                                 std::uint16_t* out, cudaStream_t stream) {
  if (count < 0 || out_size < 1 || (count > 0 && (images == nullptr || out == nullptr))) {
    return cudaErrorInvalidValue;
  }
  // Check every descriptor and the shared memory of every launch before enqueuing any.
  for (int i = 0; i < count; ++i) {
    if (!valid(images[i])) return cudaErrorInvalidValue;
    const int tx = make_axis(images[i].box.width, out_size).max_taps;
    const int ty = make_axis(images[i].box.height, out_size).max_taps;
    if (shared_bytes(out_size, tx, ty) > k_max_shared_bytes) return cudaErrorInvalidValue;
  }
  const std::size_t image_values = static_cast<std::size_t>(3) * out_size * out_size;
  for (int base = 0; base < count; base += k_augment_images_per_launch) {
    const int n = std::min(k_augment_images_per_launch, count - base);
    LaunchParams p{};
    p.out_size = out_size;
    for (int i = 0; i < n; ++i) {
      const DeviceAugmentImage& d = images[base + i];
      ImageParams& ip = p.image[i];
      ip.rgb = d.rgb;
      ip.pitch_bytes = d.pitch_bytes;
      ip.x = make_axis(d.box.width, out_size);
      ip.y = make_axis(d.box.height, out_size);
      ip.box_x = d.box.x;
      ip.box_y = d.box.y;
      ip.flip = d.box.flip ? 1 : 0;
      p.taps_stride_x = std::max(p.taps_stride_x, ip.x.max_taps);
      p.taps_stride_y = std::max(p.taps_stride_y, ip.y.max_taps);
    }
    const dim3 grid(static_cast<unsigned>((out_size + k_rows_per_block - 1) / k_rows_per_block),
                    static_cast<unsigned>(n));
    augment_kernel<<<grid, k_threads, shared_bytes(out_size, p.taps_stride_x, p.taps_stride_y),
                     stream>>>(p, out + static_cast<std::size_t>(base) * image_values);
    const cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) return status;
  }
  return cudaSuccess;
}

}  // namespace gpubench::dataloader
