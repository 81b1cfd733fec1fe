// The fusion suite's cases, names, byte and launch accounting, sweeps and iteration counts
// (CUDA-free, unit-tested on every machine).
//
// Names (DESIGN.md: <suite>/<case>/<param>:<value>/...):
//   fusion/<family>/variant:<v>/dtype:<d>/tokens:<R>/hidden:<C>/device:<N>
//   fusion/<family>/variant:<v>/dtype:fp32/tokens:<R>/hidden:<C>/threads:<n>/device:host
//   fusion/gemm_bias_gelu/variant:<v>/dtype:<d>/tokens:<N>/in:<K>/out:<M>/device:<N>
// family: bias_gelu, layernorm, softmax, gemm_bias_gelu. variant: v1 (the unfused baseline), v2,
// v3 (fused kernels, see kernels/<family>/<family>.hpp), graph (v1's chain captured once as a CUDA
// Graph and replayed: the launch-overhead part of the fused gain), epilogue (cuBLASLt's
// CUBLASLT_EPILOGUE_GELU_BIAS). On device:host, v1 is the CPU reference's separate passes over the
// whole matrix and v2 its fused single pass per row; threads:n runs them on n workers of the
// thread pool, rows split in contiguous chunks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/common/precision.hpp"
#include "suites/common/l2_placement.hpp"
#include "suites/common/suite_support.hpp"

namespace gpubench::fusion {

using kernels::Precision;

enum class Family { bias_gelu, layernorm, softmax, gemm_bias_gelu };
enum class Variant { v1, v2, v3, graph, epilogue };

inline constexpr int k_host_device = -1;  // FusionCase::device of a host case

const char* to_string(Family f);
const char* to_string(Variant v);

struct FusionCase {
  Family family = Family::bias_gelu;
  Variant variant = Variant::v1;
  Precision dtype = Precision::fp32;
  std::uint64_t tokens = 0;       // rows of the activation matrix (GEMM: n)
  std::uint64_t hidden = 0;       // columns (GEMM: out features m, the bias length)
  std::uint64_t in_features = 0;  // GEMM only: k
  int device = k_host_device;     // CUDA ordinal, or k_host_device
  int threads = 1;                // host cases only

  bool on_host() const noexcept { return device == k_host_device; }
};

// The benchmark name (see the header comment), without Google Benchmark's suffixes.
std::string benchmark_name(const FusionCase& c);

// The name of the same case with variant v1: the speed-up baseline.
std::string baseline_key(const FusionCase& c);

// Bytes a perfect fused implementation must move per call (the effective-bandwidth numerator),
// per family (kernels/<family>/<family>.hpp); GEMM: A, B, D and the bias once each.
std::uint64_t fused_bytes(const FusionCase& c);
// Bytes the variant itself moves per call when nothing stays in cache between its steps.
std::uint64_t variant_bytes(const FusionCase& c);
// Host API launches per call: kernels (and cuBLASLt calls) for v1..v3 and epilogue, 1 for graph.
int launches_per_call(const FusionCase& c);
// Kernels (or library calls) one call executes: for graph, the captured chain's.
int kernels_per_call(const FusionCase& c);
// Host cases: passes over the whole matrix per call (v1: one per unfused step, v2: 1).
int passes_per_call(const FusionCase& c);
// Whether the case reports pct_of_peak (GB_per_s as a share of the DRAM peak): the memory-bound
// families only; gemm_bias_gelu is compute-bound, a share of DRAM bandwidth says nothing about it.
bool reports_dram_pct_of_peak(const FusionCase& c);
// GEMM only: 2 * M * N * K.
double gemm_flops(const FusionCase& c);

// Whether the variant exists for the family and can run the shape (vector widths, LayerNorm's
// shared-memory row), with the reason when not.
std::optional<std::string> unsupported_reason(const FusionCase& c);

struct Shape {
  std::uint64_t tokens = 0;
  std::uint64_t hidden = 0;
  std::uint64_t in_features = 0;  // GEMM only
};

// Sizes from launch-bound (small) to bandwidth-bound (large), per profile.
std::vector<Shape> device_shapes(Family f, suite::Profile profile);
std::vector<Shape> host_shapes(suite::Profile profile);
std::vector<Precision> device_dtypes(Family f, suite::Profile profile);

// Every device case of a profile for the given devices, each family's v1 first so the speed-up
// baselines exist when the fused variants run.
std::vector<FusionCase> device_cases(suite::Profile profile, const std::vector<int>& devices);
// Every host case: fp32, thread counts {1, usable_cpus} (standard/full: 1, 2, 4, ... all).
std::vector<FusionCase> host_cases(suite::Profile profile, int usable_cpus);

// Host cases: Google Benchmark iterations per repetition (about 2M elements of work, at least 2
// and at most 32). Depends on the shape only, so names are the same in every profile and on every
// machine; each iteration times host_calls_per_iteration() calls.
int host_iterations(std::uint64_t tokens, std::uint64_t hidden);

// Host cases: the shortest time the timed calls of one repetition take together (seconds). A
// repetition of 2 calls of 1.5 ms measured the scheduler, not the kernel: two identical quick runs
// on an idle 2-core machine differed by 31-48% (issue 23 item 21). 50 ms holds tens of calls, whose
// median (the reported time per call) a preempted call or two no longer moves.
inline constexpr double k_host_min_repetition_s = 0.05;

// Host cases: calls per Google Benchmark iteration so that `iterations` iterations of calls of
// `call_s` seconds last at least `min_repetition_s`: 1 when they already do (or call_s is not a
// positive time), at most 1,000,000. The iteration count, and so the benchmark's name
// (".../iterations:N"), stays host_iterations(): names, and their history, are the same on every
// machine; only the number of calls timed inside each iteration follows the machine's speed.
int host_calls_per_iteration(double call_s, int iterations,
                             double min_repetition_s = k_host_min_repetition_s);

// Device cases: calls queued in one timed batch so it lasts at least target_ms
// (suite::calls_for_target: ceil(target / call)), at least 1 and with at most max_launches kernel
// launches in the batch (below the spin kernel's queue limit).
inline constexpr int k_max_kernels_per_batch = 400;  // suites/common/cuda/timing.hpp's limit
int device_calls_per_batch(double call_ms, double target_ms, int launches_per_call,
                           int max_launches = k_max_kernels_per_batch);

// Distinct bytes one call reads or writes (each tensor once; what L2 holds between back-to-back
// calls, suites/common/l2_placement.hpp): fused_bytes, plus softmax v1's FP32 row statistics.
// GEMM: A, B, D and the bias (cuBLASLt's workspace, touched in part if at all, is left out).
std::uint64_t working_set_bytes(const FusionCase& c);

// How a device case is timed (issue 36: shapes whose working set straddles L2 are measured cold):
// suite::cache_mode of the shape's working set against an L2 of `l2_bytes`. The shape's, not the
// variant's: the largest working set of its variants (v1's; softmax v1 also keeps its row
// statistics) decides for all of them, so the variants of a shape and the speed-up that divides
// two of them are measured the same way (METHODOLOGY rule 3: cold and hot are different metrics).
suite::CacheMode device_cache_mode(const FusionCase& c, std::uint64_t l2_bytes);

// Whether the case calls cuBLASLt (gemm_bias_gelu): only such a case needs libcublasLt, loaded at
// run time, and skips without it; every other device case runs on a machine without it.
bool needs_cublaslt(const FusionCase& c);

// Launch-bound device cases: a call whose modelled GPU time at the run plan's reference rates
// (suites/common/plan.hpp: the perfect-fusion bytes at the HBM rate, plus 2MNK at the BF16 rate
// for the GEMM) is below k_launch_bound_call_s. At that length a call's fixed costs (the gap
// between dependent kernels, wave ramp-up and tail: a few microseconds per kernel) are a large
// share of it, and they follow the SM clock, so such a case also reports its time scaled to the
// GPU's maximum clock. The rule reads the shape, not a measurement: a case carries the counter in
// every run and on every GPU (a measured threshold would drop it in runs that land near 20 us).
// Every variant of a shape agrees; host cases are never launch-bound.
inline constexpr double k_launch_bound_call_s = 20e-6;
// The counter a launch-bound device case adds: its median time per call scaled to the maximum SM
// clock (suite::time_at_clock_s), microseconds.
inline constexpr const char* k_time_at_max_clock_counter = "time_per_call_at_max_clock_us";
double modelled_call_s(const FusionCase& c);
bool launch_bound(const FusionCase& c);

}  // namespace gpubench::fusion
