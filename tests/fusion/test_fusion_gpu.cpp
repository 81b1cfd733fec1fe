// GPU tests (label `gpu`): every device version of every fusion family, in every dtype, validated
// against the CPU reference through the suite's own code (outputs poisoned with NaN before each
// call), the CUDA Graph of each v1 chain, and GEMM + bias + GELU with and without the cuBLASLt
// epilogue. Each test skips without a CUDA device.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <ostream>
#include <string>
#include <tuple>

#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/fusion/device_runner.hpp"
#include "suites/fusion/fusion_cases.hpp"
#include "tests/gpu/require_device.hpp"

namespace gpubench::kernels {
void PrintTo(Precision p, std::ostream* os) {
  *os << to_string(p);
}
}  // namespace gpubench::kernels

namespace gpubench::fusion {
void PrintTo(Family f, std::ostream* os) {
  *os << to_string(f);
}

namespace {

DeviceContext& context() {
  static auto* ctx = new DeviceContext(0);  // never destroyed: see suites/gemm/main.cpp
  return *ctx;
}

using Param = std::tuple<Family, Precision, std::uint64_t, std::uint64_t>;

class EveryVersion : public ::testing::TestWithParam<Param> {};

TEST_P(EveryVersion, ValidatesAgainstTheReference) {
  GPUBENCH_REQUIRE_DEVICE();
  const auto [family, dtype, rows, cols] = GetParam();
  FusionCase c;
  c.family = family;
  c.dtype = dtype;
  c.tokens = rows;
  c.hidden = cols;
  c.device = 0;
  auto prepared = prepare_elementwise(c, context());
  for (Variant v : {Variant::v1, Variant::v2, Variant::v3, Variant::graph}) {
    c.variant = v;
    if (unsupported_reason(c)) continue;
    const Validation result = prepared->validate(v);
    EXPECT_TRUE(result.passed) << benchmark_name(c) << ": " << result.summary;
    if (v == Variant::graph) {
      FusionCase v1 = c;
      v1.variant = Variant::v1;
      EXPECT_EQ(prepared->graph_nodes(), static_cast<std::size_t>(kernels_per_call(v1)));
    }
    // A timed batch of the variant runs and takes time.
    const auto sample = context().timer.time_batch(
        [&] {
          for (int i = 0; i < 4; ++i) prepared->call(v);
        },
        suite::cuda::CacheState::hot);
    EXPECT_GT(sample.elapsed_ms, 0.0) << benchmark_name(c);
  }
}

// Review N1: a device's context creates no cuBLASLt handle until a gemm_bias_gelu case asks for
// one, so the elementwise cases run where libcublasLt is missing.
TEST(DeviceContext, ElementwiseCasesNeverCreateACublasLtHandle) {
  GPUBENCH_REQUIRE_DEVICE();
  auto* ctx = new DeviceContext(0);  // never destroyed: see suites/gemm/main.cpp
  FusionCase c;
  c.family = Family::layernorm;
  c.dtype = Precision::bf16;
  c.tokens = 64;
  c.hidden = 1024;
  c.device = 0;
  auto prepared = prepare_elementwise(c, *ctx);
  for (Variant v : {Variant::v1, Variant::v3, Variant::graph}) {
    EXPECT_TRUE(prepared->validate(v).passed) << to_string(v);
  }
  EXPECT_FALSE(ctx->has_cublaslt());
}

// Shapes: one block/warp edge case (odd row count, hidden not a multiple of 32), a typical one,
// one whose LayerNorm v3 rows take two warps each (four rows share a block and its barriers; with
// 37 rows the last block has rows past the end), and the widest LayerNorm row (v1/v2 stage it in
// shared memory, v3 in the registers of 512 threads).
INSTANTIATE_TEST_SUITE_P(
    Families, EveryVersion,
    ::testing::Combine(::testing::Values(Family::bias_gelu, Family::layernorm, Family::softmax),
                       ::testing::Values(Precision::fp32, Precision::fp16, Precision::bf16),
                       ::testing::Values(std::uint64_t{37}, std::uint64_t{512}),
                       ::testing::Values(std::uint64_t{72}, std::uint64_t{1024},
                                         std::uint64_t{1544}, std::uint64_t{12288})),
    [](const ::testing::TestParamInfo<Param>& param_info) {
      const Param& p = param_info.param;
      return std::string(to_string(std::get<0>(p))) + "_" + kernels::to_string(std::get<1>(p)) +
             "_" + std::to_string(std::get<2>(p)) + "x" + std::to_string(std::get<3>(p));
    });

// More rows than a grid's y dimension holds (65,535): the scalar v1/v2 kernels' 2D grid
// (kernels/common/fusion_grid.hpp) goes round its row loop, and the validated rows include the
// last, which only the second trip reaches.
INSTANTIATE_TEST_SUITE_P(
    TallMatrices, EveryVersion,
    ::testing::Combine(::testing::Values(Family::bias_gelu, Family::layernorm, Family::softmax),
                       ::testing::Values(Precision::fp32, Precision::bf16),
                       ::testing::Values(std::uint64_t{70001}),
                       ::testing::Values(std::uint64_t{72})),
    [](const ::testing::TestParamInfo<Param>& param_info) {
      const Param& p = param_info.param;
      return std::string(to_string(std::get<0>(p))) + "_" + kernels::to_string(std::get<1>(p)) +
             "_" + std::to_string(std::get<2>(p)) + "x" + std::to_string(std::get<3>(p));
    });

TEST(GemmBiasGelu, EpilogueUnfusedAndGraphValidate) {
  GPUBENCH_REQUIRE_DEVICE();
  for (Precision p : {Precision::bf16, Precision::fp16}) {
    FusionCase c;
    c.family = Family::gemm_bias_gelu;
    c.dtype = p;
    c.tokens = 256;
    c.hidden = 512;
    c.in_features = 384;
    c.device = 0;
    try {
      auto prepared = prepare_gemm_bias_gelu(c, context());
      for (Variant v : {Variant::v1, Variant::epilogue, Variant::graph}) {
        c.variant = v;
        const Validation result = prepared->validate(v);
        EXPECT_TRUE(result.passed) << benchmark_name(c) << ": " << result.summary;
      }
      EXPECT_NE(prepared->describe().find("epilogue_algo="), std::string::npos);
    } catch (const suite::SkipCase& e) {
      GTEST_SKIP() << e.what();
    }
  }
}

}  // namespace
}  // namespace gpubench::fusion
