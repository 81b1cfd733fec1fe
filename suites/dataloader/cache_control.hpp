// Page-cache control and the reference ceilings every dataloader figure is compared with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "suites/dataloader/read_paths.hpp"

namespace gpubench::dataloader {

// posix_fadvise(POSIX_FADV_DONTNEED) on each file (after fdatasync, since dirty pages cannot be
// dropped). The kernel may ignore the hint (pages mapped elsewhere, some filesystems, overlayfs
// in containers): the result says how much stayed resident, measured with mincore().
struct EvictResult {
  std::uint64_t bytes = 0;           // total size of the files
  std::uint64_t resident_bytes = 0;  // still in page cache after the hint
  double resident_fraction() const {
    return bytes ? static_cast<double>(resident_bytes) / static_cast<double>(bytes) : 0.0;
  }
};
EvictResult evict_from_page_cache(const std::vector<const OpenFile*>& files);
// Bytes of `file` resident in the page cache (mincore over a temporary mapping).
std::uint64_t resident_bytes(const OpenFile& file);

// memcpy bandwidth in MB/s (1e6 bytes) with `threads` threads each copying its own
// `bytes_per_thread` buffer (larger than the last-level cache), best of `rounds`.
double memcpy_ceiling_mb_per_s(int threads, std::size_t bytes_per_thread = 64u << 20,
                               int rounds = 3);
// The warm-cache ceiling: memcpy straight out of the page cache (the files mapped, populated),
// in `chunk_bytes` pieces into per-thread destination buffers, `threads` threads sharing the
// chunks, best of `rounds`. No syscalls, no decoding: what a loader could reach at best.
double page_cache_memcpy_mb_per_s(const std::vector<const OpenFile*>& files, int threads,
                                  std::size_t chunk_bytes, int rounds = 7);

// Sequential read rate of the files in MB/s, best of `passes`: evicts them, then reads each
// front to back with 4 MiB pread calls on one thread (POSIX_FADV_SEQUENTIAL read-ahead). One
// stream: parallel readers can beat it on devices with deep queues (NVMe), which shows as a
// fraction_of_ceiling above 1. When eviction fails the figure is a page-cache rate; the resident
// fraction (the worst pass) tells which.
struct SequentialReadCeiling {
  double mb_per_s = 0;
  double resident_fraction_before = 0;
};
SequentialReadCeiling sequential_read_ceiling(const std::vector<const OpenFile*>& files,
                                              int passes = 3);

}  // namespace gpubench::dataloader
