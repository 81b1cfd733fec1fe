// The transfer suite's CUDA-free logic: names, sweeps, case list, bidirectional accounting,
// sampling and validation of the copy pattern, the --numa flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "kernels/copy/copy.hpp"
#include "results/model.hpp"
#include "suites/transfer/transfer_cases.hpp"
#include "util/error.hpp"

namespace gpubench::transfer {
namespace {

using suite::Profile;
constexpr std::uint64_t k_kib = 1024, k_mib = 1024 * k_kib, k_gib = 1024 * k_mib;

TEST(TransferCases, NamesFollowNvbandwidthAndCarryEveryParameter) {
  TransferCase h2d;
  h2d.dir = Dir::h2d;
  h2d.memory = Memory::pinned;
  h2d.engine = Engine::ce;
  h2d.numa = Numa::local;
  h2d.bytes = 4096;
  h2d.device = 2;
  EXPECT_EQ(case_name(h2d),
            "transfer/host_to_device_memcpy_ce/dir:h2d/memory:pinned/engine:ce/numa:local/"
            "bytes:4096/device:2");
  TransferCase d2h = h2d;
  d2h.dir = Dir::d2h;
  d2h.memory = Memory::mapped;
  d2h.engine = Engine::sm;
  d2h.numa = Numa::remote;
  EXPECT_EQ(case_name(d2h),
            "transfer/device_to_host_memcpy_sm/dir:d2h/memory:mapped/engine:sm/numa:remote/"
            "bytes:4096/device:2");
  TransferCase p2p;
  p2p.dir = Dir::p2p;
  p2p.memory = Memory::device;
  p2p.numa = Numa::none;
  p2p.bidirectional = true;
  p2p.peer = PeerAccess::off;
  p2p.src = 1;
  p2p.dst = 0;
  p2p.device = 1;
  p2p.bytes = 256 * k_mib;
  EXPECT_EQ(case_name(p2p),
            "transfer/device_to_device_bidirectional_memcpy_write_ce/dir:p2p/memory:device/"
            "engine:ce/peer_access:off/src:1/dst:0/bytes:268435456/device:1");
  TransferCase local;
  local.dir = Dir::d2d;
  local.memory = Memory::device;
  local.numa = Numa::none;
  local.bytes = 1024;
  EXPECT_EQ(case_label(local), "device_local_copy");
  local.engine = Engine::sm;
  EXPECT_EQ(case_label(local), "device_local_copy_sm");
}

TEST(TransferCases, NamesParseBackIntoTypedParameters) {
  for (const auto& c : all_cases(Profile::standard, NumaRequest::both, {0, 1})) {
    const std::string name = case_name(c);
    const results::ParsedName parsed = results::parse_benchmark_name(name, "transfer");
    EXPECT_EQ(parsed.suite, "transfer") << name;
    EXPECT_EQ(parsed.case_name, case_label(c)) << name;
    std::set<std::string> keys;
    for (const auto& p : parsed.params) keys.insert(p.key);
    for (const char* k : {"dir", "memory", "engine", "bytes", "device"}) {
      EXPECT_TRUE(keys.count(k)) << name << " lacks " << k;
    }
  }
}

TEST(TransferCases, SizeSweepsPerProfile) {
  EXPECT_EQ(host_sizes(Profile::quick),
            (std::vector<std::uint64_t>{4 * k_kib, 1 * k_mib, 64 * k_mib, 256 * k_mib}));
  const auto full = host_sizes(Profile::full);
  ASSERT_EQ(full.size(), 10u);  // 4 KiB, 16 KiB, ..., 1 GiB: x4 each step
  EXPECT_EQ(full.front(), 4 * k_kib);
  EXPECT_EQ(full.back(), k_gib);
  for (std::size_t i = 1; i < full.size(); ++i) EXPECT_EQ(full[i], 4 * full[i - 1]);
  const auto standard = host_sizes(Profile::standard);
  EXPECT_EQ(standard.front(), 4 * k_kib);
  EXPECT_EQ(standard.back(), k_gib);
  for (auto b : standard) EXPECT_TRUE(std::count(full.begin(), full.end(), b)) << b;
  EXPECT_EQ(p2p_sizes(Profile::quick), (std::vector<std::uint64_t>{256 * k_mib}));
  for (auto b : p2p_sizes(Profile::full)) EXPECT_GE(b, 64 * k_mib);
}

TEST(TransferCases, QuickCaseListCoversEveryDirectionAndMemoryKind) {
  const auto cases = all_cases(Profile::quick, NumaRequest::local, {0});
  std::set<std::string> dirs, memories, engines;
  for (const auto& c : cases) {
    dirs.insert(to_string(c.dir));
    memories.insert(to_string(c.memory));
    engines.insert(to_string(c.engine));
    EXPECT_NE(c.numa, Numa::remote);
  }
  EXPECT_EQ(dirs, (std::set<std::string>{"h2d", "d2h", "bidir", "d2d", "p2p"}));
  EXPECT_EQ(memories,
            (std::set<std::string>{"pageable", "pinned", "write_combined", "mapped", "device"}));
  EXPECT_EQ(engines, (std::set<std::string>{"ce", "sm"}));
  // 8 host shapes x 4 sizes + d2d CE x 4 sizes + one placeholder pair x 4 p2p shapes x 1 size.
  EXPECT_EQ(cases.size(), 8u * 4 + 4 + 4);
  std::set<std::string> names;
  for (const auto& c : cases) EXPECT_TRUE(names.insert(case_name(c)).second) << case_name(c);
}

TEST(TransferCases, P2PCoversEveryOrderedPairWithPeerAccessAndTheRingWithout) {
  const auto cases = all_cases(Profile::quick, NumaRequest::local, {0, 1, 2});
  std::set<std::string> seen;
  for (const auto& c : cases) {
    if (c.dir != Dir::p2p) continue;
    EXPECT_NE(c.src, c.dst);
    EXPECT_EQ(c.device, c.src);
    seen.insert(std::to_string(c.src) + ">" + std::to_string(c.dst) + to_string(c.peer) +
                (c.bidirectional ? "bi" : "uni"));
  }
  // 3 x 2 ordered pairs with peer access, uni/bi; staged (peer access off) on the ring 0>1>2>0.
  EXPECT_EQ(seen.size(), 6u * 2 + 3u * 2);
  EXPECT_TRUE(seen.count("2>0offbi"));
  EXPECT_FALSE(seen.count("0>2offuni"));
  std::set<std::string> full_staged;
  for (const auto& c : all_cases(Profile::full, NumaRequest::local, {0, 1, 2})) {
    if (c.dir == Dir::p2p && c.peer == PeerAccess::off) {
      full_staged.insert(std::to_string(c.src) + ">" + std::to_string(c.dst));
    }
  }
  EXPECT_EQ(full_staged.size(), 6u);  // full: every ordered pair staged too
}

TEST(TransferCases, SmPeerCasesOnlyWithPeerAccessAndOutsideQuick) {
  int sm = 0;
  for (const auto& c : all_cases(Profile::standard, NumaRequest::local, {0, 1})) {
    if (c.dir != Dir::p2p || c.engine != Engine::sm) continue;
    ++sm;
    EXPECT_EQ(c.peer, PeerAccess::on) << case_name(c);
    EXPECT_EQ(case_label(c), c.bidirectional ? "device_to_device_bidirectional_memcpy_write_sm"
                                             : "device_to_device_memcpy_write_sm");
  }
  EXPECT_EQ(sm, 2 * 2 * static_cast<int>(p2p_sizes(Profile::standard).size()));
  for (const auto& c : all_cases(Profile::quick, NumaRequest::local, {0, 1})) {
    EXPECT_FALSE(c.dir == Dir::p2p && c.engine == Engine::sm) << case_name(c);
  }
}

TEST(TransferCases, RemoteCasesOnlyWhenAskedOrOutsideQuick) {
  auto count_remote = [](const std::vector<TransferCase>& cases) {
    return std::count_if(cases.begin(), cases.end(),
                         [](const TransferCase& c) { return c.numa == Numa::remote; });
  };
  EXPECT_EQ(count_remote(all_cases(Profile::quick, default_numa_request(Profile::quick), {0})), 0);
  EXPECT_GT(count_remote(all_cases(Profile::quick, NumaRequest::remote, {0})), 0);
  EXPECT_GT(
      count_remote(all_cases(Profile::standard, default_numa_request(Profile::standard), {0})), 0);
}

TEST(TransferCases, NumaFlagIsTakenFromArgvAndOverridesTheEnvironment) {
  std::vector<std::string> args = {"prog", "--numa", "remote", "--benchmark_filter=x"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  EXPECT_EQ(take_numa_request(argc, argv.data(), "both", Profile::quick), NumaRequest::remote);
  ASSERT_EQ(argc, 2);
  EXPECT_STREQ(argv[1], "--benchmark_filter=x");
  int argc2 = 1;
  EXPECT_EQ(take_numa_request(argc2, argv.data(), "both", Profile::quick), NumaRequest::both);
  EXPECT_EQ(take_numa_request(argc2, argv.data(), nullptr, Profile::full), NumaRequest::both);
  std::vector<std::string> bad = {"prog", "--numa=far"};
  std::vector<char*> bad_argv;
  for (auto& a : bad) bad_argv.push_back(a.data());
  int bad_argc = 2;
  try {
    take_numa_request(bad_argc, bad_argv.data(), nullptr, Profile::quick);
    FAIL() << "expected bad input";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("far"), std::string::npos);
  }
}

TEST(TransferCases, LatencyForSmallSizesBandwidthForLarge) {
  EXPECT_TRUE(reports_latency(4 * k_kib));
  EXPECT_TRUE(reports_latency(64 * k_kib));
  EXPECT_FALSE(reports_bandwidth(64 * k_kib));
  EXPECT_TRUE(reports_bandwidth(256 * k_kib));
  EXPECT_FALSE(reports_latency(1 * k_mib));
  for (auto b : host_sizes(Profile::full)) EXPECT_NE(reports_latency(b), reports_bandwidth(b));
}

TEST(TransferCases, CopiesPerSampleStayWithinTheBatchLimit) {
  EXPECT_EQ(copies_per_sample(4 * k_kib), 256u);
  EXPECT_EQ(copies_per_sample(256 * k_mib), 4u);
  EXPECT_EQ(copies_per_sample(k_gib), 1u);
  EXPECT_EQ(copies_per_sample(4 * k_gib), 1u);
}

TEST(TransferCases, BidirectionalAccountingSumsConcurrentRatesOrUsesTheSpan) {
  // Each direction moves 1 GB (4 timed copies of 250 MB) while the other direction is still busy
  // (untimed copies follow the timed ones): forward 40 ms, reverse 50 ms. Total = 25 + 20.
  BidirTimes t{0.040, 0.050, 0.050};
  const BidirRates r = bidir_rates(250'000'000, 4, t);
  EXPECT_DOUBLE_EQ(r.forward_gb_per_s, 25.0);
  EXPECT_DOUBLE_EQ(r.reverse_gb_per_s, 20.0);
  EXPECT_DOUBLE_EQ(r.total_gb_per_s, 45.0);
  // Only a span (one SM kernel does both, or staged host-clock copies): bytes over the span.
  const BidirRates span = bidir_rates(250'000'000, 4, BidirTimes{0, 0, 0.060});
  EXPECT_NEAR(span.total_gb_per_s, 2.0 / 0.060, 1e-9);
  EXPECT_DOUBLE_EQ(bidir_rates(1, 1, BidirTimes{}).total_gb_per_s, 0.0);
}

TEST(TransferCases, BidirectionalTimedCopiesLeaveRoomForTheInterferingOnes) {
  for (std::uint64_t b : host_sizes(Profile::full)) {
    const std::uint64_t timed = bidir_copies_per_sample(b);
    EXPECT_GE(timed, 1u) << b;
    // Timed + untimed per stream within one stream's share of the batch limit.
    EXPECT_LE(2 * timed, std::max<std::uint64_t>(copies_per_sample(b), 2)) << b;
  }
  EXPECT_EQ(bidir_copies_per_sample(4 * k_kib), 128u);
  EXPECT_EQ(bidir_copies_per_sample(k_gib), 1u);
}

TEST(TransferCases, DeviceLocalCopiesInL2AreNotDeviceMemoryBandwidth) {
  const std::int64_t h100_l2 = 50 * 1024 * 1024;
  EXPECT_EQ(device_local_residency(1 * k_mib, h100_l2), Residency::cached);
  EXPECT_EQ(device_local_residency(16 * k_mib, h100_l2), Residency::cached);
  EXPECT_EQ(device_local_residency(64 * k_mib, h100_l2), Residency::cached);  // 128 MiB < 200
  EXPECT_EQ(device_local_residency(256 * k_mib, h100_l2), Residency::dram);
  // B200 (126.5 MB of L2): quick's largest size, 256 MiB, still measures device memory.
  EXPECT_EQ(device_local_residency(256 * k_mib, 126'500'000), Residency::dram);
  EXPECT_EQ(device_local_residency(1 * k_mib, 0), Residency::dram);  // L2 unknown
}

TEST(TransferCases, EverySampleHasItsOwnPattern) {
  const SamplePlan plan = sample_plan(256 * k_mib / 4);
  std::set<std::uint32_t> seeds = {0x1234u};
  for (std::uint64_t k = 0; k < 64; ++k) seeds.insert(sample_seed(0x1234u, k));
  EXPECT_EQ(seeds.size(), 65u);  // all distinct, none equal to the fill's seed
  // What was written into the source of sample 3 is what the destination must hold after it.
  const SampledWords w3 = sampled_pattern(plan, sample_seed(0x1234u, 3));
  ASSERT_EQ(w3.strided.size(), plan.strided_count);
  ASSERT_EQ(w3.tail.size(), plan.tail_count);
  EXPECT_EQ(check_sampled_words(plan, w3.strided.data(), w3.tail.data(), sample_seed(0x1234u, 3)),
            "");
  // A destination still holding sample 2's words (the copy of sample 3 did not happen) fails.
  const SampledWords w2 = sampled_pattern(plan, sample_seed(0x1234u, 2));
  EXPECT_NE(check_sampled_words(plan, w2.strided.data(), w2.tail.data(), sample_seed(0x1234u, 3)),
            "");
  // And so does one holding the initial fill.
  const SampledWords fill = sampled_pattern(plan, 0x1234u);
  EXPECT_NE(
      check_sampled_words(plan, fill.strided.data(), fill.tail.data(), sample_seed(0x1234u, 0)),
      "");
}

TEST(TransferCases, OneSelectedGpuMeasuresItsOwnLinks) {
  using Pairs = std::vector<std::pair<int, int>>;
  EXPECT_EQ(p2p_pairs({2}, 4), (Pairs{{2, 0}, {2, 1}, {2, 3}}));
  EXPECT_EQ(p2p_pairs({3}, 4), (Pairs{{3, 0}, {3, 1}, {3, 2}}));  // not 3 -> 4
  EXPECT_EQ(p2p_pairs({0, 1}, 4), (Pairs{{0, 1}, {1, 0}}));
  EXPECT_EQ(p2p_pairs({0}, 1), (Pairs{{0, 1}}));  // no partner: shown, then skipped
  EXPECT_EQ(p2p_pairs({0}, -1), (Pairs{{0, 1}}));
  for (const auto& c : all_cases(Profile::quick, NumaRequest::local, {1}, 3)) {
    if (c.dir == Dir::p2p) {
      EXPECT_EQ(c.src, 1);
      EXPECT_NE(c.dst, 1);
    }
  }
}

TEST(TransferCases, SamplePlanCoversStartStrideAndTail) {
  const SamplePlan p = sample_plan(1'000'000);
  EXPECT_EQ(p.stride % 2, 1u);
  EXPECT_GE(p.strided_count, 4096u / 2);
  EXPECT_LE((p.strided_count - 1) * p.stride, 999'999u);
  EXPECT_EQ(p.tail_first + p.tail_count, 1'000'000u);
  const SamplePlan small = sample_plan(100);
  EXPECT_EQ(small.stride, 1u);
  EXPECT_EQ(small.strided_count, 100u);
  EXPECT_EQ(sample_plan(0).strided_count, 0u);
}

TEST(TransferCases, ValidationCatchesWrongStaleAndShiftedCopies) {
  const std::uint64_t words = 100'000;
  std::vector<std::uint32_t> data(words);
  kernels::copy::fill_pattern_host(data.data(), words, 7);
  const SamplePlan plan = sample_plan(words);
  auto read = [&](const std::vector<std::uint32_t>& d, std::vector<std::uint32_t>& strided,
                  std::vector<std::uint32_t>& tail) {
    strided.clear();
    tail.clear();
    for (std::uint64_t k = 0; k < plan.strided_count; ++k) strided.push_back(d[k * plan.stride]);
    for (std::uint64_t k = 0; k < plan.tail_count; ++k) tail.push_back(d[plan.tail_first + k]);
  };
  std::vector<std::uint32_t> s, t;
  read(data, s, t);
  EXPECT_EQ(check_sampled_words(plan, s.data(), t.data(), 7), "");
  // Another seed (the other direction's data) fails.
  EXPECT_NE(check_sampled_words(plan, s.data(), t.data(), 8), "");
  // A zeroed destination (nothing copied) fails: pattern words are never 0.
  std::vector<std::uint32_t> zeros(words, 0);
  read(zeros, s, t);
  EXPECT_NE(check_sampled_words(plan, s.data(), t.data(), 7).find("validation failed"),
            std::string::npos);
  // A copy shifted by one word fails.
  std::vector<std::uint32_t> shifted(words);
  std::memcpy(shifted.data() + 1, data.data(), (words - 1) * 4);
  read(shifted, s, t);
  EXPECT_NE(check_sampled_words(plan, s.data(), t.data(), 7), "");
  // The last word alone wrong is caught by the tail.
  std::vector<std::uint32_t> last = data;
  last.back() ^= 1;
  read(last, s, t);
  EXPECT_NE(check_sampled_words(plan, s.data(), t.data(), 7).find("word 99999"), std::string::npos);
}

// The SM copy grid follows the copy (review N6): a 4 KiB copy is one block of 512 threads, not
// 4 blocks per SM (270,336 threads on a 132-SM H200, 99.9% of them exiting at once); every block
// has at least 4 words per thread to copy until the grid reaches 4 blocks per SM.
TEST(TransferCases, SmCopyGridIsSizedToTheCopy) {
  namespace kc = kernels::copy;
  const int h200_sms = 132;
  EXPECT_EQ(kc::sm_copy_grid(4 * k_kib, h200_sms), 1);
  EXPECT_EQ(kc::sm_copy_grid(16, h200_sms), 1);
  EXPECT_EQ(kc::sm_copy_grid(32 * k_kib, h200_sms), 1);  // 2048 words = 512 threads x 4
  EXPECT_EQ(kc::sm_copy_grid(32 * k_kib + 16, h200_sms), 2);
  EXPECT_EQ(kc::sm_copy_grid(1 * k_mib, h200_sms), 32);
  EXPECT_EQ(kc::sm_copy_grid(256 * k_mib, h200_sms), 4 * h200_sms);  // full occupancy
  EXPECT_EQ(kc::sm_copy_grid(k_gib, h200_sms), 4 * h200_sms);
  EXPECT_EQ(kc::sm_copy_grid(k_gib, 0), 4);  // SM count unknown: still a valid grid
  EXPECT_EQ(kc::sm_copy_grid(0, h200_sms), 1);
  // Bidirectional: half of each block per direction, so twice the blocks for the same size.
  EXPECT_EQ(kc::sm_copy_bidir_grid(4 * k_kib, h200_sms), 1);
  EXPECT_EQ(kc::sm_copy_bidir_grid(1 * k_mib, h200_sms), 64);
  EXPECT_EQ(kc::sm_copy_bidir_grid(k_gib, h200_sms), 4 * h200_sms);
  for (std::uint64_t b : host_sizes(Profile::full)) {
    const std::uint64_t words = b / 16;
    const auto grid = static_cast<std::uint64_t>(kc::sm_copy_grid(b, h200_sms));
    const std::uint64_t per_block = kc::k_copy_threads_per_block * kc::k_copy_words_per_thread;
    EXPECT_GE(grid * per_block, std::min<std::uint64_t>(words, 4 * h200_sms * per_block)) << b;
    EXPECT_LT((grid - 1) * per_block, words) << b;  // no block without 4 words per thread
  }
}

// Each GPU that launches an SM copy kernel preloads it (review N1: the reverse direction of a
// bidirectional SM peer case is a kernel on dst, which was never preloaded).
TEST(TransferCases, SmCopyKernelsArePreloadedOnEveryGpuThatLaunchesThem) {
  TransferCase c;
  c.dir = Dir::p2p;
  c.engine = Engine::sm;
  c.src = 2;
  c.dst = 5;
  c.device = 2;
  c.bidirectional = true;
  EXPECT_EQ(sm_copy_devices(c), (std::vector<int>{2, 5}));
  c.bidirectional = false;
  EXPECT_EQ(sm_copy_devices(c), (std::vector<int>{2}));
  c.engine = Engine::ce;
  EXPECT_TRUE(sm_copy_devices(c).empty());
  TransferCase host;
  host.dir = Dir::bidir;
  host.memory = Memory::mapped;
  host.engine = Engine::sm;
  host.device = 3;
  EXPECT_EQ(sm_copy_devices(host), (std::vector<int>{3}));
}

// The GPU test's "pageable below pinned" is waived like gpu-check's where the GPU reads host
// memory through the host's page tables (review N7), from the suite's own context value.
TEST(TransferCases, PageableMustTrailPinnedExceptWhereTheGpuReadsHostPageTables) {
  EXPECT_TRUE(pageable_must_trail_pinned(R"({"0": 0, "1": 0})", 0));
  EXPECT_FALSE(pageable_must_trail_pinned(R"({"0": 1, "1": 0})", 0));
  EXPECT_TRUE(pageable_must_trail_pinned(R"({"0": 1, "1": 0})", 1));
  EXPECT_TRUE(pageable_must_trail_pinned(R"({"0": 1})", 3));  // not listed: a PCIe host
  EXPECT_TRUE(pageable_must_trail_pinned("", 0));
  EXPECT_TRUE(pageable_must_trail_pinned("not json", 0));
}

TEST(TransferCases, SpreadPagesCoverFirstLastAndStayDistinct) {
  EXPECT_TRUE(spread_pages(0, 64).empty());
  EXPECT_EQ(spread_pages(1, 64), (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(spread_pages(3, 64), (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(spread_pages(65536, 2), (std::vector<std::uint64_t>{0, 65535}));
  for (std::uint64_t pages : {64ull, 65ull, 100ull, 65536ull, 262144ull}) {
    const std::vector<std::uint64_t> p = spread_pages(pages, 64);
    ASSERT_EQ(p.size(), 64u) << pages;
    EXPECT_EQ(p.front(), 0u);
    EXPECT_EQ(p.back(), pages - 1);
    for (std::size_t k = 1; k < p.size(); ++k) EXPECT_LT(p[k - 1], p[k]) << pages;
  }
}

TEST(TransferCases, GbPerSecondIsDecimal) {
  EXPECT_DOUBLE_EQ(gb_per_s(1e9, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(gb_per_s(static_cast<double>(k_gib), 1.0), 1.073741824);
  EXPECT_DOUBLE_EQ(gb_per_s(1e9, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 2, 3}), 2.5);
}

}  // namespace
}  // namespace gpubench::transfer
