// Prepared device cases of the elementwise families (bias_gelu, layernorm, softmax): allocation,
// seeded inputs, the launch of each version, and validation of sampled rows against the CPU
// reference.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "kernels/bias_gelu/bias_gelu.hpp"
#include "kernels/common/random_normal.hpp"
#include "kernels/layernorm/layernorm.hpp"
#include "kernels/softmax/softmax.hpp"
#include "suites/common/cuda/check.hpp"
#include "suites/common/validation.hpp"
#include "suites/fusion/device_runner.hpp"
#include "suites/fusion/fusion_validation.hpp"

namespace gpubench::fusion {
namespace {

namespace cu = suite::cuda;
namespace kb = kernels::bias_gelu;
namespace kl = kernels::layernorm;
namespace ks = kernels::softmax;

kernels::FillType fill_type(Precision p) {
  switch (p) {
    case Precision::fp32:
      return kernels::FillType::f32;
    case Precision::fp16:
      return kernels::FillType::f16;
    case Precision::bf16:
      return kernels::FillType::bf16;
  }
  return kernels::FillType::f32;
}

suite::ElementKind element_kind(Precision p) {
  switch (p) {
    case Precision::fp32:
      return suite::ElementKind::f32;
    case Precision::fp16:
      return suite::ElementKind::f16;
    case Precision::bf16:
      return suite::ElementKind::bf16;
  }
  return suite::ElementKind::f32;
}

// The launchers of the CUDA-free headers return cudaError_t as an int.
void check_launch(int status, const char* what) {
  if (status != 0)
    suite::throw_cuda_error(static_cast<cudaError_t>(status), what, __FILE__, __LINE__);
}

class ElementwiseCase : public PreparedCase {
 public:
  ElementwiseCase(const FusionCase& c, DeviceContext& dev) : PreparedCase(dev), m_case(c) {
    const std::size_t e = kernels::element_bytes(c.dtype);
    const std::size_t n = c.tokens * c.hidden;
    cudaStream_t s = dev.stream.get();
    const auto filled = [&](std::size_t count, std::uint64_t seed) {
      cu::DeviceAllocation a(count * e);
      GPUBENCH_CUDA_CHECK(
          kernels::launch_fill_normal(a.data(), count, fill_type(c.dtype), seed, 1.0f, s));
      return a;
    };
    m_x = filled(n, 1);
    m_y = cu::DeviceAllocation(n * e);
    switch (c.family) {
      case Family::bias_gelu:
        m_bias = filled(c.hidden, 2);
        break;
      case Family::layernorm:
        m_res = filled(n, 2);
        m_gamma = filled(c.hidden, 3);
        m_beta = filled(c.hidden, 4);
        m_s = cu::DeviceAllocation(n * e);
        break;
      case Family::softmax:
        m_scratch = cu::DeviceBuffer<float>(2 * c.tokens);
        break;
      case Family::gemm_bias_gelu:
        break;
    }
    dev.stream.synchronize();
  }

 protected:
  void enqueue(Variant v) override {
    const FusionCase& c = m_case;
    CUstream_st* s = m_dev.stream.get();
    switch (c.family) {
      case Family::bias_gelu: {
        const kb::Version k = v == Variant::v3   ? kb::Version::v3
                              : v == Variant::v2 ? kb::Version::v2
                                                 : kb::Version::v1;
        check_launch(
            kb::launch(k, c.dtype, m_x.data(), m_bias.data(), m_y.data(), c.tokens, c.hidden, s),
            "bias_gelu::launch");
        return;
      }
      case Family::layernorm: {
        const kl::Version k = v == Variant::v3   ? kl::Version::v3
                              : v == Variant::v2 ? kl::Version::v2
                                                 : kl::Version::v1;
        check_launch(kl::launch(k, c.dtype, m_x.data(), m_res.data(), m_gamma.data(), m_beta.data(),
                                m_s.data(), m_y.data(), c.tokens, c.hidden, s),
                     "layernorm::launch");
        return;
      }
      case Family::softmax: {
        const ks::Version k = v == Variant::v2 ? ks::Version::v2 : ks::Version::v1;
        check_launch(
            ks::launch(k, c.dtype, m_x.data(), m_y.data(), m_scratch.data(), c.tokens, c.hidden, s),
            "softmax::launch");
        return;
      }
      case Family::gemm_bias_gelu:
        return;
    }
  }

  void poison_outputs() override {
    // All-ones bytes are NaN in fp32, fp16 and bf16: an element nobody wrote fails validation.
    cudaStream_t s = m_dev.stream.get();
    GPUBENCH_CUDA_CHECK(cudaMemsetAsync(m_y.data(), 0xff, m_y.bytes(), s));
    if (m_s.data() != nullptr)
      GPUBENCH_CUDA_CHECK(cudaMemsetAsync(m_s.data(), 0xff, m_s.bytes(), s));
  }

  Validation check_outputs() override {
    const FusionCase& c = m_case;
    const std::uint64_t cols = c.hidden;
    const auto bias = read(m_bias, 0, m_bias.data() ? cols : 0);
    const auto gamma = read(m_gamma, 0, m_gamma.data() ? cols : 0);
    const auto beta = read(m_beta, 0, m_beta.data() ? cols : 0);
    RowCheck check(family_tolerance(c.family, c.dtype));
    for (std::uint64_t r : validation_rows(c.tokens)) {
      const auto x = read(m_x, r * cols, cols);
      const auto res = read(m_res, r * cols, m_res.data() ? cols : 0);
      const auto y = read(m_y, r * cols, cols);
      const auto s = read(m_s, r * cols, m_s.data() ? cols : 0);
      check_row(c.family, r, cols,
                RowInputs{x.data(), res.data(), bias.data(), gamma.data(), beta.data()},
                RowOutputs{y.data(), s.data()}, check);
    }
    return {check.passed(), check.summary()};
  }

 private:
  // `count` elements from element `first` of a device array, decoded to double.
  std::vector<double> read(const cu::DeviceAllocation& a, std::uint64_t first,
                           std::uint64_t count) const {
    std::vector<double> out(count);
    if (count == 0) return out;
    const std::size_t e = kernels::element_bytes(m_case.dtype);
    std::vector<unsigned char> raw(count * e);
    GPUBENCH_CUDA_CHECK(cudaMemcpy(raw.data(),
                                   static_cast<const unsigned char*>(a.data()) + first * e,
                                   raw.size(), cudaMemcpyDeviceToHost));
    const suite::ElementKind kind = element_kind(m_case.dtype);
    for (std::uint64_t i = 0; i < count; ++i)
      out[i] = suite::decode_element(kind, raw.data() + i * e);
    return out;
  }

  FusionCase m_case;
  cu::DeviceAllocation m_x, m_res, m_bias, m_gamma, m_beta, m_y, m_s;
  cu::DeviceBuffer<float> m_scratch;
};

}  // namespace

std::unique_ptr<PreparedCase> prepare_elementwise(const FusionCase& c, DeviceContext& dev) {
  return std::make_unique<ElementwiseCase>(c, dev);
}

}  // namespace gpubench::fusion
