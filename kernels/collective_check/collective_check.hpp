// Crafted inputs and on-device result checks for NCCL collectives (the allreduce suite).
//
// nccl-tests' idea: every rank's input is small integers, so every result is an exact integer
// that fp32, fp16 and bf16 all represent; a result is right only if its bits equal the expected
// value's bits. This header includes no CUDA header: the kernels, the CPU reference and the host
// tests share the arithmetic below.
//
// Variants (collective_check_kernels.cu):
//   fill_input        writes crafted_value(rank, first + i, modulus) in the element type: inputs
//   are
//                     made on the device, stream-ordered with the collective (no host copy).
//   count_mismatches  compares every output element with expected_bits(spec, i) and adds the
//                     number that differ to a device counter (one atomicAdd per thread).
// The CPU reference (collective_check_host.cpp) does both on host memory.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define GPUBENCH_CHECK_HD __host__ __device__
#else
#define GPUBENCH_CHECK_HD
#endif

struct CUstream_st;

namespace gpubench::kernels::collective_check {

// Element types (the values of the suite's ElementType, kept numeric so device code needs no
// suite header).
enum class Dtype : int { fp32 = 0, bf16 = 1, fp16 = 2 };
// What the output buffer of one rank holds after the call.
enum class Layout : int { allreduce = 0, allgather = 1, reduce_scatter = 2, broadcast = 3 };

// Value of element `index` of `rank`'s input: (3 rank + index) mod `modulus` (modulus 4 or 2).
GPUBENCH_CHECK_HD inline int crafted_value(int rank, std::uint64_t index, int modulus) {
  return static_cast<int>((3ull * static_cast<std::uint64_t>(rank) + index) %
                          static_cast<std::uint64_t>(modulus));
}

// Sum over ranks 0..ranks-1 of crafted_value(r, index, modulus), in O(modulus): 3 is coprime to
// 4 and 2, so every `modulus` consecutive ranks contribute 0 + 1 + ... + (modulus - 1).
GPUBENCH_CHECK_HD inline int crafted_sum(int ranks, std::uint64_t index, int modulus) {
  const int full = ranks / modulus;
  int sum = full * modulus * (modulus - 1) / 2;
  for (int r = full * modulus; r < ranks; ++r) sum += crafted_value(r, index, modulus);
  return sum;
}

// Significand bits (without the implicit one) and the largest integer below which every integer
// is exact: fp32 2^24, fp16 2^11, bf16 2^8.
GPUBENCH_CHECK_HD inline int mantissa_bits(Dtype type) {
  return type == Dtype::fp32 ? 23 : (type == Dtype::fp16 ? 10 : 7);
}
GPUBENCH_CHECK_HD inline long long exact_integer_limit(Dtype type) {
  return 1ll << (mantissa_bits(type) + 1);
}

// IEEE bits of the non-negative integer `value` in `type` (right-aligned in 32 bits). Exact for
// value <= exact_integer_limit(type); larger values are truncated (the checks never ask for them).
GPUBENCH_CHECK_HD inline std::uint32_t encode_bits(Dtype type, int value) {
  if (value <= 0) return 0;
  int e = 0;
  while ((value >> (e + 1)) != 0) ++e;  // value in [2^e, 2^(e+1))
  const int m = mantissa_bits(type);
  const std::uint32_t v = static_cast<std::uint32_t>(value);
  const std::uint32_t mantissa = (e <= m ? v << (m - e) : v >> (e - m)) & ((1u << m) - 1u);
  const int bias = type == Dtype::fp16 ? 15 : 127;
  return (static_cast<std::uint32_t>(e + bias) << m) | mantissa;
}

GPUBENCH_CHECK_HD inline std::size_t element_bytes(Dtype type) {
  return type == Dtype::fp32 ? 4 : 2;
}

// The modulus that keeps every sum over `ranks` exact in `type`: 4 (values 0..3) while the
// largest sum fits, else 2 (values 0..1), else 0: no exact crafted input exists (e.g. bf16 over
// more than 512 ranks) and the case must be skipped, not checked loosely.
int crafted_modulus(Dtype type, int ranks);

// One rank's view of one case.
struct CheckSpec {
  Layout layout = Layout::allreduce;
  Dtype type = Dtype::fp32;
  int ranks = 1;
  int rank = 0;
  int modulus = 4;
  std::uint64_t send_count = 0;  // elements each rank contributes
  std::uint64_t recv_count = 0;  // elements of this rank's output
};

// The value element `i` of this rank's output must hold after one call on crafted inputs:
//   allreduce       sum over ranks of element i;
//   allgather       element i % send of rank i / send;
//   reduce_scatter  sum over ranks of element rank * recv + i of the full send buffer;
//   broadcast       element i of root 0.
GPUBENCH_CHECK_HD inline int expected_value(const CheckSpec& s, std::uint64_t i) {
  switch (s.layout) {
    case Layout::allreduce:
      return crafted_sum(s.ranks, i, s.modulus);
    case Layout::allgather:
      return crafted_value(static_cast<int>(i / s.send_count), i % s.send_count, s.modulus);
    case Layout::reduce_scatter:
      return crafted_sum(s.ranks, static_cast<std::uint64_t>(s.rank) * s.recv_count + i, s.modulus);
    case Layout::broadcast:
      return crafted_value(0, i, s.modulus);
  }
  return 0;
}

GPUBENCH_CHECK_HD inline std::uint32_t expected_bits(const CheckSpec& s, std::uint64_t i) {
  return encode_bits(s.type, expected_value(s, i));
}

// CPU reference: the same fill and count on host memory.
void fill_input_host(void* data, std::uint64_t count, std::uint64_t first_index, Dtype type,
                     int rank, int modulus);
std::uint64_t count_mismatches_host(const void* data, const CheckSpec& spec);

// Launchers: queue work on `stream` and return the launch's cudaError_t as an int (0 = success).
// `counter` is device memory the caller zeroes (cudaMemsetAsync) before counting.
int launch_fill_input(void* data, std::uint64_t count, std::uint64_t first_index, Dtype type,
                      int rank, int modulus, CUstream_st* stream);
int launch_count_mismatches(const void* data, const CheckSpec& spec, unsigned long long* counter,
                            CUstream_st* stream);

}  // namespace gpubench::kernels::collective_check
