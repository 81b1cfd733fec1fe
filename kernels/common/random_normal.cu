#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "kernels/common/random_normal.hpp"

namespace gpubench::kernels {

namespace {

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// N(0, 1) for counter i: the hash's two 32-bit halves are the uniforms; u1 lies in (0, 1] so the
// logarithm is finite.
__device__ __forceinline__ float normal_at(unsigned long long seed, unsigned long long i) {
  const unsigned long long h = splitmix64(seed * 0xD1B54A32D192ED03ull + splitmix64(i));
  const float u1 = (static_cast<float>(static_cast<unsigned>(h >> 32)) + 1.0f) * 2.3283064e-10f;
  const float u2 = static_cast<float>(static_cast<unsigned>(h & 0xFFFFFFFFu)) * 2.3283064e-10f;
  return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

template <class T>
__device__ __forceinline__ T convert(float x);
template <>
__device__ __forceinline__ double convert<double>(float x) {
  return static_cast<double>(x);
}
template <>
__device__ __forceinline__ float convert<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __half convert<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 convert<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 convert<__nv_fp8_e4m3>(float x) {
  return __nv_fp8_e4m3(x);
}
template <>
__device__ __forceinline__ signed char convert<signed char>(float x) {
  return static_cast<signed char>(fminf(fmaxf(rintf(x), -127.0f), 127.0f));
}

template <class T>
__global__ void fill_normal_kernel(T* data, unsigned long long count, unsigned long long seed,
                                   float stddev) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
       i < count; i += stride) {
    data[i] = convert<T>(normal_at(seed, i) * stddev);
  }
}

template <class T>
cudaError_t launch(void* data, std::size_t count, std::uint64_t seed, float stddev,
                   cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  constexpr unsigned threads = 256;
  // Grid-stride loop: enough blocks to fill any GPU, not one per element.
  const unsigned long long wanted = (count + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(wanted < 65536ull ? wanted : 65536ull);
  fill_normal_kernel<T><<<blocks, threads, 0, stream>>>(static_cast<T*>(data), count, seed, stddev);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_fill_normal(void* data, std::size_t count, FillType type, std::uint64_t seed,
                               float stddev, cudaStream_t stream) {
  switch (type) {
    case FillType::f64:
      return launch<double>(data, count, seed, stddev, stream);
    case FillType::f32:
      return launch<float>(data, count, seed, stddev, stream);
    case FillType::f16:
      return launch<__half>(data, count, seed, stddev, stream);
    case FillType::bf16:
      return launch<__nv_bfloat16>(data, count, seed, stddev, stream);
    case FillType::fp8_e4m3:
      return launch<__nv_fp8_e4m3>(data, count, seed, stddev, stream);
    case FillType::i8:
      return launch<signed char>(data, count, seed, stddev, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace gpubench::kernels
