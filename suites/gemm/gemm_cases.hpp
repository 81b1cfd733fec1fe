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
// "compute=64F_PEDANTIC(native,no_emulation)", "compute=32F_PEDANTIC(no_tensor_cores)",
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

// Samples per repetition (Google Benchmark iterations) for a profile.
int timed_iterations(suite::Profile profile);

// How many calls to queue in one timed batch so it lasts about target_ms: between 1 and max_calls.
int calls_per_batch(double call_ms, double target_ms, int max_calls);

}  // namespace gpubench::gemm
