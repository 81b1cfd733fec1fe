// Device half of the memory suite: STREAM copy/scale/add/triad kernels (kernels/memory) on doubles
// in device memory, swept over array size, one GPU at a time. Only built with CUDA.
//
// Names: memory/device_<op>/array_bytes:<bytes of ONE array>/device:<index>; Google Benchmark
// appends /iterations:<samples>/manual_time. One sample (iteration) is a batch of back-to-back
// passes queued behind the shared spin kernel and timed with CUDA events (hot L2: the arrays of the
// bandwidth sizes are far larger than any L2, and a flush between passes would not change them).
// Metrics GB_per_s (decimal GB/s, STREAM byte counting) and pct_of_peak (of the theoretical DRAM
// bandwidth; hot sizes that fit in L2 can exceed 100). Results are validated after timing on a
// sampled subset of elements against the CPU reference.
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

// Passes per timed sample: about 2 GiB of one-array traffic, 4 to 400 passes (below the timer's
// ~500-launch limit on a batch).
std::uint64_t device_passes_per_sample(std::uint64_t array_bytes);

// "memory/device_<op>/array_bytes:<n>/device:<d>" (without Google Benchmark's suffixes).
std::string device_benchmark_name(gpubench::kernels::memory::StreamOp op, std::uint64_t array_bytes,
                                  int device);

// Registers the device cases for `devices` (indices; with no device the list still holds one
// index so the cases appear, each skipped with the reason).
void register_device_benchmarks(gpubench::suite::Profile profile, const std::vector<int>& devices);

}  // namespace gpubench::suites::memory
