// Host half of the memory suite: STREAM copy/scale/add/triad and a memcpy reference ceiling on
// doubles, swept over array size and thread count.
//
// Names: memory/host_<case>/array_bytes:<bytes of ONE array>/threads:<n>, where <case> is copy,
// scale, add, triad or memcpy; Google Benchmark appends /iterations:<passes>/manual_time (the pass
// count is fixed per array size, so names are the same in every profile). Metric GB_per_s: decimal
// GB/s with STREAM's byte counting (stream.hpp); memcpy moves 2 arrays per pass, like copy.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "suites/common/suite_support.hpp"

namespace gpubench::suites::memory {

struct HostSweep {
  std::vector<std::uint64_t> array_bytes;  // bytes of one array
  std::vector<int> threads;
};

// quick: one size well beyond the private caches, threads {1, all}; standard: in-cache to DRAM
// sizes, threads 1, 2, 4, ... all; full: up to 1 GiB per array.
HostSweep host_sweep(gpubench::suite::Profile profile, int usable_cpus);

// Timed passes for one benchmark run: ~512 MiB of one-array traffic, at least 5 and at most
// 4096 passes. Depends on the array size only, so the name is the same in every profile.
std::uint64_t host_passes_for(std::uint64_t array_bytes);

// "memory/host_triad/array_bytes:67108864/threads:2" (without Google Benchmark's suffixes).
std::string host_benchmark_name(std::string_view case_name, std::uint64_t array_bytes, int threads);

// What each host case moves, for the run plan: the same cases and names as
// register_host_benchmarks registers for `usable_cpus`.
struct HostCaseOutline {
  std::string name;
  std::uint64_t array_bytes = 0;
  int threads = 1;
  int arrays_moved = 2;      // per pass, STREAM counting
  std::uint64_t passes = 0;  // timed passes per repetition
};
std::vector<HostCaseOutline> host_case_outlines(gpubench::suite::Profile profile, int usable_cpus);

// Registers every host case of the profile's sweep with Google Benchmark.
void register_host_benchmarks(gpubench::suite::Profile profile);

}  // namespace gpubench::suites::memory
