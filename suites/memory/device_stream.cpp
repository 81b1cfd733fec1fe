#include "suites/memory/device_stream.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernels/memory/stream.hpp"
#include "kernels/memory/stream_reference.hpp"
#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/cuda/memory_bandwidth.hpp"
#include "suites/common/cuda/preload.hpp"
#include "suites/common/cuda/resources.hpp"
#include "suites/common/cuda/timing.hpp"
#include "suites/common/l2_placement.hpp"
#include "suites/common/launch_ledger.hpp"
#include "suites/common/sample_state_counters.hpp"
#include "suites/common/sampled_batches.hpp"
#include "suites/common/sampling.hpp"
#include "suites/common/suite_support.hpp"

namespace gpubench::suites::memory {
namespace km = gpubench::kernels::memory;
namespace cu = gpubench::suite::cuda;
using gpubench::suite::cache_mode;
using gpubench::suite::CacheMode;
using gpubench::suite::describe_l2_placement;
using gpubench::suite::is_dram_bandwidth;
using gpubench::suite::k_l2_resident_counter;
using gpubench::suite::l2_placement;
using gpubench::suite::L2Placement;
using gpubench::suite::measure_batches;
using gpubench::suite::Profile;
using gpubench::suite::SampledBatches;
using gpubench::suite::TimedBatch;

namespace {

constexpr std::uint64_t k_mib = 1024ull * 1024ull;
// Elements compared with the reference: a strided sample of this many plus the last chunk.
constexpr std::uint64_t k_validation_samples = 4096;
constexpr std::uint64_t k_validation_tail = 1024;
static_assert(k_max_passes_per_batch == cu::k_max_queued_kernels,
              "a batch of passes stays below the spin kernel's queue limit");
// Device memory left free beyond the arrays (L2 flusher, spin/probe buffers, the context's own).
constexpr std::uint64_t k_device_headroom_bytes = 256 * k_mib;

// The launchers in the CUDA-free stream.hpp return cudaError_t as an int.
cudaError_t as_cuda_error(int status) {
  return static_cast<cudaError_t>(status);
}

// Copies elements first, first + stride, ... (count of them) of a device array to `out`.
void copy_strided(const double* device, std::uint64_t first, std::uint64_t stride,
                  std::uint64_t count, double* out) {
  if (count == 0) return;
  GPUBENCH_CUDA_CHECK(cudaMemcpy2D(out, sizeof(double), device + first, stride * sizeof(double),
                                   sizeof(double), count, cudaMemcpyDeviceToHost));
}

// Compares a strided sample and the tail of the arrays with the reference.
km::StreamCheck validate_sampled(const km::StreamReference& ref, const double* a, const double* b,
                                 const double* c, std::uint64_t n) {
  km::StreamCheck check;
  // An odd stride visits every residue of the input pattern's period over the sample.
  const std::uint64_t stride = std::max<std::uint64_t>(1, n / k_validation_samples) | 1u;
  const std::uint64_t strided = (n + stride - 1) / stride;
  const std::uint64_t tail = std::min(n, k_validation_tail);
  struct Part {
    std::uint64_t first, stride, count;
  };
  for (const Part part : {Part{0, stride, strided}, Part{n - tail, 1, tail}}) {
    std::vector<double> ha(part.count), hb(part.count), hc(part.count);
    copy_strided(a, part.first, part.stride, part.count, ha.data());
    copy_strided(b, part.first, part.stride, part.count, hb.data());
    copy_strided(c, part.first, part.stride, part.count, hc.data());
    for (std::uint64_t k = 0; k < part.count; ++k) {
      km::check_element(ref, part.first + k * part.stride, km::StreamValues{ha[k], hb[k], hc[k]},
                        km::k_stream_double_tolerance, check);
    }
  }
  return check;
}

// The steady SM clock of the last case measured on each device: a GPU already at its clock ends
// the next case's warm-up after one batch (suite::ClockSettle).
std::map<int, double>& last_steady_clock_mhz() {
  static auto* clocks = new std::map<int, double>();
  return *clocks;
}

void device_benchmark(benchmark::State& state, km::StreamOp op, std::uint64_t array_bytes,
                      int device, Profile profile) {
  const std::string reason = device_unavailable_reason();
  if (!reason.empty()) {
    gpubench::suite::skip(state, reason);
    return;
  }
  const std::string sizes =
      "3 arrays of " + std::to_string(array_bytes) + " bytes on device " + std::to_string(device);
  gpubench::suite::run_guarded(state, sizes, [&] {
    GPUBENCH_CUDA_CHECK(cudaSetDevice(device));
    const cu::DeviceInfo info = cu::query_device(device);
    const cu::MemoryInfo memory = cu::memory_info();
    if (memory.free_bytes < 3 * array_bytes + k_device_headroom_bytes) {
      throw gpubench::suite::SkipCase("not enough device memory: " + sizes + " need " +
                                      std::to_string(3 * array_bytes) + " bytes, " +
                                      std::to_string(memory.free_bytes) + " free");
    }
    const std::uint64_t n = array_bytes / sizeof(double);
    cu::DeviceBuffer<double> a(n), b(n), c(n);
    cu::Stream stream = cu::Stream::create();
    GPUBENCH_CUDA_CHECK(
        as_cuda_error(km::launch_stream_init(a.data(), b.data(), c.data(), n, stream.get())));

    std::uint64_t passes = 0;  // every pass run, for the reference the validation compares with
    const auto launch_op = [&] {
      return km::launch_stream_op(op, a.data(), b.data(), c.data(), km::k_stream_scalar, n, 0,
                                  stream.get());
    };
    // Preload: one pass outside any timed batch, so no batch is the kernel's first launch (a lazy
    // module load behind the spin kernel would stall until it times out). It counts as a pass.
    const std::string kernel = std::string("memory::stream_") + km::to_string(op);
    cu::preload_kernel(kernel, stream.get(), launch_op);
    ++passes;
    const auto enqueue = [&](int count) {
      gpubench::suite::LaunchLedger::process().note(cu::current_device(), kernel);
      for (int p = 0; p < count; ++p) GPUBENCH_CUDA_CHECK(as_cuda_error(launch_op()));
      passes += static_cast<std::uint64_t>(count);
    };
    cu::BatchTimer timer(stream.get(), info.clock_khz, static_cast<std::size_t>(info.l2_bytes));
    const gpubench::suite::SamplingPolicy policy = gpubench::suite::sampling_policy(profile);
    double& last_steady = last_steady_clock_mhz()[device];
    // Where the arrays one pass touches live against the L2 decides how the passes are timed: a
    // straddling working set cold, each pass right after an L2 flush (l2_placement.hpp).
    const std::uint64_t bytes_per_pass = km::stream_bytes_per_pass(op, n * sizeof(double));
    const auto l2 = static_cast<std::uint64_t>(std::max(info.l2_bytes, 0));
    const L2Placement placement = l2_placement(bytes_per_pass, l2);
    const CacheMode cache = cache_mode(placement, l2);
    std::optional<SampledBatches> measured;
    for (auto _ : state) {
      if (cache == CacheMode::cold) {
        // Batches of (flush, pass) pairs, only the pass between events; hundreds of passes.
        measured.emplace(gpubench::suite::measure_flushed_calls(
            policy, last_steady, gpubench::suite::cold_pairs_per_batch(1, cu::k_max_queued_kernels),
            gpubench::suite::cold_pairs_per_repetition(profile), [&](int pairs) {
              const cu::FlushedCallsSample s = timer.time_flushed_calls([&] { enqueue(1); }, pairs);
              gpubench::suite::FlushedBatch batch;
              for (double ms : s.call_ms) batch.call_s.push_back(ms / 1e3);
              batch.elapsed_s = s.elapsed_ms / 1e3;
              batch.sm_clock_mhz = s.sm_clock_mhz;
              batch.end_s = gpubench::suite::SampleStateRecorder::now_s();
              return batch;
            }));
      } else {
        // Hot batches of back-to-back passes: a sample is >= the profile's batch target of GPU
        // time, the warm-up runs until the SM clock is steady (suites/common/sampled_batches.hpp).
        measured.emplace(
            measure_batches(policy, last_steady, k_max_passes_per_batch, [&](int count) {
              const cu::BatchSample s =
                  timer.time_batch([&] { enqueue(count); }, cu::CacheState::hot);
              return TimedBatch{s.elapsed_ms / 1e3, s.sm_clock_mhz,
                                gpubench::suite::SampleStateRecorder::now_s()};
            }));
      }
      state.SetIterationTime(measured->call_s());
    }
    stream.synchronize();
    if (!measured) return;
    if (measured->steady_clock_mhz() > 0) last_steady = measured->steady_clock_mhz();

    const km::StreamReference ref(op, passes);
    const km::StreamCheck check = validate_sampled(ref, a.data(), b.data(), c.data(), n);
    if (!check.ok()) {
      gpubench::suite::fail(state, check.describe());
      return;
    }
    const double pass_s = measured->call_s();
    const double gb_per_s = pass_s > 0 ? static_cast<double>(bytes_per_pass) / pass_s / 1e9 : 0.0;
    state.counters["GB_per_s"] = gb_per_s;
    // Only a hot pass over arrays that stream from DRAM is a DRAM bandwidth: no share of its peak
    // for one in (or partly in) L2, nor for a cold straddling pass (l2_placement.hpp says why).
    state.counters[k_l2_resident_counter] = placement == L2Placement::resident ? 1 : 0;
    const double peak = cu::peak_dram_gb_per_s(device);
    if (peak > 0 && is_dram_bandwidth(placement, cache))
      state.counters["pct_of_peak"] = 100.0 * gb_per_s / peak;
    measured->write_counters(state);
    // Sample state (METHODOLOGY rule 5), not metrics: the lowest SM clock of the kept samples and
    // their time window, under the shared state keys.
    gpubench::suite::SampleStateRecorder states;
    measured->record_kept(states);
    states.write(state);
    state.SetLabel(describe_l2_placement(bytes_per_pass, l2) + " " + measured->summary());
  });
}

}  // namespace

std::string device_unavailable_reason() {
  static const std::string reason = cu::probe_devices().reason;
  return reason;
}

std::vector<std::uint64_t> device_sweep(Profile profile) {
  switch (profile) {
    case Profile::quick:
      return {256 * k_mib};
    case Profile::standard:
      return {16 * k_mib, 256 * k_mib, 1024 * k_mib};
    case Profile::full:
      return {4 * k_mib, 16 * k_mib, 64 * k_mib, 256 * k_mib, 1024 * k_mib, 4096 * k_mib};
  }
  return {256 * k_mib};
}

std::string device_benchmark_name(km::StreamOp op, std::uint64_t array_bytes, int device) {
  return std::string("memory/device_") + km::to_string(op) +
         "/array_bytes:" + std::to_string(array_bytes) + "/device:" + std::to_string(device);
}

void register_device_benchmarks(Profile profile, const std::vector<int>& devices) {
  for (int device : devices) {
    for (km::StreamOp op : km::k_stream_ops) {
      for (std::uint64_t bytes : device_sweep(profile)) {
        const std::string name = device_benchmark_name(op, bytes, device);
        suite::register_measured(
            name,
            [op, bytes, device, profile](benchmark::State& state) {
              device_benchmark(state, op, bytes, device, profile);
            },
            benchmark::kMillisecond);
      }
    }
  }
}

}  // namespace gpubench::suites::memory
