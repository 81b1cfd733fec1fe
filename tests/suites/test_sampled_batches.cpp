// The device cases' measurement rules that run on the host (issue 36): where a working set lives
// against the GPU's L2 (suites/common/l2_placement.hpp), the sampled measurement's procedure with
// a fake batch timer, and the run plan's model of it (suites/common/sampled_batches.hpp). The
// clock traces and call times are invented fixtures shaped like an H200 ramping from idle, not
// measurements.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "suites/common/l2_placement.hpp"
#include "suites/common/sampled_batches.hpp"
#include "suites/common/sampling.hpp"

namespace gpubench::suite {
namespace {

constexpr std::uint64_t k_mib = 1024ull * 1024ull;
constexpr std::uint64_t k_h100_l2 = 50 * k_mib;  // cudaDevAttrL2CacheSize of an H100/H200 SXM

TEST(L2Placement, HalfTheL2IsResidentFourTimesItIsDram) {
  EXPECT_EQ(l2_placement(0, k_h100_l2), L2Placement::resident);
  EXPECT_EQ(l2_placement(25 * k_mib, k_h100_l2), L2Placement::resident);
  EXPECT_EQ(l2_placement(25 * k_mib + 1, k_h100_l2), L2Placement::straddles);
  EXPECT_EQ(l2_placement(50 * k_mib, k_h100_l2), L2Placement::straddles);
  EXPECT_EQ(l2_placement(200 * k_mib - 1, k_h100_l2), L2Placement::straddles);
  EXPECT_EQ(l2_placement(200 * k_mib, k_h100_l2), L2Placement::dram);
  EXPECT_TRUE(is_dram_bandwidth(L2Placement::dram));
  EXPECT_FALSE(is_dram_bandwidth(L2Placement::straddles));
  EXPECT_FALSE(is_dram_bandwidth(L2Placement::resident));
  EXPECT_STREQ(to_string(L2Placement::resident), "l2_resident");
  EXPECT_STREQ(to_string(L2Placement::straddles), "l2_straddles");
  EXPECT_STREQ(to_string(L2Placement::dram), "dram");
}

TEST(L2Placement, AnUnknownL2IsNeverResidentAndDramOnlyBeyondTheLargestKnownL2) {
  EXPECT_EQ(l2_placement(1, 0), L2Placement::straddles);
  EXPECT_EQ(l2_placement(4 * k_largest_known_l2_bytes - 1, 0), L2Placement::straddles);
  EXPECT_EQ(l2_placement(4 * k_largest_known_l2_bytes, 0), L2Placement::dram);
  // Conservative: whatever the GPU, a working set the unknown rule calls DRAM is DRAM on it.
  for (std::uint64_t l2 : {40 * k_mib, k_h100_l2, k_largest_known_l2_bytes})
    EXPECT_EQ(l2_placement(4 * k_largest_known_l2_bytes, l2), L2Placement::dram) << l2;
}

TEST(L2Placement, LabelsNameThePlacementAndBothSizes) {
  EXPECT_EQ(describe_l2_placement(12 * k_mib, k_h100_l2),
            "l2_resident (working set 12.0 MiB, L2 50.0 MiB)");
  EXPECT_EQ(describe_l2_placement(12 * k_mib, 0),
            "l2_straddles (working set 12.0 MiB, L2 unknown)");
}

// A fake GPU behind the batch timer: every batch's clock comes from a trace (the last value
// repeats), a call takes `call_at_max_s` at `max_mhz` and longer at a lower clock (launch-bound),
// and a batch adds `batch_overhead_s` (an event pair) however many calls it holds.
struct FakeGpu {
  std::vector<double> clocks_mhz;
  double call_at_max_s = 4e-6;
  double max_mhz = 1980;
  double batch_overhead_s = 0;
  std::vector<int> calls;  // calls of every batch, the probe first
  double now_s = 100;

  TimedBatch run(int n) {
    const double clock = clocks_mhz[std::min(calls.size(), clocks_mhz.size() - 1)];
    calls.push_back(n);
    TimedBatch b;
    b.elapsed_s = batch_overhead_s + n * call_at_max_s * max_mhz / clock;
    b.sm_clock_mhz = clock;
    now_s += b.elapsed_s + 1e-3;
    b.end_s = now_s;
    return b;
  }
  RunBatch runner() {
    return [this](int n) { return run(n); };
  }
};

TEST(SampledBatches, WarmUpRunsUntilTheClockIsSteadyThenSamplesStopOnTheNoiseTarget) {
  FakeGpu gpu;
  // probe, then warm-up batches ramping from idle until two readings agree.
  gpu.clocks_mhz = {1100, 1400, 1750, 1975, 1980, 1980};
  const SamplingPolicy policy;  // quick: 2 ms batches, 5..10 samples, 0.5%
  const SampledBatches m = measure_batches(policy, 0, 400, gpu.runner());
  EXPECT_EQ(m.warmup_batches, 4);  // 1400, 1750, 1975, 1980: the last two within 1.5%
  EXPECT_TRUE(m.warmup_steady);
  EXPECT_EQ(m.series.stop_reason(), StopReason::noise_target);
  EXPECT_EQ(m.series.samples(), 5);
  EXPECT_NEAR(m.call_s(), 4e-6, 1e-12);
  EXPECT_NEAR(m.series.steady_clock_mhz(), 1980, 1e-9);
  // Every batch asked for is accounted for: the probe, the warm-up and the samples.
  ASSERT_EQ(gpu.calls.size(), 1u + 4u + 5u);
  EXPECT_EQ(gpu.calls[0], 1);
  EXPECT_EQ(m.windows.size(), 5u);
  EXPECT_NE(m.summary().find("warmup=4 (steady)"), std::string::npos) << m.summary();
  EXPECT_NE(m.summary().find("stop=noise_target"), std::string::npos) << m.summary();
  // A hot measurement says so first.
  EXPECT_EQ(m.cache(), CacheMode::hot);
  EXPECT_EQ(m.summary().rfind("cache:hot calls_per_sample=", 0), 0u) << m.summary();
}

TEST(SampledBatches, AGpuAlreadyAtTheDevicesLastSteadyClockWarmsUpInOneBatch) {
  FakeGpu gpu;
  gpu.clocks_mhz = {1980};
  const SampledBatches m = measure_batches(SamplingPolicy{}, 1975, 400, gpu.runner());
  EXPECT_EQ(m.warmup_batches, 1);
  EXPECT_TRUE(m.warmup_steady);
  // Without the last steady clock the same GPU needs two readings in a row.
  FakeGpu fresh;
  fresh.clocks_mhz = {1980};
  EXPECT_EQ(measure_batches(SamplingPolicy{}, 0, 400, fresh.runner()).warmup_batches, 2);
}

TEST(SampledBatches, AClockThatNeverSettlesEndsTheWarmUpOnItsBudget) {
  FakeGpu gpu;
  gpu.call_at_max_s = 20e-6;  // the probe at 1980 MHz: batches of 100 calls
  for (int i = 0; i < 40; ++i) gpu.clocks_mhz.push_back(i % 2 == 0 ? 1980 : 1500);
  const SamplingPolicy policy;
  const SampledBatches m = measure_batches(policy, 0, 400, gpu.runner());
  EXPECT_FALSE(m.warmup_steady);
  EXPECT_NE(m.summary().find("(budget)"), std::string::npos) << m.summary();
  // 20 ms of warm-up in batches of 2.64 ms (1500 MHz) and 2 ms (1980 MHz): the ninth passes it.
  EXPECT_EQ(m.warmup_batches, 9);
}

TEST(SampledBatches, BatchesAreResizedFromTheWarmUpNotTheProbesFixedCost) {
  // A 1-call probe measures the event pair's 20 us as much as the 2 us call: sized from the probe
  // alone a batch would hold 91 calls (0.2 ms), a tenth of the target.
  FakeGpu gpu;
  gpu.clocks_mhz = {1980};
  gpu.call_at_max_s = 2e-6;
  gpu.batch_overhead_s = 20e-6;
  const SampledBatches m = measure_batches(SamplingPolicy{}, 0, 5000, gpu.runner());
  EXPECT_EQ(gpu.calls[1], 91);  // the warm-up: ceil(2 ms / 22 us)
  // From the warm-up's 91 calls in 202 us: ceil(2 ms / 2.22 us) = 901.
  EXPECT_EQ(m.calls_per_batch, 901);
  EXPECT_EQ(gpu.calls.back(), 901);
  // The kernel-queue limit still caps it.
  FakeGpu capped = gpu;
  capped.calls.clear();
  EXPECT_EQ(measure_batches(SamplingPolicy{}, 0, 400, capped.runner()).calls_per_batch, 400);
}

TEST(SampledBatches, OffClockSamplesAreLeftOutOfTheMedianAndTheSampleState) {
  FakeGpu gpu;
  // probe, 2 warm-up batches, then samples: the third one at a power-capped 1890 MHz.
  gpu.clocks_mhz = {1980, 1980, 1980, 1980, 1980, 1890, 1980, 1980, 1980, 1980, 1980};
  const SampledBatches m = measure_batches(SamplingPolicy{}, 0, 400, gpu.runner());
  EXPECT_EQ(m.series.off_clock(), 1);
  EXPECT_NEAR(m.call_s(), 4e-6, 1e-12);  // the slow sample is not in it
  const std::vector<SampleWindow> kept = m.kept_windows();
  ASSERT_EQ(kept.size(), m.windows.size() - 1);
  for (const SampleWindow& w : kept) {
    EXPECT_EQ(w.sm_clock_mhz, 1980);
    EXPECT_GT(w.end_s, w.start_s);
  }
  SampleStateRecorder states;
  m.record_kept(states);
  EXPECT_EQ(states.min_clock_mhz(), 1980);  // not the off-clock sample's 1890
}

TEST(SampledBatches, ANoisyCaseTakesEverySampleItsBudgetAllows) {
  FakeGpu gpu;
  gpu.clocks_mhz = {1980};
  std::vector<double> times = {4e-6, 4.4e-6};
  int batch = 0;
  const RunBatch noisy = [&](int n) {
    gpu.call_at_max_s = times[static_cast<std::size_t>(batch++ % 2)];
    return gpu.run(n);
  };
  const SampledBatches m = measure_batches(SamplingPolicy{}, 0, 400, noisy);
  EXPECT_EQ(m.series.samples(), 10);
  EXPECT_NE(m.series.stop_reason(), StopReason::noise_target);
}

TEST(SampledBatchesPlan, QuickBatchesOfTwoMillisecondsAfterAProbeAndTwoWarmUpBatches) {
  ModelRates r;
  r.sync_s = 20e-6;
  const SamplingPolicy quick = sampling_policy(Profile::quick);
  // A 0.2 ms pass (256 MiB triad at 4 TB/s): 10 passes a batch, 10 samples in the 20 ms budget.
  const CaseCost c = planned_sampling_cost(0.2e-3, 400, quick, r);
  EXPECT_NEAR(c.sample_s, 10 * 0.2e-3 + 20e-6, 1e-12);
  EXPECT_EQ(c.samples, 10);
  EXPECT_NEAR(c.warmup_s, (0.2e-3 + 20e-6) + 2 * c.sample_s, 1e-12);
  // A 5 ms call: one call a batch, the budget allows 4 samples and the warm-up stays at 2.
  const CaseCost slow = planned_sampling_cost(5e-3, 400, quick, r);
  EXPECT_NEAR(slow.sample_s, 5e-3 + 20e-6, 1e-12);
  EXPECT_EQ(slow.samples, 4);
  EXPECT_NEAR(slow.warmup_s, 5e-3 + 20e-6 + 2 * slow.sample_s, 1e-12);
  // A 30 ms call: one batch is past both budgets, so one warm-up batch and one sample.
  const CaseCost slower = planned_sampling_cost(30e-3, 400, quick, r);
  EXPECT_EQ(slower.samples, 1);
  EXPECT_NEAR(slower.warmup_s, 30e-3 + 20e-6 + slower.sample_s, 1e-12);
  // A 1 us call is capped by the queue limit: 400 calls, 0.4 ms a batch, 10 samples.
  const CaseCost tiny = planned_sampling_cost(1e-6, 400, quick, r);
  EXPECT_NEAR(tiny.sample_s, 400e-6 + 20e-6, 1e-12);
  EXPECT_EQ(tiny.samples, 10);
  // full: 5 ms batches, up to 20 samples in its 100 ms budget.
  const CaseCost full = planned_sampling_cost(0.2e-3, 400, sampling_policy(Profile::full), r);
  EXPECT_NEAR(full.sample_s, 25 * 0.2e-3 + 20e-6, 1e-12);
  EXPECT_EQ(full.samples, 20);
}

// ---- Straddling working sets are measured cold (issue 36) ----

TEST(CacheMode, OnlyAStraddlingWorkingSetOnAKnownL2IsMeasuredCold) {
  EXPECT_EQ(cache_mode(l2_placement(25 * k_mib, k_h100_l2), k_h100_l2), CacheMode::hot);
  EXPECT_EQ(cache_mode(l2_placement(25 * k_mib + 1, k_h100_l2), k_h100_l2), CacheMode::cold);
  EXPECT_EQ(cache_mode(l2_placement(200 * k_mib - 1, k_h100_l2), k_h100_l2), CacheMode::cold);
  EXPECT_EQ(cache_mode(l2_placement(200 * k_mib, k_h100_l2), k_h100_l2), CacheMode::hot);
  // L2 unknown: "straddles" by the conservative rule, but no flush can be sized: hot.
  EXPECT_EQ(cache_mode(L2Placement::straddles, 0), CacheMode::hot);
  EXPECT_STREQ(to_string(CacheMode::cold), "cache:cold");
  EXPECT_STREQ(to_string(CacheMode::hot), "cache:hot");
}

TEST(CacheMode, OnlyAHotDramWorkingSetIsADramBandwidth) {
  EXPECT_TRUE(is_dram_bandwidth(L2Placement::dram, CacheMode::hot));
  EXPECT_FALSE(is_dram_bandwidth(L2Placement::dram, CacheMode::cold));
  EXPECT_FALSE(is_dram_bandwidth(L2Placement::straddles, CacheMode::cold));
  EXPECT_FALSE(is_dram_bandwidth(L2Placement::straddles, CacheMode::hot));
  EXPECT_FALSE(is_dram_bandwidth(L2Placement::resident, CacheMode::hot));
}

TEST(CacheMode, ThePlanAssumesTheReferenceL2) {
  ModelRates r;
  EXPECT_EQ(r.l2_bytes, k_h100_l2);
  EXPECT_EQ(planned_cache_mode(48 * k_mib, r), CacheMode::cold);  // standard's 16 MiB triad
  EXPECT_EQ(planned_cache_mode(768 * k_mib, r), CacheMode::hot);  // quick's 256 MiB triad
  EXPECT_EQ(planned_cache_mode(12 * k_mib, r), CacheMode::hot);
  r.l2_bytes = 128 * k_mib;  // a GPU with more L2: 48 MiB is resident there
  EXPECT_EQ(planned_cache_mode(48 * k_mib, r), CacheMode::hot);
}

// A fake GPU behind BatchTimer::time_flushed_calls: each batch's clock from a trace (the last
// value repeats), every call `call_s` long but for a few slow outliers, quantised to the events'
// 0.5 us steps as cudaEventElapsedTime reads them. Invented fixture values, not measurements.
struct FakeFlushedGpu {
  std::vector<double> clocks_mhz = {1980};
  double call_s = 14.3e-6;  // a 48 MiB triad pass at about 3.5 TB/s from a cold L2
  double flush_s = 30e-6;   // the memset over twice a 50 MiB L2
  std::vector<int> pairs;   // pairs of every batch asked for
  double now_s = 100;

  FlushedBatch run(int n) {
    const double clock = clocks_mhz[std::min(pairs.size(), clocks_mhz.size() - 1)];
    pairs.push_back(n);
    FlushedBatch b;
    for (int i = 0; i < n; ++i) {
      const double t = (i % 2 == 0 ? 14.0e-6 : 14.5e-6) * 1980 / clock;  // 14.25 us mean
      b.call_s.push_back(i == 3 ? 40e-6 : t);  // one preempted call per batch
    }
    b.elapsed_s = n * (flush_s + call_s);
    b.sm_clock_mhz = clock;
    now_s += b.elapsed_s + 1e-3;
    b.end_s = now_s;
    return b;
  }
  RunFlushedBatch runner() {
    return [this](int n) { return run(n); };
  }
};

TEST(FlushedCalls, WarmUpUntilSteadyThenHundredsOfFlushedCallsAndTheirTrimmedMean) {
  FakeFlushedGpu gpu;
  gpu.clocks_mhz = {1400, 1750, 1975, 1980};
  const SamplingPolicy quick = sampling_policy(Profile::quick);
  const SampledBatches m =
      measure_flushed_calls(quick, 0, cold_pairs_per_batch(1, 400),
                            cold_pairs_per_repetition(Profile::quick), gpu.runner());
  EXPECT_EQ(m.cache(), CacheMode::cold);
  EXPECT_EQ(m.warmup_batches, 4);  // 1400, 1750, 1975, 1980: no probe, pairs from the start
  EXPECT_TRUE(m.warmup_steady);
  ASSERT_TRUE(m.cold.has_value());
  // 256 calls in batches of 64 (the queue: 400 / (flush + pass + events) = 133, capped at 64).
  EXPECT_EQ(m.calls_per_batch, 64);
  EXPECT_EQ(m.cold->pairs(), 256);
  ASSERT_EQ(gpu.pairs.size(), 4u + 4u);
  for (int n : gpu.pairs) EXPECT_EQ(n, 64);
  EXPECT_EQ(m.windows.size(), 4u);  // one per timed batch
  // The trimmed mean drops the preempted calls and averages the quantised readings: 14.25 us.
  EXPECT_NEAR(m.call_s(), 14.25e-6, 1e-12);
  EXPECT_NEAR(m.steady_clock_mhz(), 1980, 1e-9);
  const std::string summary = m.summary();
  EXPECT_EQ(summary.rfind("cache:cold pairs_per_batch=64 warmup=4 (steady) samples=256 ", 0), 0u)
      << summary;
  EXPECT_NE(summary.find("stop=pairs batches=4x64 estimator=trimmed_mean_10pct"), std::string::npos)
      << summary;
}

TEST(FlushedCalls, ABatchOffTheSteadyClockIsLeftOutWithItsCallsAndItsWindow) {
  FakeFlushedGpu gpu;
  // Two warm-up batches at 1980 MHz, then the timed batches: the second one power-capped.
  gpu.clocks_mhz = {1980, 1980, 1980, 1890, 1980, 1980, 1980};
  const SampledBatches m = measure_flushed_calls(SamplingPolicy{}, 0, 64, 256, gpu.runner());
  ASSERT_TRUE(m.cold.has_value());
  // The first four timed batches hold the 256 calls; the off-clock one's 64 are counted, not kept.
  EXPECT_EQ(m.cold->off_clock(), 64);
  EXPECT_EQ(m.cold->kept().size(), 192u);
  EXPECT_NEAR(m.call_s(), 14.25e-6, 1e-12);  // none of the 1890 MHz calls in it
  const std::vector<SampleWindow> kept = m.kept_windows();
  ASSERT_EQ(kept.size(), 3u);
  for (const SampleWindow& w : kept) EXPECT_EQ(w.sm_clock_mhz, 1980);
  SampleStateRecorder states;
  m.record_kept(states);
  EXPECT_EQ(states.min_clock_mhz(), 1980);
}

TEST(FlushedCallsPlan, PairsOfCallFlushAndQueueingInBatchesOfSixtyFour) {
  ModelRates r;
  r.sync_s = 20e-6;
  r.l2_flush_s = 50e-6;
  r.kernel_launch_s = 5e-6;
  // A 12 us pass + 5 us launch (standard's 16 MiB triad at 4 TB/s): a pair is 17 + 50 + 15 us.
  const double call_s = 17e-6;
  const double pair_s = call_s + 50e-6 + 3 * 5e-6;
  const CaseCost standard = planned_flushed_cost(call_s, 1, 400, Profile::standard, r);
  EXPECT_NEAR(standard.sample_s, 64 * pair_s + 20e-6, 1e-12);
  EXPECT_EQ(standard.samples, 4);                                // 256 calls
  EXPECT_NEAR(standard.warmup_s, 2 * standard.sample_s, 1e-12);  // two readings in a row, no probe
  // full: 1024 calls, 16 batches.
  EXPECT_EQ(planned_flushed_cost(call_s, 1, 400, Profile::full, r).samples, 16);
  // A call of 6 kernels (a graph replay): 400 / 8 = 50 pairs a batch, 6 batches for 256 calls.
  const CaseCost graph = planned_flushed_cost(call_s, 6, 400, Profile::quick, r);
  EXPECT_NEAR(graph.sample_s, 50 * pair_s + 20e-6, 1e-12);
  EXPECT_EQ(graph.samples, 6);
}

}  // namespace
}  // namespace gpubench::suite
