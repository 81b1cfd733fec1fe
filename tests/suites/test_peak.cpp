// Dense peak computation (suites/common/peak.hpp): every table architecture gets a figure, known
// SKUs agree with their datasheets, unknown GPUs get a computed figure or `unknown`, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <string_view>

#include "suites/common/peak.hpp"

namespace gpubench::suite {
namespace {

TEST(Peak, EveryPublishedSkuAgreesWithTheFormula) {
  ASSERT_FALSE(published_peaks().empty());
  for (const PublishedPeak& p : published_peaks()) {
    const GpuSpec gpu{p.cc_major, p.cc_minor, p.sm_count, p.boost_mhz, p.device_name};
    const PeakEstimate est = dense_peak(gpu, p.dtype);
    ASSERT_TRUE(est.tflops.has_value()) << p.sku << " " << to_string(p.dtype) << ": " << est.note;
    const double rel = std::fabs(*est.tflops - p.tflops) / p.tflops;
    EXPECT_LE(rel, p.tolerance) << p.sku << " " << to_string(p.dtype) << ": computed "
                                << *est.tflops << " vs published " << p.tflops << " (" << est.basis
                                << ")";
    EXPECT_TRUE(est.note.empty()) << est.note;
  }
}

TEST(Peak, MethodologyReferenceNumbers) {
  // METHODOLOGY rule 9: H100 SXM FP32 67, TF32 494.5, BF16 989, FP8 1979; A100 FP32 19.5, TF32 156,
  // BF16 312.
  const GpuSpec h100{9, 0, 132, 1980, "NVIDIA H100 80GB HBM3"};
  EXPECT_NEAR(*dense_peak(h100, DType::fp32).tflops, 67, 67 * 0.01);
  EXPECT_NEAR(*dense_peak(h100, DType::tf32).tflops, 494.5, 494.5 * 0.01);
  EXPECT_NEAR(*dense_peak(h100, DType::bf16).tflops, 989, 989 * 0.01);
  EXPECT_NEAR(*dense_peak(h100, DType::fp8_e4m3).tflops, 1979, 1979 * 0.01);
  const GpuSpec a100{8, 0, 108, 1410, "NVIDIA A100-SXM4-80GB"};
  EXPECT_NEAR(*dense_peak(a100, DType::fp32).tflops, 19.5, 19.5 * 0.01);
  EXPECT_NEAR(*dense_peak(a100, DType::tf32).tflops, 156, 156 * 0.01);
  EXPECT_NEAR(*dense_peak(a100, DType::bf16).tflops, 312, 312 * 0.01);
}

TEST(Peak, EveryListedArchitectureHasRatesForItsTypes) {
  struct Arch {
    int major, minor;
    bool fp8;
  };
  for (Arch a : {Arch{8, 0, false}, Arch{8, 6, false}, Arch{8, 7, false}, Arch{8, 9, true},
                 Arch{9, 0, true}, Arch{10, 0, true}, Arch{10, 3, true}, Arch{12, 0, true}}) {
    const GpuSpec gpu{a.major, a.minor, 100, 1500, "NVIDIA test part"};
    for (DType d : {DType::fp32, DType::tf32, DType::fp16, DType::bf16}) {
      const PeakEstimate est = dense_peak(gpu, d);
      ASSERT_TRUE(est.tflops) << a.major << "." << a.minor << " " << to_string(d) << ": "
                              << est.note;
      EXPECT_GT(*est.tflops, 0.0);
      EXPECT_TRUE(est.note.empty());
      EXPECT_NE(est.basis.find("100 SMs"), std::string::npos) << est.basis;
    }
    const PeakEstimate fp8 = dense_peak(gpu, DType::fp8_e4m3);
    EXPECT_EQ(fp8.tflops.has_value(), a.fp8) << a.major << "." << a.minor;
    if (!a.fp8) {
      EXPECT_NE(fp8.note.find("sm_89"), std::string::npos) << fp8.note;
    }
    // Tensor Core types beat the CUDA cores everywhere; bf16 and fp16 run at the same rate.
    EXPECT_GT(*dense_peak(gpu, DType::bf16).tflops, *dense_peak(gpu, DType::fp32).tflops);
    EXPECT_DOUBLE_EQ(*dense_peak(gpu, DType::bf16).tflops, *dense_peak(gpu, DType::fp16).tflops);
  }
}

TEST(Peak, ScalesWithSmCountAndClock) {
  const GpuSpec a{9, 0, 100, 1000, "x"};
  const GpuSpec b{9, 0, 200, 1500, "x"};
  EXPECT_NEAR(*dense_peak(b, DType::bf16).tflops / *dense_peak(a, DType::bf16).tflops, 3.0, 1e-12);
}

TEST(Peak, GeForcePartsHalveFp32AccumulateTensorMath) {
  const GpuSpec pro{8, 9, 128, 2520, "NVIDIA RTX 6000 Ada Generation"};
  const GpuSpec geforce{8, 9, 128, 2520, "NVIDIA GeForce RTX 4090"};
  EXPECT_NEAR(*dense_peak(geforce, DType::bf16).tflops * 2, *dense_peak(pro, DType::bf16).tflops,
              1e-9);
  EXPECT_NEAR(*dense_peak(geforce, DType::int8).tflops, *dense_peak(pro, DType::int8).tflops, 1e-9);
  EXPECT_NEAR(*dense_peak(geforce, DType::fp32).tflops, *dense_peak(pro, DType::fp32).tflops, 1e-9);
  // A100 has no GeForce variant: the name does not change its rates.
  const GpuSpec a100{8, 0, 108, 1410, "GeForce-named A100"};
  EXPECT_NEAR(*dense_peak(a100, DType::bf16).tflops, 312, 3);
}

// NVIDIA L40 datasheet (dense): FP16/BF16 Tensor with FP32 accumulate 181.05 TFLOP/s, half of what
// 142 SMs x 2490 MHz x the full Ada rate gives; the L40S (362.05) runs at the full rate. INT8:
// "362 | 724*" TOPS, the 724 with sparsity, so the dense INT8 rate is halved too (L40S 733 dense).
TEST(Peak, L40IsRatedAtHalfTheL40sTensorRate) {
  const GpuSpec l40{8, 9, 142, 2490, "NVIDIA L40"};
  const GpuSpec l40s{8, 9, 142, 2490, "NVIDIA L40S"};
  EXPECT_NEAR(*dense_peak(l40, DType::bf16).tflops, 181.05, 181.05 * 0.01);
  EXPECT_NEAR(*dense_peak(l40, DType::fp16).tflops, 181.05, 181.05 * 0.01);
  EXPECT_NEAR(*dense_peak(l40s, DType::bf16).tflops, 2 * 181.05, 181.05 * 0.02);
  EXPECT_NEAR(*dense_peak(l40, DType::int8).tflops, 362.1, 362.1 * 0.01);
  EXPECT_NEAR(*dense_peak(l40, DType::int8).tflops * 2, *dense_peak(l40s, DType::int8).tflops,
              1e-9);
  EXPECT_NEAR(*dense_peak(l40, DType::fp32).tflops, *dense_peak(l40s, DType::fp32).tflops, 1e-9);
  EXPECT_EQ(tensor_rate_class("NVIDIA L40"), TensorRateClass::l40);
  EXPECT_EQ(tensor_rate_class("NVIDIA L40S"), TensorRateClass::full);
  EXPECT_EQ(tensor_rate_class("NVIDIA L4"), TensorRateClass::full);
  EXPECT_EQ(tensor_rate_class("NVIDIA GeForce RTX 4090"), TensorRateClass::geforce);
}

// The datasheet cross-check table holds the L40's dense INT8 figure, not the sparse 724.
TEST(Peak, L40Int8CrossCheckRowIsDense) {
  bool found = false;
  for (const PublishedPeak& p : published_peaks()) {
    if (std::string_view(p.sku) != "L40" || p.dtype != DType::int8) continue;
    found = true;
    EXPECT_NEAR(p.tflops, 362.1, 0.1);
  }
  EXPECT_TRUE(found);
}

// INT8 of a GeForce part stays at the full rate (RTX 4090 datasheet: 660.6 dense TOPS), and the
// L40's INT8 halving does not reach other Ada parts.
TEST(Peak, GeForceInt8StaysFullRate) {
  EXPECT_NEAR(*dense_peak({8, 9, 128, 2520, "NVIDIA GeForce RTX 4090"}, DType::int8).tflops, 660.6,
              660.6 * 0.01);
  EXPECT_NEAR(*dense_peak({8, 9, 142, 2520, "NVIDIA L40S"}, DType::int8).tflops, 733, 733 * 0.01);
  EXPECT_DOUBLE_EQ(flops_per_clock_per_sm(8, 9, DType::int8, TensorRateClass::geforce), 2048);
  EXPECT_DOUBLE_EQ(flops_per_clock_per_sm(8, 9, DType::int8, TensorRateClass::l40), 1024);
  // The classes change nothing on architectures without such parts.
  EXPECT_DOUBLE_EQ(flops_per_clock_per_sm(9, 0, DType::int8, TensorRateClass::l40), 8192);
  EXPECT_DOUBLE_EQ(flops_per_clock_per_sm(9, 0, DType::bf16, TensorRateClass::geforce), 4096);
}

// The gemm suite's fp64 runs on the FP64 Tensor Cores (CUBLAS_COMPUTE_64F): the peak is theirs,
// twice the CUDA-core FP64 rate (A100 9.7, H100 SXM 33.5 TFLOP/s).
TEST(Peak, Fp64PeakIsTheTensorCoreRate) {
  EXPECT_NEAR(*dense_peak({8, 0, 108, 1410, "NVIDIA A100-SXM4-80GB"}, DType::fp64).tflops, 19.5,
              0.2);
  EXPECT_NEAR(*dense_peak({9, 0, 132, 1980, "NVIDIA H200"}, DType::fp64).tflops, 67, 0.7);
}

TEST(Peak, UnknownArchitectureBeforeSm110UsesNearestOlderWithNote) {
  const GpuSpec between{10, 1, 48, 2000, "NVIDIA between part"};
  const PeakEstimate est = dense_peak(between, DType::bf16);
  ASSERT_TRUE(est.tflops);
  EXPECT_NE(est.note.find("sm_101"), std::string::npos) << est.note;
  EXPECT_NE(est.note.find("sm_100"), std::string::npos) << est.note;
}

// sm_110 (Thor) and later: unknown with the reason, never another architecture's figure.
TEST(Peak, Sm110AndLaterAreUnknownWithoutAStandIn) {
  for (GpuSpec g :
       {GpuSpec{11, 0, 20, 1500, "NVIDIA Thor"}, GpuSpec{12, 1, 48, 2000, "NVIDIA GB10"},
        GpuSpec{15, 0, 200, 2000, "NVIDIA far future"}}) {
    for (DType d : {DType::fp32, DType::bf16, DType::fp8_e4m3}) {
      const PeakEstimate est = dense_peak(g, d);
      EXPECT_FALSE(est.tflops) << g.name << " " << to_string(d) << ": " << *est.tflops;
      EXPECT_NE(est.note.find("unknown"), std::string::npos) << est.note;
      EXPECT_NE(est.note.find("sm_" + std::to_string(g.cc_major) + std::to_string(g.cc_minor)),
                std::string::npos)
          << est.note;
    }
  }
  // sm_120 is in the table and keeps its figure.
  EXPECT_TRUE(dense_peak({12, 0, 170, 2407, "NVIDIA GeForce RTX 5090"}, DType::fp32).tflops);
}

// NVIDIA H20 (Hopper, 78 SMs), dense figures from its specifications as NVIDIA published them to
// partners and as widely quoted: FP64 1, FP32 44, TF32 74, FP16/BF16 148, FP8/INT8 296 TFLOP/s.
// 78 SMs of sm_90 at 1980 MHz would be 584 BF16 TFLOP/s: the Hopper rate must never be used.
TEST(Peak, H20GetsItsOwnFiguresNotHoppers) {
  const GpuSpec h20{9, 0, 78, 1980, "NVIDIA H20"};
  EXPECT_DOUBLE_EQ(*dense_peak(h20, DType::fp64).tflops, 1);
  EXPECT_DOUBLE_EQ(*dense_peak(h20, DType::fp32).tflops, 44);
  EXPECT_DOUBLE_EQ(*dense_peak(h20, DType::tf32).tflops, 74);
  EXPECT_DOUBLE_EQ(*dense_peak(h20, DType::bf16).tflops, 148);
  EXPECT_DOUBLE_EQ(*dense_peak(h20, DType::fp16).tflops, 148);
  EXPECT_DOUBLE_EQ(*dense_peak(h20, DType::fp8_e4m3).tflops, 296);
  EXPECT_DOUBLE_EQ(*dense_peak(h20, DType::int8).tflops, 296);
  EXPECT_NE(dense_peak(h20, DType::bf16).basis.find("H20"), std::string::npos);
  // "H200" is not "H20".
  EXPECT_NEAR(*dense_peak({9, 0, 132, 1980, "NVIDIA H200"}, DType::bf16).tflops, 989.4, 10);
  // Other cut-down parts: unknown with the reason rather than the architecture's rate.
  const PeakEstimate l20 = dense_peak({8, 9, 92, 2520, "NVIDIA L20"}, DType::bf16);
  EXPECT_FALSE(l20.tflops);
  EXPECT_NE(l20.note.find("cut-down"), std::string::npos) << l20.note;
  EXPECT_FALSE(dense_peak({9, 0, 132, 1980, "NVIDIA H800"}, DType::fp64).tflops);
  EXPECT_TRUE(dense_peak({9, 0, 132, 1980, "NVIDIA H800"}, DType::bf16).tflops);
}

// NVIDIA H100 NVL and H200 NVL datasheets: FP32 60 TFLOP/s, BF16 1,671 and FP8 3,341 TFLOP/s
// with sparsity (835.5 / 1670.5 dense). Their clocks (1785 MHz boost) are not the SXM's, and the
// driver may report another maximum: the figure must not depend on it.
TEST(Peak, NvlPartsUseTheirOwnClocks) {
  for (const char* name : {"NVIDIA H100 NVL", "NVIDIA H200 NVL"}) {
    for (double reported : {1785.0, 1980.0}) {
      const GpuSpec nvl{9, 0, 132, reported, name};
      EXPECT_NEAR(*dense_peak(nvl, DType::bf16).tflops, 835.5, 835.5 * 0.01) << name;
      EXPECT_NEAR(*dense_peak(nvl, DType::fp8_e4m3).tflops, 1670.5, 1670.5 * 0.01) << name;
      EXPECT_NEAR(*dense_peak(nvl, DType::fp32).tflops, 60, 60 * 0.01) << name;
    }
  }
}

// NVIDIA B200 (HGX B200: 36 PFLOP/s BF16 and 72 PFLOP/s FP8 with sparsity over 8 GPUs, so 2.25
// and 4.5 PFLOP/s dense per GPU): lower than 148 SMs x 1965 MHz x 8192 = 2382 TFLOP/s, so the
// formula uses the sustained Tensor Core clock, not the maximum clock.
TEST(Peak, BlackwellUsesTheSustainedTensorClock) {
  const GpuSpec b200{10, 0, 148, 1965, "NVIDIA B200"};
  EXPECT_NEAR(*dense_peak(b200, DType::bf16).tflops, 2250, 2250 * 0.01);
  EXPECT_NEAR(*dense_peak(b200, DType::fp8_e4m3).tflops, 4500, 4500 * 0.01);
  EXPECT_NE(dense_peak(b200, DType::bf16).basis.find("sustained"), std::string::npos);
  // CUDA-core FP32 keeps the maximum clock.
  EXPECT_NEAR(*dense_peak(b200, DType::fp32).tflops, 148 * 1965e6 * 256 / 1e12, 1e-6);
}

TEST(Peak, OlderOrIncompleteGpusAreUnknownWithReason) {
  const PeakEstimate turing = dense_peak({7, 5, 40, 1590, "Tesla T4"}, DType::fp16);
  EXPECT_FALSE(turing.tflops);
  EXPECT_NE(turing.note.find("unknown"), std::string::npos);
  EXPECT_NE(turing.note.find("sm_75"), std::string::npos) << turing.note;
  const PeakEstimate no_clock = dense_peak({9, 0, 132, 0.0, "x"}, DType::bf16);
  EXPECT_FALSE(no_clock.tflops);
  EXPECT_NE(no_clock.note.find("clock"), std::string::npos);
  const PeakEstimate b300_fp64 = dense_peak({10, 3, 160, 2000, "NVIDIA B300"}, DType::fp64);
  EXPECT_FALSE(b300_fp64.tflops);
  EXPECT_FALSE(b300_fp64.note.empty());
}

}  // namespace
}  // namespace gpubench::suite
