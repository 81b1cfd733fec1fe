#include "suites/memory/host_stream.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "kernels/memory/stream.hpp"
#include "kernels/memory/stream_reference.hpp"
#include "suites/common/suite_support.hpp"
#include "suites/memory/thread_pool.hpp"

namespace gpubench::suites::memory {
namespace km = gpubench::kernels::memory;
using gpubench::suite::Profile;

namespace {

constexpr std::uint64_t k_mib = 1024ull * 1024ull;
// Arrays start on a 2 MiB boundary so transparent huge pages can back them.
constexpr std::size_t k_array_alignment = 2 * 1024 * 1024;
// Chunk boundaries on whole cache lines (8 doubles = 64 bytes): no false sharing between threads.
constexpr std::uint64_t k_chunk_align_doubles = 8;

struct FreeDeleter {
  void operator()(double* p) const noexcept { std::free(p); }
};
using HostArray = std::unique_ptr<double[], FreeDeleter>;

// Uninitialised, aligned storage: the pages are first touched by the threads that use them.
HostArray allocate_array(std::uint64_t bytes) {
  const std::uint64_t rounded =
      (bytes + k_array_alignment - 1) / k_array_alignment * k_array_alignment;
  return HostArray(static_cast<double*>(std::aligned_alloc(k_array_alignment, rounded)));
}

// One pool for the whole process, rebuilt only when the thread count changes (the benchmarks of
// one thread count run one after another in registration order).
ThreadPool& pool_for(int threads) {
  static std::unique_ptr<ThreadPool> pool;
  if (!pool || pool->size() != threads) {
    pool.reset();  // restores the caller's affinity before the next pool reads it
    pool = std::make_unique<ThreadPool>(threads);
  }
  return *pool;
}

enum class HostCase { copy, scale, add, triad, memcpy };

const char* case_name(HostCase c) {
  switch (c) {
    case HostCase::copy:
      return "host_copy";
    case HostCase::scale:
      return "host_scale";
    case HostCase::add:
      return "host_add";
    case HostCase::triad:
      return "host_triad";
    case HostCase::memcpy:
      return "host_memcpy";
  }
  return "host_copy";
}

// The STREAM operation a case computes (memcpy computes copy's c = a).
km::StreamOp stream_op_of(HostCase c) {
  switch (c) {
    case HostCase::copy:
    case HostCase::memcpy:
      return km::StreamOp::copy;
    case HostCase::scale:
      return km::StreamOp::scale;
    case HostCase::add:
      return km::StreamOp::add;
    case HostCase::triad:
      return km::StreamOp::triad;
  }
  return km::StreamOp::copy;
}

void host_benchmark(benchmark::State& state, HostCase host_case, std::uint64_t array_bytes,
                    int threads) {
  const km::StreamOp op = stream_op_of(host_case);
  const std::uint64_t n = array_bytes / sizeof(double);
  HostArray a = allocate_array(array_bytes);
  HostArray b = allocate_array(array_bytes);
  HostArray c = allocate_array(array_bytes);
  if (!a || !b || !c) {
    gpubench::suite::skip(
        state, "not enough host memory for 3 arrays of " + std::to_string(array_bytes) + " bytes");
    return;
  }
  ThreadPool& pool = pool_for(threads);
  double* pa = a.get();
  double* pb = b.get();
  double* pc = c.get();

  // First touch: each thread writes the chunk it will later stream, so its pages land on that
  // thread's NUMA node.
  pool.run([&](int w) {
    const Chunk ch = chunk_of(n, threads, w, k_chunk_align_doubles);
    km::stream_fill_initial(pa, pb, pc, ch.begin, ch.end);
  });

  const auto pass = [&](int w) {
    const Chunk ch = chunk_of(n, threads, w, k_chunk_align_doubles);
    if (host_case == HostCase::memcpy) {
      std::memcpy(pc + ch.begin, pa + ch.begin, (ch.end - ch.begin) * sizeof(double));
    } else {
      km::stream_pass(op, pa, pb, pc, km::k_stream_scalar, ch.begin, ch.end);
    }
  };

  // Warm-up pass (not timed): faults in anything the first touch missed, warms the TLB.
  pool.run(pass);
  std::uint64_t passes = 1;
  double timed_s = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    pool.run(pass);
    const auto t1 = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(t1 - t0).count();
    state.SetIterationTime(s);
    timed_s += s;
    ++passes;
  }

  // Validate after timing (STREAM's checkSTREAMresults), every element, in parallel.
  const km::StreamReference ref(op, passes);
  std::vector<km::StreamCheck> checks(static_cast<std::size_t>(threads));
  pool.run([&](int w) {
    const Chunk ch = chunk_of(n, threads, w, k_chunk_align_doubles);
    checks[static_cast<std::size_t>(w)] =
        km::check_stream_arrays(ref, pa, pb, pc, ch.begin, ch.end);
  });
  km::StreamCheck total;
  for (const auto& ch : checks) total.merge(ch);
  if (!total.ok()) {
    gpubench::suite::fail(state, total.describe());
    return;
  }

  const double bytes = static_cast<double>(km::stream_bytes_per_pass(op, n * sizeof(double))) *
                       static_cast<double>(state.iterations());
  // A plain counter (not kIsRate): the value is our own byte count over our own timed seconds.
  state.counters["GB_per_s"] = timed_s > 0 ? bytes / timed_s / 1e9 : 0.0;
}

}  // namespace

HostSweep host_sweep(Profile profile, int usable_cpus) {
  HostSweep sweep;
  const int cpus = std::max(usable_cpus, 1);
  switch (profile) {
    case Profile::quick:
      sweep.array_bytes = {64 * k_mib};
      sweep.threads = cpus > 1 ? std::vector<int>{1, cpus} : std::vector<int>{1};
      break;
    case Profile::standard:
      sweep.array_bytes = {1 * k_mib, 16 * k_mib, 64 * k_mib, 256 * k_mib};
      sweep.threads = thread_sweep(cpus);
      break;
    case Profile::full:
      sweep.array_bytes = {256 * 1024, 1 * k_mib,   4 * k_mib,   16 * k_mib,
                           64 * k_mib, 256 * k_mib, 1024 * k_mib};
      sweep.threads = thread_sweep(cpus);
      break;
  }
  return sweep;
}

std::uint64_t host_passes_for(std::uint64_t array_bytes) {
  const std::uint64_t target = 512 * k_mib;
  const std::uint64_t passes = target / std::max<std::uint64_t>(array_bytes, 1);
  return std::clamp<std::uint64_t>(passes, 5, 4096);
}

std::string host_benchmark_name(std::string_view case_name_text, std::uint64_t array_bytes,
                                int threads) {
  std::string name = "memory/";
  name += case_name_text;
  name += "/array_bytes:" + std::to_string(array_bytes);
  name += "/threads:" + std::to_string(threads);
  return name;
}

namespace {
// Every host case of the sweep, in registration order: thread count outermost, so the
// process-wide pool is rebuilt once per count.
template <typename Visit>
void for_each_host_case(Profile profile, int usable_cpus, Visit&& visit) {
  const HostSweep sweep = host_sweep(profile, usable_cpus);
  for (int threads : sweep.threads) {
    for (HostCase hc :
         {HostCase::copy, HostCase::scale, HostCase::add, HostCase::triad, HostCase::memcpy}) {
      for (std::uint64_t bytes : sweep.array_bytes) visit(hc, bytes, threads);
    }
  }
}
}  // namespace

std::vector<HostCaseOutline> host_case_outlines(Profile profile, int usable_cpus) {
  std::vector<HostCaseOutline> out;
  for_each_host_case(profile, usable_cpus, [&](HostCase hc, std::uint64_t bytes, int threads) {
    out.push_back({host_benchmark_name(case_name(hc), bytes, threads), bytes, threads,
                   km::stream_arrays_moved(stream_op_of(hc)), host_passes_for(bytes)});
  });
  return out;
}

void register_host_benchmarks(Profile profile) {
  for_each_host_case(profile, usable_cpu_count(),
                     [](HostCase hc, std::uint64_t bytes, int threads) {
                       suite::register_timed(
                           host_benchmark_name(case_name(hc), bytes, threads),
                           static_cast<benchmark::IterationCount>(host_passes_for(bytes)),
                           [hc, bytes, threads](benchmark::State& state) {
                             host_benchmark(state, hc, bytes, threads);
                           },
                           benchmark::kMillisecond);
                     });
}

}  // namespace gpubench::suites::memory
