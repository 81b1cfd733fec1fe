// Grid shapes of the fusion launchers (bias_gelu, layernorm, softmax). CUDA-free, so the host
// tests check the same functions the launchers call; fusion_device.cuh includes it.
#pragma once

#include <cstdint>

namespace gpubench::kernels::device {

inline constexpr int k_block_threads = 256;

// At most this many blocks per launch: a few waves on any current GPU (grid-stride loops do the
// rest), and far below gridDim.x's limit of 2^31 - 1.
inline constexpr std::uint64_t k_max_blocks = std::uint64_t{1} << 20;

// Blocks for a grid-stride loop over `n` items handled `per_thread` at a time: enough to cover
// them, capped at k_max_blocks (the loop handles the rest).
constexpr unsigned int grid_for(std::uint64_t n, std::uint64_t per_thread = 1) {
  const std::uint64_t threads = (n + per_thread - 1) / per_thread;
  std::uint64_t blocks = (threads + k_block_threads - 1) / k_block_threads;
  if (blocks < 1) blocks = 1;
  return static_cast<unsigned int>(blocks < k_max_blocks ? blocks : k_max_blocks);
}

// --- 2D grids of the scalar v1/v2 kernels that need an element's row or column ------------------
// bias_gelu v1/v2 read bias[column], softmax v1's normalisation row_max[row] and row_sum[row]. A
// flat grid-stride loop over i = row * cols + column would need i % cols or i / cols on 64 bits
// for every element (a long instruction sequence with a slow-path branch), a cost the fused
// versions do not have and that no unfused graph of real kernels pays. So these kernels take a 2D
// grid and two loops:
//   rows     r = blockIdx.y, + gridDim.y, ...                        (64-bit; r * cols once per
//   row) columns  c = blockIdx.x * blockDim.x + threadIdx.x, + gridDim.x * blockDim.x, ... (32-bit)
// Consecutive threads still touch consecutive addresses of one row, one element per access, so
// the kernels stay the naive scalar baselines whose bytes the headers count.

// gridDim.y's limit; taller matrices go round the row loop.
inline constexpr std::uint64_t k_max_grid_y = 65535;

// Columns the 2D kernels accept: the column index and its stride stay below 2^32 in 32 bits
// (c < cols <= 2^31 - 1, stride <= 2^28).
inline constexpr std::uint64_t k_max_cols_2d = 0x7fffffffull;

struct Grid2d {
  unsigned int x = 1;  // blocks across a row: column tiles of k_block_threads
  unsigned int y = 1;  // blocks down the rows
};

// One thread per element where the limits allow (x covers a row, y one row per block row), so the
// kernel launches the same number of blocks as grid_for(rows * cols) when cols is a multiple of
// k_block_threads (every suite shape); never more than k_max_blocks in all, nor more than
// k_max_grid_y rows of blocks. cols <= k_max_cols_2d.
constexpr Grid2d grid_2d_for(std::uint64_t rows, std::uint64_t cols) {
  std::uint64_t x = (cols + k_block_threads - 1) / k_block_threads;
  if (x < 1) x = 1;
  if (x > k_max_blocks) x = k_max_blocks;
  std::uint64_t y = rows;
  if (y > k_max_grid_y) y = k_max_grid_y;
  if (y > k_max_blocks / x) y = k_max_blocks / x;
  if (y < 1) y = 1;
  return {static_cast<unsigned int>(x), static_cast<unsigned int>(y)};
}

}  // namespace gpubench::kernels::device
