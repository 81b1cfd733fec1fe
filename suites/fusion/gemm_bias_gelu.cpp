// GEMM + bias + GELU on cuBLASLt: D = GELU(op(A) B + bias), a transformer MLP up-projection.
//   v1        cublasLtMatmul (no epilogue) writes D, then bias_gelu v2 rewrites D in place
//   epilogue  one cublasLtMatmul with CUBLASLT_EPILOGUE_GELU_BIAS (bias via
//             CUBLASLT_MATMUL_DESC_BIAS_POINTER, same type as D, one value per row of D)
//   graph     v1's two calls captured as a CUDA Graph
// Column-major, layout TN as a linear layer issues it: A = W stored k x m (lda = k, transposed),
// B = X stored k x n (tokens' activations, ldb = k), D m x n (ldd = m), i.e. D is tokens x out
// row-major, so the bias_gelu kernel sees rows = tokens, cols = out, bias per column = per row of
// D in cuBLAS's terms. Each matmul uses the cuBLASLt heuristic's first algorithm for its own
// descriptor (what a framework calling cuBLASLt gets), recorded in the label.
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/bias_gelu/bias_gelu.hpp"
#include "kernels/bias_gelu/bias_gelu_reference.hpp"
#include "kernels/common/random_normal.hpp"
#include "suites/common/cuda/check.hpp"
#include "suites/common/cuda/cublaslt_handles.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/dtype.hpp"
#include "suites/common/validation.hpp"
#include "suites/fusion/device_runner.hpp"
#include "suites/fusion/fusion_validation.hpp"
#include "suites/gemm/gemm_cases.hpp"

namespace gpubench::fusion {
namespace {

namespace cu = suite::cuda;

using cu::MatmulDesc;
using cu::MatrixLayout;

constexpr std::uint64_t k_seed_w = 11;
constexpr std::uint64_t k_seed_x = 12;
constexpr std::uint64_t k_seed_bias = 13;
constexpr std::size_t k_validation_cols = 16;

cudaDataType_t cuda_type(Precision p) {
  return p == Precision::fp16 ? CUDA_R_16F : CUDA_R_16BF;
}

suite::ElementKind element_kind(Precision p) {
  return p == Precision::fp16 ? suite::ElementKind::f16 : suite::ElementKind::bf16;
}

MatrixLayout make_layout(Precision p, std::uint64_t rows, std::uint64_t cols) {
  return cu::make_column_major_layout(cuda_type(p), rows, cols);
}

class GemmBiasGeluCase : public PreparedCase {
 public:
  GemmBiasGeluCase(const FusionCase& c, DeviceContext& dev) : PreparedCase(dev), m_case(c) {
    const std::uint64_t m = c.hidden, n = c.tokens, k = c.in_features;
    const std::size_t e = kernels::element_bytes(c.dtype);
    cudaStream_t s = dev.stream.get();
    const auto fill = kernels::FillType(c.dtype == Precision::fp16 ? kernels::FillType::f16
                                                                   : kernels::FillType::bf16);
    // N(0, k^-1/4) operands give dot products of about N(0, 1), where GELU is not just a line.
    const float stddev = static_cast<float>(std::pow(static_cast<double>(k), -0.25));
    m_w = cu::DeviceAllocation(k * m * e);
    m_x = cu::DeviceAllocation(k * n * e);
    m_d = cu::DeviceAllocation(m * n * e);
    m_bias = cu::DeviceAllocation(m * e);
    m_workspace = cu::DeviceAllocation(gemm::workspace_bytes(dev.info.cc_major));
    GPUBENCH_CUDA_CHECK(kernels::launch_fill_normal(m_w.data(), k * m, fill, k_seed_w, stddev, s));
    GPUBENCH_CUDA_CHECK(kernels::launch_fill_normal(m_x.data(), k * n, fill, k_seed_x, stddev, s));
    GPUBENCH_CUDA_CHECK(kernels::launch_fill_normal(m_bias.data(), m, fill, k_seed_bias, 1.0f, s));
    dev.stream.synchronize();

    m_a_layout = make_layout(c.dtype, k, m);
    m_b_layout = make_layout(c.dtype, k, n);
    m_d_layout = make_layout(c.dtype, m, n);
    m_plain = make_desc(false);
    m_fused = make_desc(true);
    m_plain_algo = choose(m_plain, "no epilogue", m_plain_text);
    m_fused_algo = choose(m_fused, "CUBLASLT_EPILOGUE_GELU_BIAS", m_fused_text);
  }

  std::string describe() const override {
    return "matmul_algo=" + m_plain_text + " epilogue_algo=" + m_fused_text;
  }

 protected:
  void enqueue(Variant v) override {
    cudaStream_t s = m_dev.stream.get();
    const bool fused = v == Variant::epilogue;
    GPUBENCH_CUBLAS_CHECK(cublasLtMatmul(
        m_dev.cublaslt().get(), fused ? m_fused.get() : m_plain.get(), &m_alpha, m_w.data(),
        m_a_layout.get(), m_x.data(), m_b_layout.get(), &m_beta, m_d.data(), m_d_layout.get(),
        m_d.data(), m_d_layout.get(), fused ? &m_fused_algo : &m_plain_algo, m_workspace.data(),
        m_workspace.bytes(), s));
    if (fused) return;
    const int rc =
        kernels::bias_gelu::launch(kernels::bias_gelu::Version::v2, m_case.dtype, m_d.data(),
                                   m_bias.data(), m_d.data(), m_case.tokens, m_case.hidden, s);
    if (rc != 0)
      suite::throw_cuda_error(static_cast<cudaError_t>(rc), "bias_gelu::launch", __FILE__,
                              __LINE__);
  }

  void poison_outputs() override {
    GPUBENCH_CUDA_CHECK(cudaMemsetAsync(m_d.data(), 0xff, m_d.bytes(), m_dev.stream.get()));
  }

  // Sampled tokens x sampled output features: each element against gelu_tanh(dot + bias) in double
  // from the decoded operands. Scale: |ref| + 1.2 (|dot + bias| + magnitude), magnitude =
  // sqrt(sum of squared products), since the GEMM's error is relative to that magnitude (see
  // suites/common/validation.hpp) and GELU's slope is at most 1.13; tolerance: the GEMM suite's.
  Validation check_outputs() override {
    const FusionCase& c = m_case;
    const std::uint64_t m = c.hidden, k = c.in_features;
    const std::size_t e = kernels::element_bytes(c.dtype);
    const suite::ElementKind kind = element_kind(c.dtype);
    const auto read = [&](const cu::DeviceAllocation& a, std::uint64_t first, std::uint64_t count) {
      std::vector<unsigned char> raw(count * e);
      GPUBENCH_CUDA_CHECK(cudaMemcpy(raw.data(),
                                     static_cast<const unsigned char*>(a.data()) + first * e,
                                     raw.size(), cudaMemcpyDeviceToHost));
      std::vector<double> out(count);
      for (std::uint64_t i = 0; i < count; ++i)
        out[i] = suite::decode_element(kind, raw.data() + i * e);
      return out;
    };
    const auto bias = read(m_bias, 0, m);
    const auto cols = suite::sample_indices(m, k_validation_cols, 17);
    std::vector<std::vector<double>> w_cols;
    for (std::size_t i : cols) w_cols.push_back(read(m_w, i * k, k));
    const suite::DType dtype = c.dtype == Precision::fp16 ? suite::DType::fp16 : suite::DType::bf16;
    RowCheck check(suite::gemm_tolerance(dtype));
    for (std::uint64_t j : validation_rows(c.tokens)) {
      const auto x = read(m_x, j * k, k);
      const auto d = read(m_d, j * m, m);
      for (std::size_t q = 0; q < cols.size(); ++q) {
        const std::size_t i = cols[q];
        const suite::DotReference dot = suite::reference_dot(w_cols[q].data(), 1, x.data(), 1, k);
        const double z = dot.value + bias[i];
        const double ref = kernels::bias_gelu::gelu_tanh(z);
        check.add(j, i, d[i], ref, std::fabs(ref) + 1.2 * (std::fabs(z) + dot.magnitude), "D");
      }
    }
    return {check.passed(), check.summary()};
  }

 private:
  MatmulDesc make_desc(bool epilogue) {
    cublasLtMatmulDesc_t raw = nullptr;
    GPUBENCH_CUBLAS_CHECK(cublasLtMatmulDescCreate(&raw, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    MatmulDesc desc(raw);
    const cublasOperation_t transa = CUBLAS_OP_T;
    const cublasOperation_t transb = CUBLAS_OP_N;
    GPUBENCH_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(raw, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
    GPUBENCH_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(raw, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb));
    if (epilogue) {
      const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_GELU_BIAS;
      GPUBENCH_CUBLAS_CHECK(
          cublasLtMatmulDescSetAttribute(raw, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
      const void* bias = m_bias.data();
      GPUBENCH_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(raw, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                           &bias, sizeof bias));
    }
    return desc;
  }

  cublasLtMatmulAlgo_t choose(const MatmulDesc& desc, const char* what, std::string& text) {
    const cu::MatmulPreference pref = cu::make_workspace_preference(m_workspace.bytes());
    cublasLtMatmulHeuristicResult_t result{};
    int returned = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
        m_dev.cublaslt().get(), desc.get(), m_a_layout.get(), m_b_layout.get(), m_d_layout.get(),
        m_d_layout.get(), pref.get(), 1, &result, &returned);
    if (status != CUBLAS_STATUS_SUCCESS || returned == 0) {
      throw suite::SkipCase(std::string("the cuBLASLt heuristic returned no algorithm (") + what +
                            ") for " + baseline_key(m_case) + " on " + m_dev.info.name + " (" +
                            suite::cublas_status_text(status) + ")");
    }
    std::int32_t id = -1;
    std::size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&result.algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id,
                                             &written) != CUBLAS_STATUS_SUCCESS)
      id = -1;
    text = std::to_string(id);
    return result.algo;
  }

  FusionCase m_case;
  cu::DeviceAllocation m_w, m_x, m_d, m_bias, m_workspace;
  MatrixLayout m_a_layout, m_b_layout, m_d_layout;
  MatmulDesc m_plain, m_fused;
  cublasLtMatmulAlgo_t m_plain_algo{}, m_fused_algo{};
  std::string m_plain_text, m_fused_text;
  float m_alpha = 1.0f;
  float m_beta = 0.0f;
};

}  // namespace

std::unique_ptr<PreparedCase> prepare_gemm_bias_gelu(const FusionCase& c, DeviceContext& dev) {
  return std::make_unique<GemmBiasGeluCase>(c, dev);
}

}  // namespace gpubench::fusion
