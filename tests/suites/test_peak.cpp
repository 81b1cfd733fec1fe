// Dense peak computation (suites/common/peak.hpp): every table architecture gets a figure, known
// SKUs agree with their datasheets, unknown GPUs get a computed figure or `unknown`, never a crash.
#include <gtest/gtest.h>

#include <cmath>

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

TEST(Peak, UnknownNewerArchitectureUsesNearestOlderWithNote) {
  const GpuSpec future{12, 1, 48, 2000, "NVIDIA future part"};
  const PeakEstimate est = dense_peak(future, DType::bf16);
  ASSERT_TRUE(est.tflops);
  EXPECT_NE(est.note.find("sm_121"), std::string::npos) << est.note;
  EXPECT_NE(est.note.find("sm_120"), std::string::npos) << est.note;
  const GpuSpec far_future{15, 0, 200, 2000, "NVIDIA far future"};
  const PeakEstimate far = dense_peak(far_future, DType::fp8_e4m3);
  ASSERT_TRUE(far.tflops);
  EXPECT_NE(far.note.find("sm_120"), std::string::npos) << far.note;
  const GpuSpec thor{11, 0, 20, 1500, "NVIDIA Thor"};
  const PeakEstimate t = dense_peak(thor, DType::fp16);
  ASSERT_TRUE(t.tflops);
  EXPECT_NE(t.note.find("sm_103"), std::string::npos) << t.note;
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
