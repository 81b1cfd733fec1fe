#include "suites/dataloader/cache_control.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {
using Clock = std::chrono::steady_clock;
}

std::uint64_t resident_bytes(const OpenFile& file) {
  if (file.size() == 0) return 0;
  const long page = ::sysconf(_SC_PAGESIZE);
  void* map = ::mmap(nullptr, file.size(), PROT_READ, MAP_SHARED, file.fd(), 0);
  if (map == MAP_FAILED) return 0;
  const std::size_t pages =
      (file.size() + static_cast<std::size_t>(page) - 1) / static_cast<std::size_t>(page);
  std::vector<unsigned char> vec(pages);
  std::uint64_t resident = 0;
  if (::mincore(map, file.size(), vec.data()) == 0) {
    for (unsigned char v : vec) resident += (v & 1u) ? static_cast<std::uint64_t>(page) : 0;
  }
  ::munmap(map, file.size());
  return std::min<std::uint64_t>(resident, file.size());
}

EvictResult evict_from_page_cache(const std::vector<const OpenFile*>& files) {
  EvictResult r;
  for (const OpenFile* f : files) {
    // Pages mapped by our own mmap read path would pin them in the cache: drop the mapping's
    // page-table entries first (the mapping stays valid; later accesses fault the pages back in).
    if (f->map()) ::madvise(const_cast<std::byte*>(f->map()), f->size(), MADV_DONTNEED);
    ::fdatasync(f->fd());
    ::posix_fadvise(f->fd(), 0, 0, POSIX_FADV_DONTNEED);
    r.bytes += f->size();
  }
  for (const OpenFile* f : files) r.resident_bytes += resident_bytes(*f);
  return r;
}

double memcpy_ceiling_mb_per_s(int threads, std::size_t bytes_per_thread, int rounds) {
  if (threads < 1) threads = 1;
  std::vector<char*> src(static_cast<std::size_t>(threads));
  std::vector<char*> dst(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    src[static_cast<std::size_t>(t)] =
        static_cast<char*>(std::aligned_alloc(4096, bytes_per_thread));
    dst[static_cast<std::size_t>(t)] =
        static_cast<char*>(std::aligned_alloc(4096, bytes_per_thread));
    if (!src[static_cast<std::size_t>(t)] || !dst[static_cast<std::size_t>(t)]) {
      throw infrastructure("cannot allocate memcpy ceiling buffers");
    }
    std::memset(src[static_cast<std::size_t>(t)], t + 1, bytes_per_thread);
    std::memset(dst[static_cast<std::size_t>(t)], 0, bytes_per_thread);
  }
  double best = 0;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        std::memcpy(dst[static_cast<std::size_t>(t)], src[static_cast<std::size_t>(t)],
                    bytes_per_thread);
      });
    }
    for (auto& th : pool) th.join();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    const double mbps = static_cast<double>(bytes_per_thread) * threads / s / 1e6;
    best = std::max(best, mbps);
  }
  for (int t = 0; t < threads; ++t) {
    std::free(src[static_cast<std::size_t>(t)]);
    std::free(dst[static_cast<std::size_t>(t)]);
  }
  return best;
}

double page_cache_memcpy_mb_per_s(const std::vector<const OpenFile*>& files, int threads,
                                  std::size_t chunk_bytes, int rounds) {
  // Best of several short rounds: on a shared machine the best is the one not preempted.
  if (threads < 1) threads = 1;
  if (chunk_bytes == 0) chunk_bytes = 1u << 20;
  struct Chunk {
    const char* data;
    std::size_t size;
  };
  std::vector<std::pair<void*, std::size_t>> maps;
  std::vector<Chunk> chunks;
  std::uint64_t total = 0;
  for (const OpenFile* f : files) {
    if (f->size() == 0) continue;
    void* m = ::mmap(nullptr, f->size(), PROT_READ, MAP_SHARED | MAP_POPULATE, f->fd(), 0);
    if (m == MAP_FAILED) continue;
    maps.emplace_back(m, f->size());
    for (std::uint64_t off = 0; off < f->size(); off += chunk_bytes) {
      chunks.push_back(
          {static_cast<const char*>(m) + off,
           static_cast<std::size_t>(std::min<std::uint64_t>(chunk_bytes, f->size() - off))});
    }
    total += f->size();
  }
  // Two destination buffers per thread, like a worker alternating staging slots.
  std::vector<std::vector<char>> dest(static_cast<std::size_t>(threads) * 2,
                                      std::vector<char>(chunk_bytes, 1));
  double best = 0;
  for (int r = 0; r < rounds + 1; ++r) {  // round 0 warms up (TLB, page tables)
    std::atomic<std::size_t> next{0};
    const auto t0 = Clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        std::size_t k = 0;
        for (std::size_t i; (i = next.fetch_add(1)) < chunks.size(); ++k) {
          std::memcpy(dest[static_cast<std::size_t>(t) * 2 + (k & 1u)].data(), chunks[i].data,
                      chunks[i].size);
        }
      });
    }
    for (auto& th : pool) th.join();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (r > 0 && s > 0) best = std::max(best, static_cast<double>(total) / s / 1e6);
  }
  for (auto& [m, size] : maps) ::munmap(m, size);
  return best;
}

SequentialReadCeiling sequential_read_ceiling(const std::vector<const OpenFile*>& files,
                                              int passes) {
  SequentialReadCeiling out;
  std::vector<char> buf(4u << 20);
  for (int pass = 0; pass < std::max(1, passes); ++pass) {
    out.resident_fraction_before =
        std::max(out.resident_fraction_before, evict_from_page_cache(files).resident_fraction());
    std::uint64_t total = 0;
    const auto t0 = Clock::now();
    for (const OpenFile* f : files) {
      ::posix_fadvise(f->fd(), 0, 0, POSIX_FADV_SEQUENTIAL);  // largest kernel read-ahead
      std::uint64_t off = 0;
      while (off < f->size()) {
        ssize_t n = ::pread(f->fd(), buf.data(), buf.size(), static_cast<off_t>(off));
        if (n <= 0) break;
        off += static_cast<std::uint64_t>(n);
      }
      ::posix_fadvise(f->fd(), 0, 0, POSIX_FADV_NORMAL);
      total += off;
    }
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s > 0) out.mb_per_s = std::max(out.mb_per_s, static_cast<double>(total) / s / 1e6);
  }
  return out;
}

}  // namespace gpubench::dataloader
