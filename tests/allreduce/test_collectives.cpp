// Host logic of the allreduce suite: bus factors, sizes, sweeps, crafted inputs, knees, scaling
// efficiency and slow-rank naming, on synthetic numbers (no MPI, no GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "suites/allreduce/allreduce_plan.hpp"
#include "suites/allreduce/collectives.hpp"
#include "suites/allreduce/sweep.hpp"

namespace gpubench::allreduce {
namespace {

TEST(BusFactor, MatchesNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(Collective::allreduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::allreduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::allgather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::reduce_scatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::broadcast, 16), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::allreduce, 1), 0.0);
  EXPECT_THROW(bus_factor(Collective::allreduce, 0), std::invalid_argument);
}

TEST(Bandwidth, AlgbwIsBytesOverTimeAndBusbwScalesIt) {
  // 1 GB in 10 ms over 8 ranks: algbw 100 GB/s, allreduce busbw 175 GB/s.
  const Bandwidth b = bandwidth(Collective::allreduce, 1'000'000'000, 8, 0.01);
  EXPECT_DOUBLE_EQ(b.algbw_GB_per_s, 100.0);
  EXPECT_DOUBLE_EQ(b.busbw_GB_per_s, 175.0);
  EXPECT_DOUBLE_EQ(bandwidth(Collective::allgather, 1'000'000'000, 4, 0.01).busbw_GB_per_s, 75.0);
  EXPECT_THROW(bandwidth(Collective::allreduce, 8, 2, 0.0), std::invalid_argument);
}

TEST(ElementCounts, RoundLikeNcclTests) {
  const auto ar = element_counts(Collective::allreduce, 1024, 4, 8);
  ASSERT_TRUE(ar);
  EXPECT_EQ(ar->send, 256u);
  EXPECT_EQ(ar->recv, 256u);
  EXPECT_EQ(ar->bytes, 1024u);
  // allgather: the size is the receive buffer; each rank's share is a multiple of 16 bytes
  // (250 fp32 elements over 3 ranks: 83 -> 80 elements = 320 B each).
  const auto ag = element_counts(Collective::allgather, 1000, 4, 3);
  ASSERT_TRUE(ag);
  EXPECT_EQ(ag->send, 80u);
  EXPECT_EQ(ag->recv, 240u);
  EXPECT_EQ(ag->bytes, 960u);
  // 12 fp32 over 2 ranks: 6 each -> 4 (16 B), send buffer 32 B.
  const auto rs16 = element_counts(Collective::reduce_scatter, 48, 4, 2);
  ASSERT_TRUE(rs16);
  EXPECT_EQ(rs16->recv, 4u);
  EXPECT_EQ(rs16->send, 8u);
  EXPECT_EQ(rs16->bytes, 32u);
  // 32 B of fp32 over 4 ranks: 2 elements each is less than 16 B: nothing left.
  EXPECT_FALSE(element_counts(Collective::allgather, 32, 4, 4));
  // reduce_scatter: the size is the send buffer.
  const auto rs = element_counts(Collective::reduce_scatter, 64, 2, 4);
  ASSERT_TRUE(rs);
  EXPECT_EQ(rs->send, 32u);
  EXPECT_EQ(rs->recv, 8u);
  // 8 B of fp32 cannot be split over 4 ranks.
  EXPECT_FALSE(element_counts(Collective::allgather, 8, 4, 4));
  EXPECT_FALSE(element_counts(Collective::allreduce, 2, 4, 2));
}

TEST(Sweep, SizesDoubleFromMinToMax) {
  const auto s = size_sweep(8, std::size_t{8} << 30);
  ASSERT_EQ(s.size(), 31u);  // 8 B = 2^3 ... 8 GiB = 2^33
  EXPECT_EQ(s.front(), 8u);
  EXPECT_EQ(s.back(), std::size_t{8} << 30);
  EXPECT_EQ(size_sweep(8, 100, 4), (std::vector<std::size_t>{8, 32}));
  const auto huge = size_sweep(1, std::numeric_limits<std::size_t>::max());
  EXPECT_EQ(huge.size(), 64u);  // stops before overflowing
  EXPECT_THROW(size_sweep(8, 64, 1), std::invalid_argument);
}

TEST(Sweep, ProfilesFollowTheIssue) {
  EXPECT_EQ(nccl_plan(suite::Profile::quick).max_bytes, std::size_t{256} << 20);
  EXPECT_EQ(nccl_plan(suite::Profile::full).max_bytes, std::size_t{8} << 30);
  for (auto p : {suite::Profile::quick, suite::Profile::standard, suite::Profile::full}) {
    EXPECT_GE(nccl_plan(p).warmups, 5);
    EXPECT_GE(nccl_plan(p).iterations, 20);
    EXPECT_GE(host_plan(p).warmups, 5);
    EXPECT_GE(host_plan(p).iterations, 20);
  }
  // The quick host sweep stays short: a handful of sizes up to 512 KiB.
  EXPECT_LE(size_sweep(host_plan(suite::Profile::quick).min_bytes,
                       host_plan(suite::Profile::quick).max_bytes,
                       host_plan(suite::Profile::quick).factor)
                .size(),
            10u);
}

TEST(Sweep, RankCountsArePowersOfTwoThenAll) {
  EXPECT_EQ(rank_counts(8), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(rank_counts(6), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(rank_counts(1), (std::vector<int>{1}));
  EXPECT_TRUE(rank_counts(0).empty());
}

TEST(Crafted, SumsStayExactInEveryDtype) {
  constexpr int k_max_exact_ranks = 85;  // 3 x 85 = 255: every sum <= 256 whatever the pattern
  for (std::size_t i = 0; i < 16; ++i) {
    int expected = 0;
    for (int r = 0; r < k_max_exact_ranks; ++r) {
      const int v = crafted_value(r, i);
      ASSERT_GE(v, 0);
      ASSERT_LE(v, 3);
      expected += v;
    }
    const int sum = crafted_sum(k_max_exact_ranks, i);
    EXPECT_EQ(sum, expected);
    ASSERT_LE(sum, 256);  // exact in bf16 (8 significant bits)
    const auto f = static_cast<float>(sum);
    EXPECT_EQ(bf16_value(bf16_bits(f)), f);
    EXPECT_EQ(fp16_value(fp16_bits(f)), f);
  }
  // Periodic in the index, so checks can use a table of sums.
  for (std::size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(crafted_value(5, i), crafted_value(5, i % k_crafted_period));
    EXPECT_EQ(crafted_sum(8, i), crafted_sum(8, i % k_crafted_period));
  }
  // Not all zeros: inputs that are all zero would hide a collective that does nothing.
  EXPECT_NE(crafted_value(0, 1), crafted_value(1, 1));
}

TEST(Crafted, HalfEncodingMatchesIeee) {
  EXPECT_EQ(fp16_bits(1.0f), 0x3C00);
  EXPECT_EQ(fp16_bits(2.0f), 0x4000);
  EXPECT_EQ(fp16_bits(3.0f), 0x4200);
  EXPECT_EQ(fp16_bits(2048.0f), 0x6800);
  EXPECT_EQ(fp16_bits(0.0f), 0x0000);
  EXPECT_EQ(fp16_value(0x3800), 0.5f);
  EXPECT_EQ(fp16_value(0x3C01), 1.0f + std::ldexp(1.0f, -10));
  EXPECT_EQ(fp16_value(0x0001), std::ldexp(1.0f, -24));  // subnormal
  EXPECT_TRUE(std::isinf(fp16_value(0x7C00)));
  EXPECT_EQ(fp16_value(0xC000), -2.0f);
  EXPECT_EQ(bf16_bits(1.0f), 0x3F80);
  EXPECT_THROW(fp16_bits(0.5f), std::invalid_argument);
  EXPECT_THROW(fp16_bits(4096.0f), std::invalid_argument);
}

TEST(Crafted, FillWritesEachDtype) {
  std::uint16_t half[4];
  fill_crafted(ElementType::fp16, 1, 0, 4, half);
  float buf[4];
  fill_crafted(ElementType::fp32, 1, 0, 4, buf);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(element_value(ElementType::fp16, half, i), buf[i]);
    EXPECT_EQ(buf[i], static_cast<float>(crafted_value(1, i)));
  }
}

TEST(Knee, FirstSizeReachingNinetyPercentOfPeak) {
  // A synthetic latency-bandwidth curve: busbw rises to 100 GB/s, then dips a little.
  std::vector<std::pair<std::size_t, double>> pts = {{1 << 20, 20}, {1 << 22, 60},  {1 << 24, 89},
                                                     {1 << 26, 95}, {1 << 28, 100}, {1 << 30, 97}};
  EXPECT_EQ(knee_bytes(pts), std::size_t{1} << 26);
  EXPECT_EQ(knee_bytes(pts, 0.5), std::size_t{1} << 22);
  // Order does not matter.
  std::reverse(pts.begin(), pts.end());
  EXPECT_EQ(knee_bytes(pts), std::size_t{1} << 26);
  EXPECT_FALSE(knee_bytes({}));
  EXPECT_FALSE(knee_bytes({{8, 0.0}}));
}

TEST(Scaling, EfficiencyIsBusbwOverTwoRanks) {
  EXPECT_DOUBLE_EQ(*scaling_efficiency(180, 200), 0.9);
  EXPECT_FALSE(scaling_efficiency(180, 0));
}

std::vector<RankTime> synthetic_ranks(const std::vector<double>& times) {
  std::vector<RankTime> out;
  for (std::size_t i = 0; i < times.size(); ++i) {
    RankTime r;
    r.rank = static_cast<int>(i);
    r.local_rank = static_cast<int>(i % 4);
    r.host = i < 4 ? "node01" : "node02";
    r.gpu_uuid = "GPU-" + std::to_string(i);
    r.time_s = times[i];
    out.push_back(r);
  }
  return out;
}

TEST(SlowRank, NamesTheRankThatStandsOut) {
  // Eight ranks at ~1 ms, rank 6 (node02, local rank 2) at 1.5 ms.
  const auto ranks =
      synthetic_ranks({1.00e-3, 1.01e-3, 0.99e-3, 1.00e-3, 1.02e-3, 1.00e-3, 1.5e-3, 0.98e-3});
  const auto slow = find_slow_rank(ranks);
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->rank.rank, 6);
  EXPECT_EQ(slow->rank.host, "node02");
  EXPECT_EQ(slow->rank.local_rank, 2);
  EXPECT_EQ(slow->rank.gpu_uuid, "GPU-6");
  EXPECT_NEAR(slow->ratio_to_median, 1.5, 1e-9);
  EXPECT_EQ(describe(*slow),
            "rank 6 (host node02, local rank 2, GPU GPU-6) took 1.50x the median rank's time");
}

TEST(SlowRank, NoneWhenRanksAgreeOrTooFew) {
  EXPECT_FALSE(find_slow_rank(synthetic_ranks({1.0, 1.05, 0.97, 1.08})));
  EXPECT_FALSE(find_slow_rank(synthetic_ranks({1.0})));
  EXPECT_FALSE(find_slow_rank(synthetic_ranks({0.0, 0.0})));
  // A tighter threshold names the 8% rank.
  const auto slow = find_slow_rank(synthetic_ranks({1.0, 1.05, 0.97, 1.08}), 1.05);
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->rank.rank, 3);
}

TEST(Names, CarryCollectiveDtypeRanksAndHost) {
  EXPECT_EQ(case_name(Collective::allreduce, "fp32", Placement::in_place, 1024, 2, true),
            "allreduce/allreduce/dtype:fp32/mode:in_place/bytes:1024/ranks:2/device:host");
  EXPECT_EQ(case_name(Collective::reduce_scatter, "bf16", Placement::out_of_place, 8, 8, false),
            "allreduce/reduce_scatter/dtype:bf16/mode:out_of_place/bytes:8/ranks:8");
}

TEST(Names, ScopeSeparatesIntraAndInterNodeSeries) {
  EXPECT_EQ(case_name(Collective::allreduce, "fp32", Placement::out_of_place, 64, 8, false,
                      Scope::intra_node),
            "allreduce/allreduce/dtype:fp32/mode:out_of_place/bytes:64/ranks:8/scope:intra_node");
  EXPECT_EQ(case_name(Collective::allreduce, "fp32", Placement::out_of_place, 64, 2, true,
                      Scope::inter_node),
            "allreduce/allreduce/dtype:fp32/mode:out_of_place/bytes:64/ranks:2/scope:inter_node/"
            "device:host");
}

TEST(Recorder, ScalingEfficiencyOnlyForTheRankCountSweep) {
  SweepRecorder rec;
  SeriesKey two{Collective::allreduce, "fp32", Placement::out_of_place, 2, true};
  SeriesKey intra = two;
  intra.ranks = 4;
  intra.scope = Scope::intra_node;
  rec.add(two, 1024, 1024, 10);
  rec.add(intra, 1024, 1024, 5);
  EXPECT_FALSE(rec.efficiency_vs_two(intra, 1024));
  EXPECT_EQ(series_name(intra),
            "allreduce/dtype:fp32/mode:out_of_place/ranks:4/scope:intra_node/device:host");
}

TEST(Recorder, SummaryHasPeakKneeEfficiencyAndSlowRanks) {
  SweepRecorder rec;
  SeriesKey two{Collective::allreduce, "bf16", Placement::out_of_place, 2, false};
  SeriesKey four = two;
  four.ranks = 4;
  // Repetitions: the median is what counts.
  for (double v : {10.0, 100.0, 12.0}) rec.add(two, 1 << 20, 1 << 20, v);
  rec.add(two, 1 << 24, 1 << 24, 50);
  rec.add(four, 1 << 20, 1 << 20, 9);
  rec.add(four, 1 << 24, 1 << 24, 40);
  EXPECT_DOUBLE_EQ(*rec.busbw(two, 1 << 20), 12.0);
  EXPECT_DOUBLE_EQ(*rec.efficiency_vs_two(four, 1 << 24), 0.8);
  EXPECT_FALSE(rec.efficiency_vs_two(two, 1 << 24));
  rec.add_slow_rank("allreduce/x", *find_slow_rank(synthetic_ranks({1, 1, 2})));
  const auto j = rec.summary();
  ASSERT_EQ(j["series"].size(), 2u);
  const auto& s4 = j["series"][1];
  EXPECT_EQ(s4["series"], "allreduce/dtype:bf16/mode:out_of_place/ranks:4");
  EXPECT_EQ(s4["peak_busbw_GB_per_s"], 40.0);
  EXPECT_EQ(s4["knee_bytes"], 1 << 24);
  EXPECT_DOUBLE_EQ(s4["scaling_efficiency_vs_2_ranks"].get<double>(), 0.8);
  EXPECT_TRUE(j["series"][0]["scaling_efficiency_vs_2_ranks"].is_null());
  ASSERT_EQ(j["slow_ranks"].size(), 1u);
  EXPECT_EQ(j["slow_ranks"][0]["rank"], 2);
  EXPECT_EQ(j["slow_ranks"][0]["benchmark"], "allreduce/x");
}

TEST(Recorder, NonPowerOfTwoCountsCompareTheSameNominalSize) {
  // allgather at 6 ranks rounds 1 MiB of fp32 down to 1 048 512 B (each rank's share to 16 B);
  // at 2 ranks it stays 1 048 576 B. Efficiency compares the sweep's size, not the rounded one.
  SweepRecorder rec;
  SeriesKey two{Collective::allgather, "fp32", Placement::out_of_place, 2, false};
  SeriesKey six = two;
  six.ranks = 6;
  const std::size_t nominal = 1 << 20;
  const auto at_two = element_counts(Collective::allgather, nominal, 4, 2);
  const auto at_six = element_counts(Collective::allgather, nominal, 4, 6);
  ASSERT_TRUE(at_two && at_six);
  ASSERT_NE(at_two->bytes, at_six->bytes);
  rec.add(two, nominal, at_two->bytes, 100);
  rec.add(six, nominal, at_six->bytes, 75);
  ASSERT_TRUE(rec.efficiency_vs_two(six, nominal));
  EXPECT_DOUBLE_EQ(*rec.efficiency_vs_two(six, nominal), 0.75);
  const auto j = rec.summary();
  EXPECT_DOUBLE_EQ(j["series"][1]["scaling_efficiency_vs_2_ranks"].get<double>(), 0.75);
  EXPECT_EQ(j["series"][1]["largest_bytes"], at_six->bytes);  // the case's own size is kept
}

TEST(Recorder, ASeriesAcrossNodesIsNotComparedWithTwoRanksOnOneNode) {
  SweepRecorder rec;
  SeriesKey two{Collective::allreduce, "fp32", Placement::out_of_place, 2, false};
  SeriesKey eight = two, sixteen = two;
  eight.ranks = 8;
  sixteen.ranks = 16;
  rec.set_nodes(Scope::world, 2, 1);
  rec.set_nodes(Scope::world, 8, 1);
  rec.set_nodes(Scope::world, 16, 2);  // 2 nodes x 8: ranks 0..15 span both
  rec.add(two, 1 << 30, 1 << 30, 400);
  rec.add(eight, 1 << 30, 1 << 30, 360);
  rec.add(sixteen, 1 << 30, 1 << 30, 60);
  EXPECT_DOUBLE_EQ(*rec.efficiency_vs_two(eight, 1 << 30), 0.9);
  EXPECT_FALSE(rec.efficiency_vs_two(sixteen, 1 << 30)) << "NVLink vs the network is not scaling";
  const auto j = rec.summary();
  const auto& s16 = j["series"][2];  // keys sort by ranks: 2, 8, 16
  EXPECT_EQ(s16["series"], "allreduce/dtype:fp32/mode:out_of_place/ranks:16");
  EXPECT_TRUE(s16["scaling_efficiency_vs_2_ranks"].is_null());
  EXPECT_EQ(s16["nodes"], 2);
  EXPECT_NE(s16["scaling_note"].get<std::string>().find("spans 2 nodes while ranks:2 runs on one "
                                                        "node: not a like link"),
            std::string::npos);
  EXPECT_FALSE(j["series"][1].contains("scaling_note"));
  // One rank per node: ranks:2 already crosses the network, so 4 nodes compare with it.
  SweepRecorder across;
  SeriesKey four = two;
  four.ranks = 4;
  across.set_nodes(Scope::world, 2, 2);
  across.set_nodes(Scope::world, 4, 4);
  across.add(two, 1 << 30, 1 << 30, 40);
  across.add(four, 1 << 30, 1 << 30, 36);
  EXPECT_DOUBLE_EQ(*across.efficiency_vs_two(four, 1 << 30), 0.9);
}

TEST(RankTimes, TheMeanIsNcclTestsAveragingOverRanks) {
  EXPECT_FALSE(mean_rank_time_s({}));
  EXPECT_DOUBLE_EQ(*mean_rank_time_s(synthetic_ranks({1.0, 2.0, 3.0, 6.0})), 3.0);
  EXPECT_FALSE(mean_rank_time_s(synthetic_ranks({0.0, 0.0})));
}

// The run plan times what runs: ranks:1 in place is registered skipped (nothing to time), so it
// costs a skipped case's seconds, not 25 calls per repetition (allreduce review, "Also noted").
TEST(AllreducePlan, OneRankInPlaceIsPlannedAsTheSkipItIs) {
  suite::PlanRequest request;
  request.profile = suite::Profile::quick;
  request.gpus = 2;
  const suite::SuitePlan plan = plan_allreduce(request, true);
  const double skip_s =
      suite::skipped_case_seconds(suite::repetitions_of(request), suite::reference_rates());
  const std::size_t bytes = std::size_t{1} << 20;
  auto seconds_of = [&](Placement placement, int ranks) {
    const std::string name =
        case_name(Collective::allreduce, "fp32", placement, bytes, ranks, false);
    for (const auto& c : plan.cases) {
      if (c.name == name) return c.estimated_s;
    }
    ADD_FAILURE() << name << " is not in the plan";
    return -1.0;
  };
  EXPECT_DOUBLE_EQ(seconds_of(Placement::in_place, 1), skip_s);
  EXPECT_GT(seconds_of(Placement::out_of_place, 1), skip_s);
  EXPECT_GT(seconds_of(Placement::in_place, 2), skip_s);
}

}  // namespace
}  // namespace gpubench::allreduce
