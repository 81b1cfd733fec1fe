// The launch suite's measurements (CUDA only). See launch_cases.hpp for what each case measures.
#pragma once

#include <benchmark/benchmark.h>

#include <string>

#include "suites/launch/launch_cases.hpp"

namespace gpubench::launch {

// Timed samples (Google Benchmark iterations) per repetition.
inline constexpr benchmark::IterationCount k_samples = 10;

// Empty when a CUDA device is usable; otherwise "no CUDA device (<driver message>)".
const std::string& device_unavailable_reason();
int device_count();

// Runs one case on its device; skips and failures are reported on `state`.
void run_case(benchmark::State& state, const LaunchCase& c);

}  // namespace gpubench::launch
