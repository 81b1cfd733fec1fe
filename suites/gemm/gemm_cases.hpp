// The gemm suite's cases, names, FLOP counts and sizes (CUDA-free, unit-tested on every machine).
//
// Shapes use cuBLAS's column-major convention: C (m x n) = op(A) (m x k) x op(B) (k x n).
//   layout nn: A stored m x k (lda = m), B stored k x n (ldb = k)
//   layout tn: A stored k x m (lda = k) and transposed, B stored k x n (ldb = k)
// TN is what frameworks issue for a linear layer (m = output features, n = tokens, k = input
// features) and the only layout cuBLASLt runs FP8 and INT8 Tensor Core kernels for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "suites/common/cold_series.hpp"
#include "suites/common/dtype.hpp"
#include "suites/common/sampling.hpp"
#include "suites/common/suite_support.hpp"

namespace gpubench::gemm {

using suite::DType;
using suite::ElementKind;

enum class Api { cublaslt, cublas };  // cublasLtMatmul with algorithm search; plain cublasGemmEx
enum class Layout { nn, tn };
enum class Cache { hot, cold };  // cold: L2 flushed before every (single-call) sample
// FP8 accumulation (CUBLASLT_MATMUL_DESC_FAST_ACCUM): `precise` promotes partial sums to FP32
// periodically (cuBLASLt's default), `fast` does not (what NVIDIA's quoted FP8 figures and the
// frameworks' FP8 forward passes use). Both are measured; `none` for every other data type.
enum class Accum { none, fast, precise };

const char* to_string(Api api);
const char* to_string(Layout layout);
const char* to_string(Cache cache);
const char* to_string(Accum accum);

struct GemmCase {
  Api api = Api::cublaslt;
  DType dtype = DType::bf16;
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  Layout layout = Layout::tn;
  Cache cache = Cache::hot;
  int device = 0;
  Accum accum = Accum::none;  // fast or precise for fp8, none otherwise
};

// "gemm/cublaslt/dtype:bf16/m:4096/n:4096/k:4096/layout:tn/cache:hot/device:0"; FP8 cases
// carry "/accum:fast" or "/accum:precise" before the device.
std::string benchmark_name(const GemmCase& c);

// How the case computes, for the label: the cuBLAS compute type and, for FP8, the accumulation.
// "compute=64F(native,no_emulation)", "compute=32F_PEDANTIC(no_tensor_cores)",
// "compute=32F accum=fast", ...
std::string compute_label(const GemmCase& c);

// 2 m n k: one multiply-add is two operations (METHODOLOGY rule 8).
double gemm_flops(std::int64_t m, std::int64_t n, std::int64_t k);

// Element kinds of the inputs (A, B) and of the output (C = D).
ElementKind input_kind(DType dtype);
ElementKind output_kind(DType dtype);

// Bytes of A, B and C together.
std::size_t operand_bytes(const GemmCase& c);

// cuBLASLt workspace: 32 MiB on Hopper and newer, 4 MiB before (METHODOLOGY rule 8).
std::size_t workspace_bytes(int cc_major);

// Whether the combination exists at all (not whether this GPU can run it): FP8 and INT8 only in
// TN; cublasGemmEx has no FP8 path, and its INT8 path is not measured.
bool case_supported(Api api, DType dtype, Layout layout);

// The case list of a profile for the given devices (each case once per device).
//   quick     square 1024 and 4096, one transformer shape; what ci/gpu-check runs
//   standard  square 1024..16384, LLM MLP shapes for hidden 4096/8192, cold small cases
//   full      standard plus more square sizes and both layouts everywhere
std::vector<GemmCase> gemm_cases(suite::Profile profile, const std::vector<int>& devices);

// cuBLASLt algorithm search (METHODOLOGY rule 8): candidates requested from the heuristic, and
// timed batches per candidate (each after one warm-up call; the first candidate also gets one
// probe call that sizes the batches to about k_search_batch_ms, at least one call).
inline constexpr int k_search_candidates = 16;
inline constexpr int k_search_samples_per_candidate = 5;
inline constexpr double k_search_batch_ms = 1.0;
// Calls this long or longer are timed in fewer batches: each batch is then one call of >= 10 ms,
// whose spread between batches is far below the differences between candidates, and 5 of them per
// candidate made the search of a standard run's large FP32/FP64 shapes most of the suite's time.
inline constexpr double k_search_long_call_ms = 10.0;
inline constexpr int k_search_samples_long_call = 3;
// Timed batches per candidate for a call of `call_ms` (the probe call's time).
constexpr int search_samples(double call_ms) {
  return call_ms >= k_search_long_call_ms ? k_search_samples_long_call
                                          : k_search_samples_per_candidate;
}
// Timed samples one repetition takes at least: hot, the profile's min_samples (each a batch);
// cold, its flushed calls (cold_pairs_per_repetition).
int min_timed_samples(const GemmCase& c, suite::Profile profile);

// A lower bound of the seconds one case takes on the device (repetition included), from its
// FLOPs at `peak_tflops`: the algorithm search (cuBLASLt) or the warm-up and probe calls
// (cublasGemmEx), then one warm-up batch and the fewest timed samples the profile takes
// (min_timed_samples). Host-side overheads, L2 flushes and validation are not counted.
double estimated_case_seconds(const GemmCase& c, suite::Profile profile, double peak_tflops);

// Cases whose estimate exceeds this are skipped with the reason (a 16384^3 FP64 GEMM takes ~6 s a
// call at the 1.4 TFLOP/s of an L40S, ~12 min with the algorithm search; on an L4 it would run past
// the suite's timeout): each case stays short on every GPU, and the sweep is sized by the GPU's
// rate for the data type.
inline constexpr double k_max_case_seconds = 60.0;

// The skip reason when the case would take longer than k_max_case_seconds at this GPU's dense
// peak for the data type; nullopt when it fits or the peak is unknown (then nothing is estimated).
std::optional<std::string> too_slow_reason(const GemmCase& c, suite::Profile profile,
                                           std::optional<double> peak_tflops);

// cuBLAS 13.0 update 2 and later emulate FP64 GEMM on integer Tensor Cores when
// CUBLAS_EMULATE_DOUBLE_PRECISION=1 is set (cuBLAS documentation, "Floating Point Emulation"),
// even under the default compute type CUBLAS_COMPUTE_64F: the skip reason for fp64 cases then
// (the native FP64 peak would not apply), nullopt when the variable is unset or "0". `value` is the
// variable's value or null. Environment variables are not declared in the headers: cublas_api.h
// names only CUBLAS_EMULATION_STRATEGY, which picks how to emulate once emulation is on and turns
// nothing on itself; libcublas.so.13 and libcublasLt.so.13 (13.1) read
// CUBLAS_EMULATE_DOUBLE_PRECISION (the name is in both libraries' strings), so this guard is the
// one that can fire.
std::optional<std::string> fp64_emulation_reason(const char* value);

// Relative validation tolerance of a case: suite::gemm_tolerance(dtype), except FP8 with fast
// accumulation, whose bound grows with k (suite::fp8_fast_accum_tolerance).
double validation_tolerance(const GemmCase& c);

// How many calls to queue in one batch so it lasts about target_ms: between 1 and max_calls (the
// algorithm search's batches).
int calls_per_batch(double call_ms, double target_ms, int max_calls);

// ---- Hot samples (issue 36 item 1; suites/common/sampling.hpp) ----
// A hot sample is one batch of back-to-back calls of about the profile's batch target
// (suite::sampling_policy), queued behind the spin kernel; a case warms up until the SM clock is
// steady (suite::ClockSettle) and stops on its noise target or time budget (suite::SampleSeries).

// A hot batch queues at most this many calls, and never more than `max_queued_kernels` kernels
// (a cuBLASLt call may enqueue several: a split-K reduction).
inline constexpr int k_hot_max_calls = 200;
// Calls per hot batch: suite::calls_for_target(call_s, batch_target_s) within
// [1, min(k_hot_max_calls, max_queued_kernels / kernels_per_call)].
int hot_calls_per_batch(double call_s, double batch_target_s, int kernels_per_call,
                        int max_queued_kernels);

// The hot sampling policy of a case whose batch takes `batch_s`: the profile's, with the time
// budget raised to min_samples batches where fewer would fit. A call longer than budget /
// min_samples is a batch of its own; by the profile's budget alone a 16384^3 FP32 call (~0.2 s)
// would be one sample, with no median to take and no steady clock to judge it by.
suite::SamplingPolicy hot_policy(suite::Profile profile, double batch_s);

// What the run plan counts for a repetition whose batches take `batch_s` under `policy`: the
// warm-up's batches when the clock is steady at once (steady_readings, fewer when the warm-up
// budget ends it first, at least min_warmup_batches) and the timed samples when the noise target
// is never met (until max_samples or the time budget).
struct PlannedBatches {
  int warmup = 0;
  int samples = 0;
};
PlannedBatches planned_batches(const suite::SamplingPolicy& policy, double batch_s);

// ---- Cold samples (issue 36 item 3): suites/common/cold_series.hpp, shared with the memory and
// fusion device cases whose working set straddles the L2. ----
using suite::cold_batches;
using suite::cold_pairs_per_batch;
using suite::cold_pairs_per_repetition;
using suite::ColdSeries;
using suite::k_cold_max_pairs_per_batch;
using suite::k_cold_trim_fraction;
using suite::trimmed_mean;

// The cuBLASLt algorithm search's choice (METHODOLOGY rule 8; issue 36 "fixed algorithms"). Each
// candidate brings its heuristic rank (cuBLASLt's order, fixed for a GPU, driver and library) and
// the per-call times of its timed batches. Taking the fastest median alone lets noise pick between
// near-equal kernels, so two identical runs can time different kernels and a run-to-run "change"
// is a different algorithm. The choice is instead: every candidate whose median is within
// `tie_fraction` of the fastest median ties with it, and the tie goes to the best-ranked of them.
// Returns the index into `candidates` (not the rank); `tied` receives the size of the tie.
struct CandidateTimes {
  int rank = 0;
  std::vector<double> per_call_ms;
};
inline constexpr double k_search_tie_fraction = 0.02;
std::size_t choose_candidate(const std::vector<CandidateTimes>& candidates,
                             double tie_fraction = k_search_tie_fraction,
                             std::size_t* tied = nullptr);

}  // namespace gpubench::gemm
