// Device side of the collective checks: grid-stride fill and mismatch count (see the header).
// Both are bandwidth-bound single passes, so checking a 256 MiB result costs about as much as
// reading it once, and the host never touches the elements.
#include <cuda_runtime.h>

#include "kernels/collective_check/collective_check.hpp"

namespace gpubench::kernels::collective_check {

namespace {

constexpr int k_threads = 256;
constexpr int k_max_blocks = 1024;  // enough to saturate HBM; the grid strides over the rest

int blocks_for(std::uint64_t count) {
  const std::uint64_t b = (count + k_threads - 1) / k_threads;
  return static_cast<int>(b < k_max_blocks ? (b > 0 ? b : 1) : k_max_blocks);
}

__global__ void fill_input_kernel(void* data, std::uint64_t count, std::uint64_t first_index,
                                  Dtype type, int rank, int modulus) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride) {
    const std::uint32_t bits = encode_bits(type, crafted_value(rank, first_index + i, modulus));
    if (type == Dtype::fp32) {
      static_cast<std::uint32_t*>(data)[i] = bits;
    } else {
      static_cast<std::uint16_t*>(data)[i] = static_cast<std::uint16_t>(bits);
    }
  }
}

__global__ void count_mismatches_kernel(const void* data, CheckSpec spec,
                                        unsigned long long* counter) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long wrong = 0;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
       i < spec.recv_count; i += stride) {
    const std::uint32_t got = spec.type == Dtype::fp32 ? static_cast<const std::uint32_t*>(data)[i]
                                                       : static_cast<const std::uint16_t*>(data)[i];
    if (got != expected_bits(spec, i)) ++wrong;
  }
  if (wrong) atomicAdd(counter, wrong);  // only threads that saw a mismatch touch the counter
}

}  // namespace

int launch_fill_input(void* data, std::uint64_t count, std::uint64_t first_index, Dtype type,
                      int rank, int modulus, CUstream_st* stream) {
  if (count == 0) return 0;
  fill_input_kernel<<<blocks_for(count), k_threads, 0, stream>>>(data, count, first_index, type,
                                                                 rank, modulus);
  return static_cast<int>(cudaGetLastError());
}

int launch_count_mismatches(const void* data, const CheckSpec& spec, unsigned long long* counter,
                            CUstream_st* stream) {
  if (spec.recv_count == 0) return 0;
  count_mismatches_kernel<<<blocks_for(spec.recv_count), k_threads, 0, stream>>>(data, spec,
                                                                                 counter);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace gpubench::kernels::collective_check
