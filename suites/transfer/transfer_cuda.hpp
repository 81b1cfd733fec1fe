// Pieces the transfer suite's CUDA runners share (internal to the suite; CUDA only).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "suites/common/cuda/timing.hpp"
#include "suites/common/sample_state_counters.hpp"
#include "suites/transfer/link_probe.hpp"
#include "suites/transfer/link_rates.hpp"
#include "suites/transfer/transfer_cases.hpp"

namespace gpubench::transfer {

// Timed samples (Google Benchmark iterations) per repetition.
inline constexpr benchmark::IterationCount k_samples = 10;

// Process-wide facts, read once: the device probe's verdict and the link reader.
struct TransferEnvironment {
  int device_count = 0;
  std::string unavailable_reason;  // empty when a CUDA device is usable
  std::string sysfs_root = "/sys";
  LinkProbe* links = nullptr;  // never destroyed (NVML must outlive static destructors)
};
const TransferEnvironment& transfer_environment();

// The samples of one repetition and the clock state they ran under.
struct SampleSet {
  std::vector<double> seconds;        // one per timed sample: the whole batch
  suite::SampleStateRecorder states;  // clock and time window; the harness judges the state
  // A host-clock sample (no clock probe): its window only.
  void add(double s);
  void add(const suite::cuda::BatchSample& sample);
  // A sample timed by a pair timer: `seconds` of work that started at `start_s`
  // (ConcurrentPairTimer::released_at_s: the timed copies ran before the interfering ones ended,
  // so "ended now" would place the window a span too late); the SM clock measured after it (0
  // when not probed).
  void add_window(double seconds, double sm_clock_mhz, double start_s);
};

// What a one-directional case's bandwidth is reported as: GB_per_s (over a link, or device
// memory), or GB_per_s_cached (a device-local copy whose working set is < 4x L2).
enum class BandwidthMetric { link_or_dram, cached };

// Sets the metrics of a one-directional case from its samples: us_per_copy (small sizes) or
// GB_per_s (or GB_per_s_cached) and pct_of_link (large ones; pct only when the rate is known),
// plus the clock state.
void report_one_way(benchmark::State& state, std::uint64_t bytes, std::uint64_t copies,
                    const SampleSet& samples, const LinkRate* rate,
                    BandwidthMetric metric = BandwidthMetric::link_or_dram);

// Where a copy's source lives, for stamp_sample: host memory is written by the CPU, device memory
// with a copy in `stream`'s order.
enum class SourceSide { host, device };

// Writes the pattern of `seed` into the sampled words (sample_plan) of a copy's source and waits
// for it: run before each sample, outside the timed interval (see sample_seed).
void stamp_sample(void* source, SourceSide side, std::uint64_t bytes, std::uint32_t seed,
                  cudaStream_t stream);

// Reads the sampled words of a destination anywhere in the unified address space (device, peer
// or host memory) and checks them against the pattern. Empty when correct.
std::string validate_copy(const void* destination, std::uint64_t bytes, std::uint32_t seed);

// Queues `copies` copies of `bytes` (CE: cudaMemcpyAsync with cudaMemcpyDefault; SM: the copy
// kernel). dst and src are addresses the chosen engine can use.
void enqueue_copies(Engine engine, void* dst, const void* src, std::uint64_t bytes,
                    std::uint64_t copies, int sm_count, cudaStream_t stream);

// Zeroes a device buffer in `stream`'s order and waits for it. (Not cudaMemset: it runs on the
// legacy default stream, which the suite's non-blocking streams do not wait for.)
void clear_device(void* data, std::uint64_t bytes, cudaStream_t stream);

// The SM copy kernels' names in the launch ledger (suites/common/launch_ledger.hpp).
inline constexpr const char* k_sm_copy = "copy::sm_copy";
inline constexpr const char* k_sm_copy_bidir = "copy::sm_copy_bidir";
// Launches both SM copy kernels once on the current device (outside any timed batch) and waits,
// unless done already: the first SM-copy case's batch is then not their first launch, which could
// wait on a lazy module load behind the spin kernel until it times out.
void preload_copy_kernels(int sm_count);

// Fills a device (or mapped) buffer with the pattern and waits for it.
void fill_device_pattern(void* data, std::uint64_t bytes, std::uint32_t seed, cudaStream_t stream);

// "<what> (<link description>; % of link unknown: <why>)" for the result's label.
std::string describe_link(const LinkRate& rate);

// The case bodies (transfer_runner.cpp, p2p_runner.cpp); called inside run_guarded.
void run_host_case(benchmark::State& state, const TransferCase& c);
void run_device_local_case(benchmark::State& state, const TransferCase& c);
void run_p2p_case(benchmark::State& state, const TransferCase& c);

}  // namespace gpubench::transfer
