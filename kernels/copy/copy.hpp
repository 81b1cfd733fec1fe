// Copy kernels of the `transfer` suite, and the seeded pattern every transfer case validates with.
//
// This header includes no CUDA header: the host runner, the tests and the kernels all use it.
//
// Variants:
//   sm_copy        the SM copy engine: a grid-stride kernel copies 16-byte words from `src` to
//                  `dst`. Either side may be device memory, a peer's memory or mapped (zero-copy)
//                  host memory, so one kernel serves h2d/d2h "memcpy_sm" and device_local_copy_sm.
//   sm_copy_bidir  both directions at once in one kernel: even warps copy a->b, odd warps c->d
//                  (nvbandwidth's bidirectional SM pattern).
// Both size their grid to the copy (sm_copy_grid): a small copy launches only the blocks it needs.
//   fill_pattern   writes pattern_word(seed, i) to every 32-bit word of a device (or mapped)
//   buffer.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define GPUBENCH_COPY_HD __host__ __device__
#else
#define GPUBENCH_COPY_HD
#endif

struct CUstream_st;

namespace gpubench::kernels::copy {

// The 32-bit word at index `i` of the pattern seeded with `seed` (a SplitMix-style mix, so every
// word differs from its neighbours and a shifted or stale copy cannot pass validation).
GPUBENCH_COPY_HD inline std::uint32_t pattern_word(std::uint32_t seed, std::uint64_t i) {
  std::uint64_t z = i + 0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(seed) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<std::uint32_t>(z) | 1u;  // never 0: a zeroed destination always fails
}

// Fills `words` 32-bit words on the host (CPU reference and host-side sources).
void fill_pattern_host(std::uint32_t* data, std::uint64_t words, std::uint32_t seed);

// Threads per block of the SM copy kernels (as nvbandwidth's), and how many 16-byte words one
// thread copies per pass of its unrolled loop (loads issued before stores, so several requests are
// in flight over a long-latency link).
inline constexpr int k_copy_threads_per_block = 512;
inline constexpr int k_copy_words_per_thread = 4;
inline constexpr int k_copy_max_blocks_per_sm = 4;

// Blocks of an SM copy of `bytes` (one direction) on a GPU of `sm_count` SMs: enough blocks that
// every thread copies at least k_copy_words_per_thread words, at most 4 per SM (full occupancy
// for large copies). A fixed 4-blocks-per-SM grid made a 4 KiB copy (256 words) launch and retire
// 270,336 threads on an H200, so its time measured the grid, bound by the SM clock, more than the
// copy (nvbandwidth sizes small SM copies to the data too). Always >= 1.
int sm_copy_grid(std::size_t bytes, int sm_count);
// The same for sm_copy_bidir, where half of each block's warps copy each direction: `bytes` is one
// direction's size.
int sm_copy_bidir_grid(std::size_t bytes, int sm_count);

// All launchers return the cudaError_t of the launch as an int (0 = success) and only queue work.
// `bytes` must be a multiple of 16 and the pointers 16-byte aligned (every buffer the suite
// allocates is page-aligned; sizes are multiples of 4 KiB).
int launch_sm_copy(void* dst, const void* src, std::size_t bytes, int sm_count,
                   CUstream_st* stream);
int launch_sm_copy_bidir(void* dst_a, const void* src_a, void* dst_b, const void* src_b,
                         std::size_t bytes, int sm_count, CUstream_st* stream);
int launch_fill_pattern(std::uint32_t* data, std::uint64_t words, std::uint32_t seed,
                        CUstream_st* stream);

}  // namespace gpubench::kernels::copy
