// The run plan's time model: how long a suite's cases will take, estimated on the host before
// anything runs (`gpubench run --plan`, a suite's --gpubench_plan). CUDA-free; unit-tested.
//
// A case's estimate is
//   per-benchmark overhead (Google Benchmark setup/teardown, once per repetition)
//   + setup once per case (e.g. the cuBLASLt algorithm search)
//   + repetitions x (per-repetition setup + warm-up + timed samples + validation)
// where the timed work is bytes / rate or flops / rate at the reference rates below, and a suite's
// total adds its process start (once). The rates are MODEL ASSUMPTIONS for the H100/H200 class
// (METHODOLOGY.md rules 9, 11, 13), not measurements: a plan says how long a run should take on
// such a server, so cuts can be made before it runs; a slower server takes longer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "suites/common/suite_support.hpp"

namespace gpubench::suite {

// The reference rates and fixed costs, in one table (README "Run plan" prints it).
struct ModelRates {
  // Links and memories, decimal bytes per second, one direction.
  double pcie_pinned_bytes_per_s = 55e9;    // PCIe Gen5 x16 pinned H2D/D2H (rule 11)
  double pcie_pageable_bytes_per_s = 20e9;  // pageable: the driver stages through its own buffer
  double nvlink_pair_bytes_per_s = 396e9;   // H200 NVLink pair, one way (rule 11)
  // peer_access:off: the driver stages each copy device -> host -> device, two PCIe trips plus a
  // host copy between them.
  double staged_peer_bytes_per_s = 12e9;
  double hbm_bytes_per_s = 4e12;           // H200 HBM3e, achievable copy rate
  double host_memory_bytes_per_s = 150e9;  // a two-socket server, all threads
  double host_thread_bytes_per_s = 10e9;   // one CPU thread streaming memory
  double host_fill_bytes_per_s = 5e9;      // filling a buffer with a pattern on one thread
  double pin_bytes_per_s = 10e9;           // cudaHostRegister / page-locking (page walks)
  // Dense matrix multiply, FLOP/s reached by large GEMMs (rule 9: ~80% of dense peak).
  double bf16_flop_per_s = 790e12;
  double fp8_flop_per_s = 1400e12;
  double int8_flop_per_s = 1400e12;
  double tf32_flop_per_s = 395e12;
  double fp32_flop_per_s = 50e12;  // no Tensor Cores (pedantic)
  double fp64_flop_per_s = 55e12;  // CUBLAS_COMPUTE_64F on FP64 Tensor Cores (67 peak)
  double host_flop_per_s = 20e9;   // one CPU thread, scalar reference code
  // Input pipeline (dataloader): reads from the page cache per worker (and for all workers), from
  // an NVMe disk with a cold cache, text parsing per worker, dataset generation (written once).
  double page_cache_worker_bytes_per_s = 2e9;
  double page_cache_bytes_per_s = 10e9;
  double disk_read_bytes_per_s = 2e9;
  double text_parse_bytes_per_s = 0.2e9;
  double generate_bytes_per_s = 0.5e9;
  // One loader worker reading, decoding (libjpeg-turbo) and augmenting (random resized crop 224,
  // bf16) 500x375 JPEGs of ~110 KB, images per second; larger images cost in proportion to their
  // pixels (an overestimate: 1280x960 costs 4.8x, not 6.6x). Measured in thread CPU time on the
  // 2-core build VM (issue 41: decode 1.3 ms, augment_cpu 0.8 ms an image); server cores are
  // no slower.
  double jpeg_images_per_worker_s = 450;
  // Collectives: 8xH200 allreduce bus bandwidth (rule 13) and a small call's latency.
  double allreduce_busbw_bytes_per_s = 475e9;
  double collective_latency_s = 30e-6;
  // Fixed costs.
  double process_start_s = 1.0;     // exec, CUDA/NVML initialisation, Google Benchmark setup
  double per_gpu_context_s = 0.5;   // creating a CUDA context (and cuBLAS/NCCL handles) per GPU
  double per_benchmark_s = 0.002;   // Google Benchmark's bookkeeping per repetition
  double per_allocation_s = 0.001;  // one cudaMalloc/cudaFree pair or stream/event creation
  double kernel_launch_s = 5e-6;    // one launch or copy call queued on a stream
  double sync_s = 20e-6;            // one host <-> GPU synchronisation round trip
  double l2_flush_s = 50e-6;        // memset over the L2 (50 MiB) before a cold sample
  // The reference GPU's L2 (cudaDevAttrL2CacheSize of an H100/H200): which working sets straddle
  // it, and so are measured cold (suites/common/l2_placement.hpp), in the memory and fusion plans.
  std::uint64_t l2_bytes = 50ull << 20;
  double validation_s = 0.005;  // reading back and checking a sampled result
};

// The reference table (H100/H200 class).
const ModelRates& reference_rates();
// The table as text for a plan's "assumptions" field ("PCIe 55 GB/s, NVLink pair 396 GB/s, ...").
std::string rates_summary(const ModelRates& rates);

// What a plan is asked for: the profile (sizes the sweeps), the GPUs of the (possibly
// hypothetical) server, and the repetitions of each benchmark (the profile's when not given).
struct PlanRequest {
  Profile profile = Profile::standard;
  int gpus = 0;
  int repetitions = 0;  // 0: repetitions_for(profile)
};

// Repetitions per profile, as `gpubench run` passes them: quick 3, standard 5, full 10.
int repetitions_for(Profile profile);
// The request's repetitions (its own when set, else the profile's).
int repetitions_of(const PlanRequest& request);

// The cost parts of one case (seconds). Everything but `once_s` repeats per repetition.
struct CaseCost {
  double once_s = 0;         // before the first repetition (algorithm search, input generation)
  double setup_s = 0;        // per repetition: allocations, fills, pinning
  double warmup_s = 0;       // per repetition: untimed warm-up work
  double sample_s = 0;       // one timed sample (Google Benchmark iteration)
  std::int64_t samples = 1;  // samples per repetition
  double validation_s = 0;   // per repetition
};

// Seconds one case takes over `repetitions` repetitions, Google Benchmark's overhead included.
double case_seconds(const CaseCost& cost, int repetitions, const ModelRates& rates);

// A case that is skipped (no GPU, not enough GPUs): Google Benchmark's overhead only.
double skipped_case_seconds(int repetitions, const ModelRates& rates);

// Seconds to move `bytes` at `bytes_per_s` (0 when the rate is not positive).
double transfer_seconds(double bytes, double bytes_per_s);

struct PlannedCase {
  std::string name;
  double estimated_s = 0;
};

struct SuitePlan {
  std::string suite;
  int gpus = 0;
  std::vector<PlannedCase> cases;
  double fixed_s = 0;  // process start and per-GPU initialisation, outside any case
  // Bytes the suite writes to disk before its cases (the dataloader's datasets not cached yet):
  // `gpubench doctor` holds the data directory's free space to it.
  std::uint64_t disk_bytes = 0;
  // The part of estimated_s that only a run's first execution pays: what later executions reuse
  // from it (gemm's cuBLASLt algorithm search, suites/gemm/algorithm_store.hpp).
  double reused_s = 0;
  std::string assumptions;
  double estimated_s() const;  // fixed_s + every case
};

// Process start plus one context per GPU the suite uses.
double startup_seconds(int gpus, const ModelRates& rates);

// {"suite":..., "gpus":N, "cases":[{"name":...,"estimated_s":...}], "estimated_s": total,
//  "disk_bytes": N, "reused_s": X, "assumptions": "..."} (one line).
std::string plan_json(const SuitePlan& plan);

// The value of --<name>=N in argv, when present (N >= 0): --gpubench_plan_gpus=N,
// --gpubench_plan_repetitions=N. Throws gpubench::Error (bad_input) for a value that is not a
// non-negative integer.
std::optional<int> plan_count_from_args(int argc, char** argv, const std::string& name);

// Device indices 0 .. gpus-1 of a hypothetical server; with none, {0}, as resolve_devices gives
// on a machine without a GPU (the cases appear and are skipped).
std::vector<int> plan_devices(int gpus);

}  // namespace gpubench::suite
