// GPU tests (label `gpu`): a small GEMM per data type through the real suite code, the spin-kernel
// timing, the clock probe and the L2 flush. Each test skips without a CUDA device.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "suites/common/cuda/device.hpp"
#include "suites/common/cuda/guard.hpp"
#include "suites/common/cuda/timing.hpp"
#include "suites/gemm/gemm_runner.hpp"
#include "tests/gpu/require_device.hpp"
#include "util/median.hpp"

namespace gpubench::gemm {
namespace {

using suite::cuda::CacheState;

DeviceContext& context() {
  static auto* ctx = new DeviceContext(0);  // never destroyed: see suites/gemm/main.cpp
  return *ctx;
}

class GemmPerDtype : public ::testing::TestWithParam<std::tuple<DType, Api, Layout>> {};

TEST_P(GemmPerDtype, ValidatesAndMeasuresThroughput) {
  GPUBENCH_REQUIRE_DEVICE();
  const auto [dtype, api, layout] = GetParam();
  const GemmCase c{api, dtype, 512, 384, 256, layout, Cache::hot, 0};
  DeviceContext& dev = context();
  try {
    PreparedGemm g(c, dev);
    const auto report = g.validate();
    EXPECT_TRUE(report.passed()) << benchmark_name(c) << ": " << report.summary();
    EXPECT_EQ(report.checked(), 144u);
    const auto sample = dev.timer.time_batch([&] { g.enqueue(4); }, CacheState::hot);
    ASSERT_GT(sample.elapsed_ms, 0.0);
    const double tflops = gemm_flops(c.m, c.n, c.k) * 4 / (sample.elapsed_ms * 1e-3) / 1e12;
    EXPECT_GT(tflops, 0.0);
    EXPECT_GT(sample.sm_clock_mhz, 100.0);
    if (api == Api::cublaslt) {
      EXPECT_NE(g.algorithm().description.find("algo="), std::string::npos);
    }
  } catch (const suite::SkipCase& e) {
    const bool fp8_before_ada =
        dtype == DType::fp8_e4m3 && dev.info.cc_major * 10 + dev.info.cc_minor < 89;
    EXPECT_TRUE(fp8_before_ada) << "unexpected skip: " << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, GemmPerDtype,
                         ::testing::Values(std::make_tuple(DType::fp64, Api::cublaslt, Layout::tn),
                                           std::make_tuple(DType::fp32, Api::cublaslt, Layout::tn),
                                           std::make_tuple(DType::tf32, Api::cublaslt, Layout::tn),
                                           std::make_tuple(DType::fp16, Api::cublaslt, Layout::nn),
                                           std::make_tuple(DType::bf16, Api::cublaslt, Layout::tn),
                                           std::make_tuple(DType::bf16, Api::cublaslt, Layout::nn),
                                           std::make_tuple(DType::fp8_e4m3, Api::cublaslt,
                                                           Layout::tn),
                                           std::make_tuple(DType::int8, Api::cublaslt, Layout::tn),
                                           std::make_tuple(DType::fp32, Api::cublas, Layout::tn),
                                           std::make_tuple(DType::bf16, Api::cublas, Layout::nn),
                                           std::make_tuple(DType::fp64, Api::cublas, Layout::tn)),
                         [](const ::testing::TestParamInfo<GemmPerDtype::ParamType>& p) {
                           return std::string(to_string(std::get<1>(p.param))) + "_" +
                                  suite::to_string(std::get<0>(p.param)) + "_" +
                                  to_string(std::get<2>(p.param));
                         });

TEST(GemmGpu, ValidationCatchesAWrongResult) {
  GPUBENCH_REQUIRE_DEVICE();
  const GemmCase c{Api::cublaslt, DType::bf16, 256, 256, 256, Layout::tn, Cache::hot, 0};
  PreparedGemm g(c, context());
  ASSERT_TRUE(g.validate().passed());
  // Bytes 0x40 make every bf16 output 0x4040 = 3.0, unrelated to the true dot products.
  ASSERT_EQ(cudaMemset(g.output_device_pointer(), 0x40, g.output_bytes()), cudaSuccess);
  const auto report = g.validate();
  EXPECT_FALSE(report.passed());
  EXPECT_GT(report.failed(), 100u) << report.summary();
}

TEST(Timing, SpinGatedEmptyBatchIsShort) {
  GPUBENCH_REQUIRE_DEVICE();
  DeviceContext& dev = context();
  std::vector<double> ms;
  for (int i = 0; i < 10; ++i)
    ms.push_back(dev.timer.time_batch([] {}, CacheState::hot).elapsed_ms);
  // Two back-to-back events with nothing between them: microseconds, not launch latency.
  EXPECT_LT(median(ms), 0.05);
}

TEST(Timing, BatchTimeScalesWithCallCount) {
  GPUBENCH_REQUIRE_DEVICE();
  const GemmCase c{Api::cublaslt, DType::bf16, 2048, 2048, 2048, Layout::tn, Cache::hot, 0};
  DeviceContext& dev = context();
  PreparedGemm g(c, dev);
  std::vector<double> one, eight;
  for (int i = 0; i < 7; ++i) {
    one.push_back(dev.timer.time_batch([&] { g.enqueue(1); }, CacheState::hot).elapsed_ms);
    eight.push_back(dev.timer.time_batch([&] { g.enqueue(8); }, CacheState::hot).elapsed_ms);
  }
  const double ratio = median(eight) / median(one);
  EXPECT_GT(ratio, 5.0) << "1 call " << median(one) << " ms, 8 calls " << median(eight) << " ms";
  EXPECT_LT(ratio, 11.0) << "1 call " << median(one) << " ms, 8 calls " << median(eight) << " ms";
}

TEST(Timing, ClockProbeReadsAPlausibleClock) {
  GPUBENCH_REQUIRE_DEVICE();
  DeviceContext& dev = context();
  const double mhz = dev.timer.probe_clock_mhz();
  EXPECT_GT(mhz, 100.0);
  EXPECT_LT(mhz, dev.info.clock_khz / 1000.0 * 1.1) << "above the peak clock the driver reports";
}

TEST(Timing, ColdSamplesFlushL2) {
  GPUBENCH_REQUIRE_DEVICE();
  DeviceContext& dev = context();
  suite::cuda::L2Flusher flusher(static_cast<std::size_t>(dev.info.l2_bytes));
  EXPECT_GE(flusher.bytes(), static_cast<std::size_t>(dev.info.l2_bytes));
  // A GEMM whose operands fit in L2 runs slower right after a flush than back to back.
  const GemmCase c{Api::cublaslt, DType::bf16, 1024, 1024, 1024, Layout::tn, Cache::cold, 0};
  PreparedGemm g(c, dev);
  std::vector<double> hot, cold;
  for (int i = 0; i < 15; ++i) {
    hot.push_back(dev.timer.time_batch([&] { g.enqueue(1); }, CacheState::hot).elapsed_ms);
    cold.push_back(dev.timer.time_batch([&] { g.enqueue(1); }, CacheState::cold).elapsed_ms);
  }
  EXPECT_GE(median(cold), 0.97 * median(hot))
      << "cold " << median(cold) << " ms, hot " << median(hot) << " ms";
  EXPECT_TRUE(g.validate().passed());
}

// Cold samples (issue 36): one time per (flush, call) pair, each only its call; the flushes are
// inside the batch's elapsed time but in no pair's.
TEST(Timing, FlushedCallsTimeEachCallAlone) {
  GPUBENCH_REQUIRE_DEVICE();
  DeviceContext& dev = context();
  const GemmCase c{Api::cublaslt, DType::bf16, 1024, 1024, 1024, Layout::tn, Cache::cold, 0};
  PreparedGemm g(c, dev);
  const int pairs = cold_pairs_per_batch(g.kernels_per_call(), suite::cuda::k_max_queued_kernels);
  ASSERT_GE(pairs, 1);
  EXPECT_THROW(dev.timer.time_flushed_calls([&] { g.enqueue(1); }, 0), std::invalid_argument);
  std::vector<double> cold_ms;
  for (int b = 0; b < 4; ++b) {
    const auto sample = dev.timer.time_flushed_calls([&] { g.enqueue(1); }, pairs);
    ASSERT_EQ(sample.call_ms.size(), static_cast<std::size_t>(pairs));
    double sum = 0;
    for (double ms : sample.call_ms) {
      EXPECT_GT(ms, 0.0);
      sum += ms;
    }
    // Every flush writes 2x L2 (>= 8 MiB): the batch is longer than its calls together.
    EXPECT_GT(sample.elapsed_ms, sum) << "the flushes are not in the batch";
    EXPECT_GT(sample.sm_clock_mhz, 100.0);
    cold_ms.insert(cold_ms.end(), sample.call_ms.begin(), sample.call_ms.end());
  }
  std::vector<double> hot_ms;
  for (int i = 0; i < 9; ++i)
    hot_ms.push_back(dev.timer.time_batch([&] { g.enqueue(20); }, CacheState::hot).elapsed_ms / 20);
  // A flushed call reads its operands from DRAM: no faster than back-to-back calls.
  EXPECT_GE(trimmed_mean(cold_ms, k_cold_trim_fraction), 0.97 * median(hot_ms))
      << "cold " << trimmed_mean(cold_ms, k_cold_trim_fraction) << " ms, hot " << median(hot_ms)
      << " ms";
  EXPECT_TRUE(g.validate().passed());
}

TEST(Timing, SpinKernelGivesUpWhenTheHostNeverReleasesIt) {
  GPUBENCH_REQUIRE_DEVICE();
  DeviceContext& dev = context();
  // A 20 ms timeout and a host that takes 200 ms to queue: the sample must be refused, not hang.
  suite::cuda::BatchTimer timer(dev.stream.get(), dev.info.clock_khz,
                                static_cast<std::size_t>(dev.info.l2_bytes), 20'000'000ull);
  EXPECT_THROW(timer.time_batch([] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); },
                                CacheState::hot),
               std::runtime_error);
  // And the next sample is fine again.
  EXPECT_NO_THROW(timer.time_batch([] {}, CacheState::hot));
}

TEST(Guard, OutOfMemoryBecomesSkip) {
  GPUBENCH_REQUIRE_DEVICE();
  const auto mem = suite::cuda::memory_info();
  try {
    suite::cuda::DeviceBuffer<unsigned char> huge(mem.total_bytes * 4);
    ADD_FAILURE() << "allocated 4x the device memory";
  } catch (const suite::CudaError& e) {
    EXPECT_TRUE(e.out_of_memory()) << e.what();
  }
}

}  // namespace
}  // namespace gpubench::gemm
