// A persistent pool of std::threads for the host half of the memory suite.
//
// Why not spawn threads per pass: thread creation costs tens of microseconds, more than a pass
// over an in-cache array. The pool keeps its threads alive across passes and benchmarks; each
// pass is released by one barrier and collected by another (std::barrier), so the time measured
// around run() is the parallel region plus two barrier crossings, as with an OpenMP parallel for.
//
// Thread i is pinned to the i-th CPU of the process's affinity mask (round-robin), so the chunk a
// thread first-touches stays on that thread's NUMA node and the thread does not migrate mid-run.
#pragma once

#include <atomic>
#include <barrier>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace gpubench::suites::memory {

// CPUs this process may keep busy (util/cpu_budget.hpp: the affinity mask, capped by a cgroup
// CPU quota). At least 1.
int usable_cpu_count();

// Thread counts swept: 1, 2, 4, ... below `max_threads`, and always `max_threads` itself.
std::vector<int> thread_sweep(int max_threads);

class ThreadPool {
 public:
  // `threads` >= 1 workers in total; the calling thread is worker 0, so threads - 1 are spawned.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const noexcept { return m_size; }

  // Runs task(worker_index) on every worker (index 0 on the caller) and returns when all are
  // done. Not reentrant; call from the thread that created the pool.
  void run(const std::function<void(int)>& task);

 private:
  void worker_loop(int index);

  int m_size;
  std::barrier<> m_start;
  std::barrier<> m_done;
  const std::function<void(int)>* m_task = nullptr;  // valid between the two barriers
  std::atomic<bool> m_stop{false};
  std::vector<std::thread> m_threads;
  std::vector<int> m_caller_cpus;  // the caller's affinity before it was pinned; empty: unpinned
};

// [begin, end) of worker `index` of `workers` over `n` items, in contiguous chunks aligned to
// `align_items` (so chunks start on cache-line boundaries); the last chunk takes the remainder.
struct Chunk {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};
Chunk chunk_of(std::uint64_t n, int workers, int index, std::uint64_t align_items = 8);

}  // namespace gpubench::suites::memory
