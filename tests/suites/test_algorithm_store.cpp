// The run's cuBLASLt choices kept between its executions and runs (suites/gemm/algorithm_store.hpp,
// util/algorithm_file.hpp): a real file in a temporary directory, written and read back as the
// harness's seeding and two executions would.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "suites/gemm/algorithm_store.hpp"
#include "util/fs.hpp"

namespace gpubench::gemm {
namespace {

StoredAlgorithm sample(std::uint64_t seed) {
  StoredAlgorithm a;
  for (std::size_t i = 0; i < a.bytes.size(); ++i) a.bytes[i] = seed * 0x9E3779B97F4A7C15ull + i;
  a.description = "algo=23 tile=20 stages=15 splitk=1 swizzle=0 rank=0 tied=2 timed=8/8";
  a.median_call_ms = 0.123456789012345;
  return a;
}

TEST(AlgorithmStore, ALaterExecutionReadsTheFirstOnesChoice) {
  TempDir dir("gpubench-algo-store");
  {
    AlgorithmStore first(dir.path());
    EXPECT_FALSE(first.find("gemm/bf16/m:8192/device:0"));
    ASSERT_TRUE(first.add("gemm/bf16/m:8192/device:0", sample(1)));
    ASSERT_TRUE(first.add("gemm/fp8/m:4096/device:1", sample(2)));
  }
  AlgorithmStore later(dir.path());  // a new process: reads the file
  const auto a = later.find("gemm/bf16/m:8192/device:0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bytes, sample(1).bytes);
  EXPECT_EQ(a->description, sample(1).description);
  EXPECT_DOUBLE_EQ(a->median_call_ms, sample(1).median_call_ms);
  ASSERT_TRUE(later.find("gemm/fp8/m:4096/device:1"));
  EXPECT_EQ(later.find("gemm/fp8/m:4096/device:1")->bytes, sample(2).bytes);
  EXPECT_FALSE(later.find("gemm/bf16/m:8192/device:2"));
}

TEST(AlgorithmStore, ATornLineOfAKilledExecutionIsIgnored) {
  TempDir dir("gpubench-algo-store");
  AlgorithmStore first(dir.path());
  ASSERT_TRUE(first.add("gemm/a", sample(3)));
  {
    std::ofstream torn(first.path(), std::ios::app);
    torn << algorithm_line("gemm/b", sample(4)).substr(0, 40);  // killed mid-write
  }
  AlgorithmStore later(dir.path());
  EXPECT_TRUE(later.find("gemm/a"));
  EXPECT_FALSE(later.find("gemm/b"));
}

TEST(AlgorithmStore, NoScratchDirectoryMeansNoStore) {
  ::unsetenv(k_run_scratch_env);
  AlgorithmStore none = AlgorithmStore::from_environment();
  EXPECT_FALSE(none.enabled());
  EXPECT_FALSE(none.add("gemm/a", sample(5)));
  EXPECT_FALSE(none.find("gemm/a"));
}

TEST(AlgorithmStore, LinesRoundTripAndRefuseGarbage) {
  const std::string line = algorithm_line("k", sample(6));
  const auto parsed = parse_algorithm_line(line.substr(0, line.size() - 1));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->first, "k");
  EXPECT_EQ(parsed->second.bytes, sample(6).bytes);
  EXPECT_FALSE(parse_algorithm_line(""));
  EXPECT_FALSE(parse_algorithm_line("k\tzz"));
  EXPECT_FALSE(parse_algorithm_line("k\t0000000000000001\t2\t3\t4\t5\t6\t7\t8\t1.0\td"));
}

// The harness seeds a stored run's choice (origin history:<uuid>); the suite's label says so. One
// that fails cublasLtMatmulAlgoCheck is searched again and appended: the later line wins.
TEST(AlgorithmStore, SeededChoicesSayWhereTheyCameFromAndASearchReplacesThem) {
  TempDir dir("gpubench-algo-store");
  StoredAlgorithm seeded = sample(7);
  seeded.origin = algorithm_file::history_origin("0f8e2a4c-1111-4222-8333-444455556666");
  ASSERT_TRUE(
      algorithm_file::append_choice(dir.path() / algorithm_file::k_file_name, "gemm/a", seeded));
  AlgorithmStore first(dir.path());
  const auto found = first.find("gemm/a");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->origin, seeded.origin);
  EXPECT_EQ(reuse_note(*found), "reused=history:0f8e2a4c-1111-4222-8333-444455556666");
  EXPECT_EQ(algorithm_file::history_run(found->origin),
            std::optional<std::string>("0f8e2a4c-1111-4222-8333-444455556666"));
  ASSERT_TRUE(first.add("gemm/a", sample(8)));  // searched again: origin empty
  AlgorithmStore later(dir.path());
  ASSERT_TRUE(later.find("gemm/a"));
  EXPECT_EQ(later.find("gemm/a")->bytes, sample(8).bytes);
  EXPECT_EQ(reuse_note(*later.find("gemm/a")), "reused=run");
}

TEST(AlgorithmStore, OriginsAndOlderLinesParse) {
  // A line written before the origin field existed (11 fields): searched by this run.
  std::string old = algorithm_line("k", sample(9));
  old = old.substr(0, old.rfind('\t'));
  const auto parsed = parse_algorithm_line(old);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->second.origin, "");
  EXPECT_EQ(parsed->second.bytes, sample(9).bytes);
  // An origin that is neither empty nor history:<uuid> is not a line of this file.
  std::string bad = algorithm_line("k", sample(9));
  bad = bad.substr(0, bad.size() - 1) + "elsewhere";
  EXPECT_FALSE(parse_algorithm_line(bad));
  // Tabs or newlines in a description cannot split the line.
  StoredAlgorithm odd = sample(10);
  odd.description = "algo=1\ttile=2\nstages=3";
  const std::string line = algorithm_line("k", odd);
  const auto back = parse_algorithm_line(line.substr(0, line.size() - 1));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->second.description, "algo=1 tile=2 stages=3");
}

TEST(AlgorithmStore, BytesTravelAsHexDigits) {
  const AlgorithmBytes bytes = sample(11).bytes;
  const std::string hex = algorithm_file::bytes_hex(bytes);
  EXPECT_EQ(hex.size(), 128u);
  EXPECT_EQ(algorithm_file::parse_bytes_hex(hex), std::optional<AlgorithmBytes>(bytes));
  EXPECT_FALSE(algorithm_file::parse_bytes_hex(hex.substr(1)));
  EXPECT_FALSE(algorithm_file::parse_bytes_hex("g" + hex.substr(1)));
}

}  // namespace
}  // namespace gpubench::gemm
