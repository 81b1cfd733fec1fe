// Device half of the fusion suite (CUDA only): registers every device case of a profile, one GPU
// at a time. Each case: inputs filled on the device with seeded normal values; the variant's
// kernels and v1's launched once outside any batch (preload, fusion_preload.hpp); the variant
// validated against the CPU reference on sampled rows (outputs poisoned with NaN first, so a
// variant that writes nothing fails); then one Google Benchmark iteration per repetition holding
// the sampled measurement of suites/common/sampled_batches.hpp with the profile's
// suite::SamplingPolicy: a 1-call probe sizes the batches (at least the batch target, at most 400
// kernels, a graph replay counting its nodes), warm-up batches until the SM clock is steady (the
// device's last steady clock carried from case to case), then samples, each a batch of
// back-to-back calls queued behind the spin kernel and timed with CUDA events, until the noise
// target, the time budget or max_samples. The iteration's time and time_per_call_us are the median
// of the samples on the steady clock (hot: consecutive calls may find the inputs in L2 when they
// fit there, as in a real model's back-to-back layers; the label and l2_resident say where the
// working set lives, and pct_of_peak is reported only when it streams from DRAM). A shape whose
// working set straddles the L2 is timed cold instead: single calls each right after an L2 flush,
// their trimmed mean (suites/common/sampled_batches.hpp measure_flushed_calls; `cache:cold`).
#pragma once

#include <string>
#include <vector>

#include "suites/common/suite_support.hpp"

namespace gpubench::fusion {

// Adds "gpubench.devices" (UUIDs of `devices`) to the benchmark context. `reason` non-empty: no
// device is usable, the list is empty.
void add_device_context(const std::vector<int>& devices, const std::string& reason);

// `reason` non-empty: every case is registered and skipped with it ("no CUDA device (...)").
void register_device_benchmarks(suite::Profile profile, const std::vector<int>& devices,
                                const std::string& reason);

}  // namespace gpubench::fusion
