// The run's cuBLASLt choices kept between its executions (suites/gemm/algorithm_store.hpp): a
// real file in a temporary directory, written and read back as two executions would.
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

}  // namespace
}  // namespace gpubench::gemm
