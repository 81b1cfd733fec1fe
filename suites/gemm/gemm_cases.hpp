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

#include "suites/common/dtype.hpp"
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
// Timed batches last about this long (at least one call each; cold cases one call).
inline constexpr double k_timed_batch_ms = 5.0;

// A lower bound of the seconds one case takes on the device (repetition included), from its
// FLOPs at `peak_tflops`: the algorithm search (cuBLASLt) or the warm-up and probe calls
// (cublasGemmEx), one warm-up batch and `iterations` timed batches. Host-side overheads and
// validation are not counted.
double estimated_case_seconds(const GemmCase& c, int iterations, double peak_tflops);

// Cases whose estimate exceeds this are skipped with the reason (a 16384^3 FP64 GEMM takes ~6 s a
// call at the 1.4 TFLOP/s of an L40S, ~12 min with the algorithm search; on an L4 it would run past
// the suite's timeout): each case stays short on every GPU, and the sweep is sized by the GPU's
// rate for the data type.
inline constexpr double k_max_case_seconds = 60.0;

// The skip reason when the case would take longer than k_max_case_seconds at this GPU's dense
// peak for the data type; nullopt when it fits or the peak is unknown (then nothing is estimated).
std::optional<std::string> too_slow_reason(const GemmCase& c, int iterations,
                                           std::optional<double> peak_tflops);

// cuBLAS 13.0 update 2 and later emulate FP64 GEMM on integer Tensor Cores when
// CUBLAS_EMULATE_DOUBLE_PRECISION=1 is set (cuBLAS documentation, "Floating Point Emulation"),
// even under the default compute type CUBLAS_COMPUTE_64F: the skip reason for fp64 cases then
// (the native FP64 peak would not apply), nullopt when the variable is unset or "0". `value` is the
// variable's value or null.
std::optional<std::string> fp64_emulation_reason(const char* value);

// Relative validation tolerance of a case: suite::gemm_tolerance(dtype), except FP8 with fast
// accumulation, whose bound grows with k (suite::fp8_fast_accum_tolerance).
double validation_tolerance(const GemmCase& c);

// Samples per repetition (Google Benchmark iterations) for a profile.
int timed_iterations(suite::Profile profile);

// How many calls to queue in one timed batch so it lasts about target_ms: between 1 and max_calls.
int calls_per_batch(double call_ms, double target_ms, int max_calls);

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
