#include "suites/gemm/gemm_runner.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kernels/common/random_normal.hpp"
#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/cublaslt_handles.hpp"
#include "suites/common/cuda/graph.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/gemm/algorithm_search.hpp"
#include "suites/gemm/algorithm_store.hpp"
#include "util/median.hpp"

namespace gpubench::gemm {

using suite::SkipCase;
using suite::cuda::DeviceAllocation;

namespace {

// Seeds of the inputs (recorded in the suite context as part of the input distribution).
constexpr std::uint64_t k_seed_a = 1;
constexpr std::uint64_t k_seed_b = 2;
// Candidates requested from the cuBLASLt heuristic and timed samples per candidate (rule 8).
constexpr int k_requested_algorithms = k_search_candidates;
// Sampled output rows and columns for validation (rows x cols elements checked).
constexpr std::size_t k_validation_rows = 12;
constexpr std::size_t k_validation_cols = 12;

kernels::FillType fill_type(ElementKind kind) {
  switch (kind) {
    case ElementKind::f64:
      return kernels::FillType::f64;
    case ElementKind::f32:
    case ElementKind::i32:
      return kernels::FillType::f32;
    case ElementKind::f16:
      return kernels::FillType::f16;
    case ElementKind::bf16:
      return kernels::FillType::bf16;
    case ElementKind::fp8_e4m3:
      return kernels::FillType::fp8_e4m3;
    case ElementKind::i8:
      return kernels::FillType::i8;
  }
  return kernels::FillType::f32;
}

cudaDataType_t cuda_type(ElementKind kind) {
  switch (kind) {
    case ElementKind::f64:
      return CUDA_R_64F;
    case ElementKind::f32:
      return CUDA_R_32F;
    case ElementKind::f16:
      return CUDA_R_16F;
    case ElementKind::bf16:
      return CUDA_R_16BF;
    case ElementKind::fp8_e4m3:
      return CUDA_R_8F_E4M3;
    case ElementKind::i8:
      return CUDA_R_8I;
    case ElementKind::i32:
      return CUDA_R_32I;
  }
  return CUDA_R_32F;
}

cublasComputeType_t compute_type(DType dtype) {
  switch (dtype) {
    case DType::fp64:
      // The default FP64 compute type: native IEEE FP64, on the FP64 Tensor Cores where they
      // exist (A100, H100, H200, B200), which is the rate peak.cpp assumes. _PEDANTIC would keep
      // DGEMM on the CUDA cores (half that rate). cuBLAS emulates FP64 (fixed point on integer
      // Tensor Cores) only under CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, the math mode
      // CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH or CUBLAS_EMULATE_DOUBLE_PRECISION=1; we set
      // neither, and main.cpp skips fp64 cases when the variable asks for emulation.
      return CUBLAS_COMPUTE_64F;
    case DType::fp32:
      return CUBLAS_COMPUTE_32F_PEDANTIC;  // no Tensor Cores, no reduced-precision shortcuts
    case DType::tf32:
      return CUBLAS_COMPUTE_32F_FAST_TF32;
    case DType::int8:
      return CUBLAS_COMPUTE_32I;
    default:
      return CUBLAS_COMPUTE_32F;  // fp16, bf16, fp8: FP32 accumulation
  }
}

cudaDataType_t scale_type(DType dtype) {
  if (dtype == DType::fp64) return CUDA_R_64F;
  if (dtype == DType::int8) return CUDA_R_32I;
  return CUDA_R_32F;
}

// int8 inputs: round(N(0, 32^2)) clamped to +-127 uses most of the range; floats N(0, 1).
float input_stddev(DType dtype) {
  return dtype == DType::int8 ? 32.0f : 1.0f;
}

std::string mib(std::size_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

using suite::cuda::MatmulDesc;
using suite::cuda::MatrixLayout;

// Column-major, leading dimension = rows.
MatrixLayout make_layout(ElementKind kind, std::int64_t rows, std::int64_t cols) {
  return suite::cuda::make_column_major_layout(cuda_type(kind), static_cast<std::uint64_t>(rows),
                                               static_cast<std::uint64_t>(cols));
}

template <class T>
std::string config_attribute(const cublasLtMatmulAlgo_t& algo,
                             cublasLtMatmulAlgoConfigAttributes_t attr) {
  T value{};
  std::size_t written = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &value, sizeof value, &written) !=
      CUBLAS_STATUS_SUCCESS) {
    return "?";
  }
  return std::to_string(value);
}

}  // namespace

DeviceContext::DeviceContext(int device)
    : info(suite::cuda::query_device(device)),
      stream(suite::cuda::Stream::create()),
      cublas(suite::cuda::CublasHandle::create(stream.get())),
      cublaslt(suite::cuda::CublasLtHandle::create()),
      timer(stream.get(), info.clock_khz, static_cast<std::size_t>(info.l2_bytes)) {}

struct PreparedGemm::Lt {
  MatmulDesc desc;
  MatrixLayout a, b, c;
  cublasLtMatmulAlgo_t algo{};
};

std::size_t required_device_bytes(const GemmCase& c, const suite::cuda::DeviceInfo& info) {
  std::size_t bytes = operand_bytes(c) + workspace_bytes(info.cc_major);
  if (c.cache == Cache::cold)
    bytes += std::max<std::size_t>(2 * static_cast<std::size_t>(info.l2_bytes), 8u << 20);
  return bytes + (std::size_t{256} << 20);  // cuBLAS's own allocations and the context's growth
}

PreparedGemm::PreparedGemm(const GemmCase& c, DeviceContext& dev) : m_case(c), m_dev(dev) {
  const auto& info = dev.info;
  const int cc = info.cc_major * 10 + info.cc_minor;
  if (c.dtype == DType::fp8_e4m3 && cc < 89) {
    throw SkipCase("FP8 E4M3 GEMM needs sm_89 or newer; this GPU (" + info.name + ") is sm_" +
                   std::to_string(cc));
  }
  const std::size_t needed = required_device_bytes(c, info);
  const auto mem = suite::cuda::memory_info();
  if (mem.free_bytes < needed) {
    throw SkipCase("not enough free device memory for m=" + std::to_string(c.m) +
                   " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) + " " +
                   suite::to_string(c.dtype) + ": needs " + mib(needed) + ", " +
                   mib(mem.free_bytes) + " free");
  }
  const ElementKind in = input_kind(c.dtype);
  const ElementKind out = output_kind(c.dtype);
  const auto m = static_cast<std::size_t>(c.m);
  const auto n = static_cast<std::size_t>(c.n);
  const auto k = static_cast<std::size_t>(c.k);
  m_a = DeviceAllocation(m * k * suite::element_bytes(in));
  m_b = DeviceAllocation(k * n * suite::element_bytes(in));
  m_c = DeviceAllocation(m * n * suite::element_bytes(out));
  m_workspace = DeviceAllocation(workspace_bytes(info.cc_major));
  cudaStream_t s = dev.stream.get();
  GPUBENCH_CUDA_CHECK(kernels::launch_fill_normal(m_a.data(), m * k, fill_type(in), k_seed_a,
                                                  input_stddev(c.dtype), s));
  GPUBENCH_CUDA_CHECK(kernels::launch_fill_normal(m_b.data(), k * n, fill_type(in), k_seed_b,
                                                  input_stddev(c.dtype), s));
  GPUBENCH_CUDA_CHECK(cudaMemsetAsync(m_c.data(), 0, m_c.bytes(), s));
  if (c.dtype == DType::fp8_e4m3) {
    m_scale_one = suite::cuda::DeviceBuffer<float>(1);
    const float one = 1.0f;
    GPUBENCH_CUDA_CHECK(
        cudaMemcpyAsync(m_scale_one.data(), &one, sizeof one, cudaMemcpyHostToDevice, s));
  }
  dev.stream.synchronize();
  if (c.api == Api::cublaslt) {
    set_up_cublaslt();
    choose_algorithm();
  } else {
    // Warm-up call (lazy module loading, cuBLAS's internal heuristics), then one timed call.
    enqueue(1);
    dev.stream.synchronize();
    const auto sample = dev.timer.time_batch([this] { enqueue(1); }, suite::cuda::CacheState::hot);
    m_choice.description = "algo=default (cublasGemmEx, CUBLAS_GEMM_DEFAULT)";
    m_choice.median_call_ms = sample.elapsed_ms;
  }
}

PreparedGemm::~PreparedGemm() = default;

void PreparedGemm::set_up_cublaslt() {
  m_lt = std::make_unique<Lt>();
  const GemmCase& c = m_case;
  cublasLtMatmulDesc_t desc = nullptr;
  GPUBENCH_CUBLAS_CHECK(
      cublasLtMatmulDescCreate(&desc, compute_type(c.dtype), scale_type(c.dtype)));
  m_lt->desc = MatmulDesc(desc);
  const cublasOperation_t transa = c.layout == Layout::tn ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t transb = CUBLAS_OP_N;
  GPUBENCH_CUBLAS_CHECK(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
  GPUBENCH_CUBLAS_CHECK(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb));
  if (c.dtype == DType::fp8_e4m3) {
    // Fast accumulation on or off, explicitly (the benchmark name says which).
    const std::int8_t fast = c.accum == Accum::fast ? 1 : 0;
    GPUBENCH_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
    // Per-tensor scales for A and B (device pointers to FP32 1.0): D = (a_scale A)(b_scale B).
    const float* scale = m_scale_one.data();
    GPUBENCH_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                         &scale, sizeof scale));
    GPUBENCH_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                         &scale, sizeof scale));
  }
  const ElementKind in = input_kind(c.dtype);
  const bool tn = c.layout == Layout::tn;
  m_lt->a = make_layout(in, tn ? c.k : c.m, tn ? c.m : c.k);
  m_lt->b = make_layout(in, c.k, c.n);
  m_lt->c = make_layout(output_kind(c.dtype), c.m, c.n);
}

namespace {
// The run's choices, shared by its executions (algorithm_store.hpp); one per process.
AlgorithmStore& run_algorithms() {
  static AlgorithmStore store = AlgorithmStore::from_environment();
  return store;
}
}  // namespace

bool PreparedGemm::reuse_stored_algorithm() {
  const std::optional<StoredAlgorithm> stored = run_algorithms().find(benchmark_name(m_case));
  if (!stored) return false;
  cublasLtMatmulAlgo_t algo{};
  static_assert(sizeof algo == sizeof stored->bytes, "cublasLtMatmulAlgo_t is 8 uint64_t");
  std::memcpy(&algo, stored->bytes.data(), sizeof algo);
  cublasLtMatmulHeuristicResult_t check{};
  if (cublasLtMatmulAlgoCheck(m_dev.cublaslt.get(), m_lt->desc.get(), m_lt->a.get(), m_lt->b.get(),
                              m_lt->c.get(), m_lt->c.get(), &algo,
                              &check) != CUBLAS_STATUS_SUCCESS ||
      check.workspaceSize > m_workspace.bytes()) {
    return false;  // not valid here (another library or device): search again
  }
  m_lt->algo = algo;
  try {
    enqueue(1);  // the warm-up call the search would have made
    m_dev.stream.synchronize();
  } catch (const suite::CudaError& e) {
    if (e.out_of_memory()) throw;
    (void)cudaStreamSynchronize(m_dev.stream.get());
    return false;
  }
  const std::string id = config_attribute<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID);
  m_choice.algo_id = id == "?" ? -1 : std::stoi(id);
  m_choice.median_call_ms = stored->median_call_ms;
  // The label says where the choice came from: this run, or the stored run that searched it.
  m_choice.description = stored->description + " " + reuse_note(*stored);
  return true;
}

void PreparedGemm::choose_algorithm() {
  const GemmCase& c = m_case;
  // A choice the run already holds (an earlier execution's, or the newest stored one made on this
  // GPU model, driver and cuBLASLt version, which the harness seeded) is checked and reused: the
  // same algorithm in every process of the run and in later runs, and no second search.
  if (reuse_stored_algorithm()) return;
  const suite::cuda::MatmulPreference pref =
      suite::cuda::make_workspace_preference(m_workspace.bytes());
  std::vector<cublasLtMatmulHeuristicResult_t> results(k_requested_algorithms);
  int returned = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      m_dev.cublaslt.get(), m_lt->desc.get(), m_lt->a.get(), m_lt->b.get(), m_lt->c.get(),
      m_lt->c.get(), pref.get(), k_requested_algorithms, results.data(), &returned);
  const std::string what = std::string(suite::to_string(c.dtype)) + " m=" + std::to_string(c.m) +
                           " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) + " layout " +
                           to_string(c.layout);
  if (status != CUBLAS_STATUS_SUCCESS || returned == 0) {
    throw SkipCase("the cuBLASLt heuristic returned no algorithm for " + what + " on " +
                   m_dev.info.name + " (" + suite::cublas_status_text(status) + ")");
  }
  // Time every candidate (algorithm_search.hpp): a warm-up call each, batches sized once from the
  // first working candidate's probe call, the choice by choose_candidate (near-ties go to the
  // heuristic's best rank, so noise cannot flip it).
  std::string last_error;
  // A candidate that fails to launch is left out, not the case failed; an OOM fails the case (it
  // would repeat).
  auto guarded = [&](auto&& work) -> bool {
    try {
      work();
      return true;
    } catch (const suite::CudaError& e) {
      if (e.out_of_memory()) throw;
      (void)cudaStreamSynchronize(m_dev.stream.get());
      last_error = e.what();
      return false;
    }
  };
  struct Timer final : SearchTimer {
    std::function<bool(int)> prepare_candidate;
    std::function<std::optional<double>(int)> time_calls;
    bool prepare(int rank) override { return prepare_candidate(rank); }
    std::optional<double> time_batch_ms(int calls) override { return time_calls(calls); }
  } timer;
  timer.prepare_candidate = [&](int rank) {
    m_lt->algo = results[static_cast<std::size_t>(rank)].algo;
    return guarded([&] {
      enqueue(1);
      m_dev.stream.synchronize();
    });
  };
  timer.time_calls = [&](int calls) -> std::optional<double> {
    double ms = 0;
    const bool ok = guarded([&] {
      ms = m_dev.timer.time_batch([&] { enqueue(calls); }, suite::cuda::CacheState::hot).elapsed_ms;
    });
    return ok ? std::optional<double>(ms) : std::nullopt;
  };
  std::vector<int> ranks;
  for (int i = 0; i < returned; ++i) {
    if (results[static_cast<std::size_t>(i)].state == CUBLAS_STATUS_SUCCESS) ranks.push_back(i);
  }
  const std::optional<SearchResult> found = search_algorithm(ranks, timer);
  if (!found) {
    throw SkipCase("none of the " + std::to_string(returned) + " cuBLASLt candidates for " + what +
                   " ran (last error: " + last_error + ")");
  }
  const std::size_t tied = found->tied;
  const cublasLtMatmulAlgo_t best_algo =
      results[static_cast<std::size_t>(found->chosen_rank())].algo;
  const int best_index = found->chosen_rank();
  const double best_ms = found->median_call_ms();
  const int usable = static_cast<int>(found->timed.size());
  m_lt->algo = best_algo;
  const std::string id = config_attribute<std::int32_t>(best_algo, CUBLASLT_ALGO_CONFIG_ID);
  m_choice.algo_id = id == "?" ? -1 : std::stoi(id);
  m_choice.median_call_ms = best_ms;
  m_choice.description =
      "algo=" + id +
      " tile=" + config_attribute<std::uint32_t>(best_algo, CUBLASLT_ALGO_CONFIG_TILE_ID) +
      " stages=" + config_attribute<std::uint32_t>(best_algo, CUBLASLT_ALGO_CONFIG_STAGES_ID) +
      " splitk=" + config_attribute<std::int32_t>(best_algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM) +
      " swizzle=" + config_attribute<std::uint32_t>(best_algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING) +
      " rank=" + std::to_string(best_index) + " tied=" + std::to_string(tied) +
      " timed=" + std::to_string(usable) + "/" + std::to_string(returned);
  StoredAlgorithm keep;
  std::memcpy(keep.bytes.data(), &best_algo, sizeof best_algo);
  keep.description = m_choice.description;
  keep.median_call_ms = best_ms;
  run_algorithms().add(benchmark_name(c), keep);
}

void PreparedGemm::enqueue(int calls) {
  const GemmCase& c = m_case;
  const void* alpha = &m_alpha_f32;
  const void* beta = &m_beta_f32;
  if (c.dtype == DType::fp64) {
    alpha = &m_alpha_f64;
    beta = &m_beta_f64;
  } else if (c.dtype == DType::int8) {
    alpha = &m_alpha_i32;
    beta = &m_beta_i32;
  }
  cudaStream_t s = m_dev.stream.get();
  if (c.api == Api::cublaslt) {
    for (int i = 0; i < calls; ++i) {
      GPUBENCH_CUBLAS_CHECK(
          cublasLtMatmul(m_dev.cublaslt.get(), m_lt->desc.get(), alpha, m_a.data(), m_lt->a.get(),
                         m_b.data(), m_lt->b.get(), beta, m_c.data(), m_lt->c.get(), m_c.data(),
                         m_lt->c.get(), &m_lt->algo, m_workspace.data(), m_workspace.bytes(), s));
    }
    return;
  }
  const ElementKind in = input_kind(c.dtype);
  const ElementKind out = output_kind(c.dtype);
  const bool tn = c.layout == Layout::tn;
  const int m = static_cast<int>(c.m);
  const int n = static_cast<int>(c.n);
  const int k = static_cast<int>(c.k);
  for (int i = 0; i < calls; ++i) {
    GPUBENCH_CUBLAS_CHECK(cublasGemmEx(
        m_dev.cublas.get(), tn ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, m_a.data(),
        cuda_type(in), tn ? k : m, m_b.data(), cuda_type(in), k, beta, m_c.data(), cuda_type(out),
        m, compute_type(c.dtype), CUBLAS_GEMM_DEFAULT));
  }
}

suite::ValidationReport PreparedGemm::validate() {
  const GemmCase& c = m_case;
  m_dev.stream.synchronize();
  const ElementKind in = input_kind(c.dtype);
  const ElementKind out = output_kind(c.dtype);
  const std::size_t in_bytes = suite::element_bytes(in);
  const std::size_t out_bytes = suite::element_bytes(out);
  const auto m = static_cast<std::size_t>(c.m);
  const auto k = static_cast<std::size_t>(c.k);
  const bool tn = c.layout == Layout::tn;
  const auto rows = suite::sample_indices(m, k_validation_rows, 11);
  const auto cols = suite::sample_indices(static_cast<std::size_t>(c.n), k_validation_cols, 13);
  const auto* a_base = static_cast<const unsigned char*>(m_a.data());
  const auto* b_base = static_cast<const unsigned char*>(m_b.data());
  const auto* c_base = static_cast<const unsigned char*>(m_c.data());

  // Row i of op(A): contiguous column i of the stored k x m matrix (tn), or a stride-m row (nn).
  std::vector<std::vector<double>> a_rows;
  std::vector<unsigned char> raw(k * std::max(in_bytes, out_bytes));
  for (std::size_t i : rows) {
    if (tn) {
      GPUBENCH_CUDA_CHECK(
          cudaMemcpy(raw.data(), a_base + i * k * in_bytes, k * in_bytes, cudaMemcpyDeviceToHost));
    } else {
      GPUBENCH_CUDA_CHECK(cudaMemcpy2D(raw.data(), in_bytes, a_base + i * in_bytes, m * in_bytes,
                                       in_bytes, k, cudaMemcpyDeviceToHost));
    }
    std::vector<double> row(k);
    for (std::size_t p = 0; p < k; ++p)
      row[p] = suite::decode_element(in, raw.data() + p * in_bytes);
    a_rows.push_back(std::move(row));
  }
  suite::ValidationReport report(validation_tolerance(c));
  std::vector<double> b_col(k);
  std::vector<unsigned char> c_col(m * out_bytes);
  for (std::size_t j : cols) {
    GPUBENCH_CUDA_CHECK(
        cudaMemcpy(raw.data(), b_base + j * k * in_bytes, k * in_bytes, cudaMemcpyDeviceToHost));
    for (std::size_t p = 0; p < k; ++p)
      b_col[p] = suite::decode_element(in, raw.data() + p * in_bytes);
    GPUBENCH_CUDA_CHECK(cudaMemcpy(c_col.data(), c_base + j * m * out_bytes, m * out_bytes,
                                   cudaMemcpyDeviceToHost));
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const auto ref = suite::reference_dot(a_rows[r].data(), 1, b_col.data(), 1, k);
      const double gpu = suite::decode_element(out, c_col.data() + rows[r] * out_bytes);
      report.add(rows[r], j, gpu, ref);
    }
  }
  return report;
}

int PreparedGemm::kernels_per_call() {
  if (m_kernels_per_call > 0) return m_kernels_per_call;
  if (m_case.api != Api::cublaslt) {
    // cublasGemmEx without a workspace of ours may allocate one, which capture forbids.
    m_kernels_per_call = 1;
    return m_kernels_per_call;
  }
  // The algorithm already ran outside any batch (its warm-up call in the constructor), so the
  // capture records kernels that are loaded.
  m_dev.stream.synchronize();
  try {
    const suite::cuda::Graph one_call =
        suite::cuda::Graph::capture(m_dev.stream.get(), [this] { enqueue(1); });
    m_kernels_per_call = std::max(1, static_cast<int>(one_call.node_count()));
  } catch (const suite::CudaError&) {
    (void)cudaGetLastError();
    m_kernels_per_call = 1;  // not capturable: count the call as one kernel, as before
  }
  return m_kernels_per_call;
}

}  // namespace gpubench::gemm
