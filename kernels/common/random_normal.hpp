// Seeded random-normal inputs generated on the device (random_normal.cu), METHODOLOGY rule 6.
// Element i is a pure function of (seed, i): a splitmix64 hash of the counter gives two uniforms,
// Box-Muller turns them into one N(0, 1) value, scaled by `stddev` and converted to the element
// type with round-to-nearest (fp8: saturating to the largest finite value; int8: rounded and
// clamped to [-127, 127]). No cuRAND; the same (seed, i) gives the same value on every GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpubench::kernels {

enum class FillType : int { f64, f32, f16, bf16, fp8_e4m3, i8 };

// data: device memory holding `count` elements of `type`. Queued on `stream`.
cudaError_t launch_fill_normal(void* data, std::size_t count, FillType type, std::uint64_t seed,
                               float stddev, cudaStream_t stream);

}  // namespace gpubench::kernels
