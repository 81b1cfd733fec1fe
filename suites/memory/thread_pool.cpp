#include "suites/memory/thread_pool.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>

#include "util/cpu_budget.hpp"

namespace gpubench::suites::memory {
namespace {

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  return cpus;
}

// Best effort: a failure (e.g. a restricted container) leaves the thread unpinned.
void pin_to(std::thread::native_handle_type handle, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(handle, sizeof(set), &set);
}

}  // namespace

int usable_cpu_count() {
  return gpubench::usable_cpu_count();
}

std::vector<int> thread_sweep(int max_threads) {
  std::vector<int> out;
  if (max_threads < 1) max_threads = 1;
  for (int t = 1; t < max_threads; t *= 2) out.push_back(t);
  out.push_back(max_threads);
  return out;
}

ThreadPool::ThreadPool(int threads)
    : m_size(std::max(threads, 1)), m_start(m_size), m_done(m_size) {
  const auto cpus = allowed_cpus();
  m_threads.reserve(static_cast<std::size_t>(m_size - 1));
  for (int i = 1; i < m_size; ++i) {
    m_threads.emplace_back([this, i] { worker_loop(i); });
    if (!cpus.empty()) {
      pin_to(m_threads.back().native_handle(), cpus[static_cast<std::size_t>(i) % cpus.size()]);
    }
  }
  // The caller is worker 0. Pinning it (also when it works alone) keeps its first-touched chunk
  // on its NUMA node and stops it from sharing a CPU with worker 1; its own mask comes back in the
  // destructor.
  if (!cpus.empty()) {
    m_caller_cpus = cpus;
    pin_to(pthread_self(), cpus[0]);
  }
}

ThreadPool::~ThreadPool() {
  m_stop.store(true, std::memory_order_relaxed);
  m_start.arrive_and_wait();  // releases the workers, which see m_stop and leave
  for (auto& t : m_threads) t.join();
  if (!m_caller_cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : m_caller_cpus) CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  }
}

void ThreadPool::run(const std::function<void(int)>& task) {
  m_task = &task;
  m_start.arrive_and_wait();
  task(0);
  m_done.arrive_and_wait();
  m_task = nullptr;
}

void ThreadPool::worker_loop(int index) {
  for (;;) {
    m_start.arrive_and_wait();
    if (m_stop.load(std::memory_order_relaxed)) return;
    (*m_task)(index);
    m_done.arrive_and_wait();
  }
}

Chunk chunk_of(std::uint64_t n, int workers, int index, std::uint64_t align_items) {
  if (workers < 1) workers = 1;
  if (align_items == 0) align_items = 1;
  const auto w = static_cast<std::uint64_t>(workers);
  std::uint64_t per = (n + w - 1) / w;
  per = (per + align_items - 1) / align_items * align_items;
  Chunk c;
  c.begin = std::min(n, per * static_cast<std::uint64_t>(index));
  c.end = index == workers - 1 ? n : std::min(n, c.begin + per);
  return c;
}

}  // namespace gpubench::suites::memory
