// Device half of the memory suite: STREAM copy/scale/add/triad kernels (kernels/memory) on doubles
// in device memory, swept over array size, one GPU at a time. Only built with CUDA.
//
// Names: memory/device_<op>/array_bytes:<bytes of ONE array>/device:<index>; Google Benchmark
// appends /iterations:1/manual_time: one iteration per repetition, whose time is the median time of
// one pass. A repetition is the sampled measurement of suites/common/sampled_batches.hpp: each
// sample a hot batch of back-to-back passes (at least the profile's batch target of GPU time, at
// most k_max_passes_per_batch) queued behind the shared spin kernel and timed with CUDA events,
// after a warm-up until the SM clock is steady; samples until the noise target, the time budget or
// max_samples; arrays whose working set straddles the L2 are timed cold instead, as single passes
// each right after an L2 flush (suites/common/sampled_batches.hpp measure_flushed_calls, their
// trimmed mean; `cache:cold` in the label). Metrics GB_per_s (decimal GB/s, STREAM byte counting,
// from the median pass) and pct_of_peak (of the theoretical DRAM bandwidth; only for working sets
// of at least 4x L2, where hot passes stream from DRAM: suites/common/l2_placement.hpp); the
// counters samples, samples_off_clock, noise_pct and l2_resident describe the measurement. Results
// are validated after timing on a sampled subset of elements against the CPU reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/memory/stream.hpp"
#include "suites/common/suite_support.hpp"

namespace gpubench::suites::memory {

// Empty when a CUDA device is usable; otherwise "no CUDA device (<driver message>)".
std::string device_unavailable_reason();

// Array sizes per profile (bytes of one array).
std::vector<std::uint64_t> device_sweep(gpubench::suite::Profile profile);

// Passes one timed batch may queue: the timer's queue limit (suites/common/cuda/timing.hpp
// k_max_queued_kernels), here for the CUDA-free run plan.
inline constexpr int k_max_passes_per_batch = 400;

// "memory/device_<op>/array_bytes:<n>/device:<d>" (without Google Benchmark's suffixes).
std::string device_benchmark_name(gpubench::kernels::memory::StreamOp op, std::uint64_t array_bytes,
                                  int device);

// Registers the device cases for `devices` (indices; with no device the list still holds one
// index so the cases appear, each skipped with the reason).
void register_device_benchmarks(gpubench::suite::Profile profile, const std::vector<int>& devices);

}  // namespace gpubench::suites::memory
