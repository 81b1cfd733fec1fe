#include <gtest/gtest.h>

#include "results/model.hpp"

namespace gpubench::results {
namespace {

TEST(ParseBenchmarkName, SuiteCaseAndTypedParams) {
  const ParsedName p = parse_benchmark_name("memory/triad/bytes:268435456/threads:2", "memory");
  EXPECT_EQ(p.suite, "memory");
  EXPECT_EQ(p.case_name, "triad");
  ASSERT_EQ(p.params.size(), 2u);
  EXPECT_EQ(p.params[0].key, "bytes");
  EXPECT_EQ(p.params[0].text, "268435456");
  ASSERT_TRUE(p.params[0].number.has_value());
  EXPECT_DOUBLE_EQ(*p.params[0].number, 268435456.0);
  EXPECT_EQ(p.params[1].key, "threads");
  EXPECT_DOUBLE_EQ(p.params[1].number.value(), 2.0);
}

TEST(ParseBenchmarkName, TextParamsStayText) {
  const ParsedName p = parse_benchmark_name("gemm/matmul/dtype:bf16/m:8192", "gemm");
  ASSERT_EQ(p.params.size(), 2u);
  EXPECT_EQ(p.params[0].text, "bf16");
  EXPECT_FALSE(p.params[0].number.has_value());
  EXPECT_DOUBLE_EQ(p.params[1].number.value(), 8192.0);
}

TEST(ParseBenchmarkName, GoogleBenchmarkSuffixesAreParams) {
  const ParsedName p = parse_benchmark_name(
      "memory/copy/bytes:4096/iterations:10/repeats:3/min_time:0.5/threads:4/real_time", "memory");
  EXPECT_EQ(p.case_name, "copy");
  ASSERT_EQ(p.params.size(), 6u);
  EXPECT_EQ(p.params[1].key, "iterations");
  EXPECT_EQ(p.params[2].key, "repeats");
  EXPECT_EQ(p.params[3].key, "min_time");
  EXPECT_DOUBLE_EQ(p.params[3].number.value(), 0.5);
  EXPECT_EQ(p.params[4].key, "threads");
  EXPECT_EQ(p.params[5].key, "real_time");
  EXPECT_EQ(p.params[5].text, "");
  EXPECT_FALSE(p.params[5].number.has_value());

  const ParsedName m = parse_benchmark_name("launch/graph/manual_time", "launch");
  EXPECT_EQ(m.case_name, "graph");
  ASSERT_EQ(m.params.size(), 1u);
  EXPECT_EQ(m.params[0].key, "manual_time");
}

TEST(ParseBenchmarkName, NameWithoutSuitePrefixGetsDefault) {
  const ParsedName p = parse_benchmark_name("BM_memcpy/bytes:64", "imported");
  EXPECT_EQ(p.suite, "imported");
  EXPECT_EQ(p.case_name, "BM_memcpy");
  ASSERT_EQ(p.params.size(), 1u);
  EXPECT_DOUBLE_EQ(p.params[0].number.value(), 64.0);

  const ParsedName bare = parse_benchmark_name("BM_spin", "imported");
  EXPECT_EQ(bare.suite, "imported");
  EXPECT_EQ(bare.case_name, "BM_spin");
  EXPECT_TRUE(bare.params.empty());
}

TEST(ParseBenchmarkName, PartsWithoutColonJoinTheCase) {
  const ParsedName p = parse_benchmark_name("fusion/bias_gelu/v2/n:1024", "fusion");
  EXPECT_EQ(p.suite, "fusion");
  EXPECT_EQ(p.case_name, "bias_gelu/v2");
  ASSERT_EQ(p.params.size(), 1u);
  EXPECT_EQ(p.params[0].key, "n");

  // Google Benchmark's positional args (no name) join the case too.
  const ParsedName gb = parse_benchmark_name("BM_copy/8/64", "imported");
  EXPECT_EQ(gb.case_name, "BM_copy/8/64");
  EXPECT_TRUE(gb.params.empty());
}

TEST(ParseBenchmarkName, EmptyDefaultSuiteTakesTheFirstPart) {
  const ParsedName p = parse_benchmark_name("transfer/h2d/bytes:1024", "");
  EXPECT_EQ(p.suite, "transfer");
  EXPECT_EQ(p.case_name, "h2d");
}

TEST(ModelStrings, RoundTrip) {
  for (RunStatus s : {RunStatus::running, RunStatus::complete, RunStatus::interrupted,
                      RunStatus::failed, RunStatus::abandoned}) {
    EXPECT_EQ(run_status_from_string(to_string(s)), s);
  }
  for (SuiteStatus s : {SuiteStatus::ok, SuiteStatus::failed, SuiteStatus::timeout,
                        SuiteStatus::crashed, SuiteStatus::interrupted, SuiteStatus::skipped}) {
    EXPECT_EQ(suite_status_from_string(to_string(s)), s);
  }
  for (Direction d : {Direction::higher, Direction::lower, Direction::unknown}) {
    EXPECT_EQ(direction_from_string(to_string(d)), d);
  }
  EXPECT_FALSE(run_status_from_string("done").has_value());
  EXPECT_FALSE(direction_from_string("up").has_value());
  EXPECT_STREQ(to_string(BenchmarkStatus::skipped), "skipped");
}

}  // namespace
}  // namespace gpubench::results
