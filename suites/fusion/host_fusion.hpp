// Host variants of the fusion families (device:host): the CPU reference's separate passes (v1) and
// its fused single pass (v2), in fp32, on 1..n workers of the memory suite's thread pool. Real
// measurements: steady_clock around each call, validated against the double reference before
// timing, with the same metrics as the device cases (time per call, effective GB/s with the
// family's perfect-fusion byte count, speed-up over v1 at the same thread count) plus passes over
// the matrix per call.
#pragma once

#include "suites/common/suite_support.hpp"
#include "suites/fusion/fusion_cases.hpp"

namespace gpubench::fusion {

// Registers every host case of the profile (fusion_cases.hpp host_cases()).
void register_host_benchmarks(suite::Profile profile);

// Runs one host case as a Google Benchmark body (exposed for the tests).
void run_host_case(benchmark::State& state, const FusionCase& c);

}  // namespace gpubench::fusion
