// cuBLASLt algorithms read from gemm labels (compare/algorithms.hpp): a comparison whose sides ran
// different algorithms says so in the reason of that row, whatever its verdict, and in the text
// that replaces the reason; the same algorithm, or a side without one, says nothing. Sides are
// FIXTURES (made-up samples and labels).
#include <gtest/gtest.h>

#include "compare/algorithms.hpp"
#include "compare/render/render.hpp"
#include "fixtures.hpp"

namespace gpubench::compare {
namespace {

using testing::normal_samples;
using testing::row;

constexpr const char* k_label_23 =
    "compute=32F algo=23 tile=20 stages=15 splitk=1 swizzle=0 rank=0 tied=2 timed=8/8 reused=run "
    "calls_per_sample=200 validated=144/144_sampled_elements(worst_rel_err=1.2e-03)";
constexpr const char* k_label_31 =
    "compute=32F algo=31 tile=18 stages=8 splitk=1 swizzle=1 rank=3 tied=1 timed=8/8 "
    "calls_per_sample=200 validated=144/144_sampled_elements(worst_rel_err=1.1e-03)";

TEST(CublasLtAlgorithm, TheKernelFieldsOfALabel) {
  EXPECT_EQ(cublaslt_algorithm(k_label_23), "algo=23 tile=20 stages=15 splitk=1 swizzle=0");
  EXPECT_EQ(cublaslt_algorithm(k_label_31), "algo=31 tile=18 stages=8 splitk=1 swizzle=1");
  // rank=, tied=, reused= and validation say how it was chosen and checked, not what ran.
  EXPECT_EQ(cublaslt_algorithm("algo=23 tile=20 stages=15 splitk=1 rank=4 reused=history:x"),
            cublaslt_algorithm("algo=23 tile=20 stages=15 splitk=1 rank=0"));
  EXPECT_EQ(cublaslt_algorithm("compute=32F algo=default (cublasGemmEx, CUBLAS_GEMM_DEFAULT)"),
            "algo=default");
  EXPECT_EQ(cublaslt_algorithm("bytes=1024 threads=2"), "");
  EXPECT_EQ(cublaslt_algorithm(""), "");
  EXPECT_EQ(cublaslt_algorithm("tile=20 pseudo_algo=3"), "");
}

TEST(CublasLtAlgorithm, TheDifferenceOfTwoSides) {
  const std::string a = cublaslt_algorithm(k_label_23);
  const std::string b = cublaslt_algorithm(k_label_31);
  EXPECT_EQ(algorithm_difference({a, a}, {b}),
            "different cuBLASLt algorithm: algo=23 tile=20 stages=15 splitk=1 swizzle=0 vs "
            "algo=31 tile=18 stages=8 splitk=1 swizzle=1");
  EXPECT_EQ(algorithm_difference({a}, {a, ""}), "");
  EXPECT_EQ(algorithm_difference({a}, {""}), "");  // unknown on one side: nothing said
  EXPECT_EQ(algorithm_difference({}, {b}), "");
  EXPECT_EQ(algorithm_difference({a}, {b, a}),
            "different cuBLASLt algorithm: " + a + " vs " + a + " / " + b);
}

Side side(const std::string& selection, const std::string& label, double mean, unsigned seed) {
  Side s;
  s.selection = selection;
  for (const char* bench :
       {"gemm/cublaslt/dtype:bf16/m:4096/device:0", "gemm/cublaslt/dtype:bf16/m:8192/device:0"}) {
    results::ResultRow r = row(bench, "TFLOP_per_s", "TFLOP/s", results::Direction::higher,
                               normal_samples(mean, 0.002, 10, seed));
    // Only the first case's label differs between the sides.
    r.label = std::string(bench).find("8192") != std::string::npos ? k_label_23 : label;
    s.results.push_back(r);
  }
  return s;
}

TEST(CompareAlgorithms, TheReasonSaysTheSidesRanDifferentAlgorithms) {
  Options options;
  const Comparison cmp =
      compare_sides(side("base", k_label_23, 600, 1), side("cand", k_label_31, 660, 2), options);
  ASSERT_EQ(cmp.entries.size(), 2u);
  const std::string note =
      "different cuBLASLt algorithm: algo=23 tile=20 stages=15 splitk=1 swizzle=0 vs algo=31 "
      "tile=18 stages=8 splitk=1 swizzle=1";
  for (const Entry& e : cmp.entries) {
    const bool changed = e.key.benchmark.find("4096") != std::string::npos;
    EXPECT_EQ(e.algorithm_change, changed ? note : "") << e.key.benchmark;
    EXPECT_EQ(e.reason.find(note) != std::string::npos, changed) << e.reason;
    // The text renderer's words replace the reason: the note is said there too.
    EXPECT_EQ(plain_why(e, options.confidence).find(note) != std::string::npos, changed)
        << plain_why(e, options.confidence);
  }
  // Sides stored without labels (before schema v6, other suites): nothing said.
  const Comparison unlabelled =
      compare_sides(side("base", "", 600, 1), side("cand", k_label_31, 660, 2), options);
  for (const Entry& e : unlabelled.entries) {
    EXPECT_EQ(e.reason.find("cuBLASLt"), std::string::npos) << e.reason;
  }
}

}  // namespace
}  // namespace gpubench::compare
