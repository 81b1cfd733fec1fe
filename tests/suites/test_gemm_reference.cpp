// CPU reference, decoders and tolerances used to validate GPU results
// (suites/common/validation.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "suites/common/validation.hpp"

namespace gpubench::suite {
namespace {

TEST(Decode, Fp16KnownBitPatterns) {
  EXPECT_EQ(decode_fp16(0x3C00), 1.0);
  EXPECT_EQ(decode_fp16(0xC000), -2.0);
  EXPECT_EQ(decode_fp16(0x7BFF), 65504.0);
  EXPECT_EQ(decode_fp16(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(decode_fp16(0x3555), 0.333251953125);
  EXPECT_TRUE(std::isinf(decode_fp16(0x7C00)));
  EXPECT_TRUE(std::isnan(decode_fp16(0x7E00)));
}

TEST(Decode, Bf16KnownBitPatterns) {
  EXPECT_EQ(decode_bf16(0x3F80), 1.0);
  EXPECT_EQ(decode_bf16(0xC0A0), -5.0);
  EXPECT_EQ(decode_bf16(0x3EAB), 0.333984375);
}

TEST(Decode, Fp8E4m3KnownBitPatterns) {
  EXPECT_EQ(decode_fp8_e4m3(0x38), 1.0);
  EXPECT_EQ(decode_fp8_e4m3(0xB8), -1.0);
  EXPECT_EQ(decode_fp8_e4m3(0x7E), 448.0);                // largest finite
  EXPECT_EQ(decode_fp8_e4m3(0x01), std::ldexp(1.0, -9));  // smallest subnormal
  EXPECT_EQ(decode_fp8_e4m3(0x08), std::ldexp(1.0, -6));  // smallest normal
  EXPECT_EQ(decode_fp8_e4m3(0x3C), 1.5);
  EXPECT_TRUE(std::isnan(decode_fp8_e4m3(0x7F)));
  EXPECT_TRUE(std::isnan(decode_fp8_e4m3(0xFF)));
}

TEST(Decode, ElementKinds) {
  const unsigned char i8[] = {0xFF};
  EXPECT_EQ(decode_element(ElementKind::i8, i8), -1.0);
  const std::int32_t i32 = -123456;
  EXPECT_EQ(decode_element(ElementKind::i32, reinterpret_cast<const unsigned char*>(&i32)),
            -123456.0);
  const float f = 0.1f;
  EXPECT_EQ(decode_element(ElementKind::f32, reinterpret_cast<const unsigned char*>(&f)),
            static_cast<double>(f));
}

TEST(Encode, RoundTripsAndRoundsToNearestEven) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (int i = 0; i < 2000; ++i) {
    const float x = normal(rng);
    const double bf = decode_bf16(encode_bf16(x));
    EXPECT_LE(std::fabs(bf - x), std::fabs(x) * std::ldexp(1.0, -8) + 1e-30) << x;
    const double h = decode_fp16(encode_fp16(x));
    EXPECT_LE(std::fabs(h - x), std::fabs(x) * std::ldexp(1.0, -11) + std::ldexp(1.0, -25)) << x;
  }
  EXPECT_EQ(encode_bf16(1.0f), 0x3F80);
  EXPECT_EQ(encode_fp16(1.0f), 0x3C00);
  EXPECT_EQ(encode_fp16(65504.0f), 0x7BFF);
  EXPECT_EQ(encode_fp16(1e6f), 0x7C00);
  // 1 + 2^-11 is halfway between 1 and the next fp16: ties go to even (1.0).
  EXPECT_EQ(encode_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
}

// A small GEMM with integer entries: the reference must be exact.
TEST(Reference, SmallIntegerMatrixIsExact) {
  // C (2 x 3) = A (2 x 4) x B (4 x 3), column-major.
  const std::vector<double> a = {1, 5, 2, 6, 3, 7, 4, 8};               // A = [1 2 3 4; 5 6 7 8]
  const std::vector<double> b = {1, 0, 0, 1, 2, 2, 2, 2, -1, 0, 1, 0};  // B columns
  const double expect[2][3] = {{5, 20, 2}, {13, 52, 2}};
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 3; ++j) {
      const auto ref = reference_dot(a.data() + i, 2, b.data() + 4 * j, 1, 4);
      EXPECT_EQ(ref.value, expect[i][j]) << i << "," << j;
    }
  }
  const auto ref = reference_dot(a.data(), 2, b.data(), 1, 4);  // 1*1 + 4*1 -> products 1 and 4
  EXPECT_DOUBLE_EQ(ref.magnitude, std::sqrt(1.0 + 16.0));
}

TEST(Tolerance, PerDtypeOrdering) {
  EXPECT_EQ(gemm_tolerance(DType::int8), 0.0);
  EXPECT_LT(gemm_tolerance(DType::fp64), gemm_tolerance(DType::fp32));
  EXPECT_LE(gemm_tolerance(DType::fp32), 1e-4);
  EXPECT_LT(gemm_tolerance(DType::fp32), gemm_tolerance(DType::bf16));
  EXPECT_EQ(gemm_tolerance(DType::bf16), 1e-2);
  EXPECT_EQ(gemm_tolerance(DType::tf32), 1e-2);
  EXPECT_GT(gemm_tolerance(DType::fp8_e4m3), gemm_tolerance(DType::bf16));
}

// Every dtype's bound, held at its documented value (validation.cpp gemm_tolerance): an element
// 0.1% inside it passes and one 0.1% outside fails, on both sides of the reference, directly and
// through ValidationReport. A bound made 10x looser (or tighter) fails here; the ordering test
// above would not notice.
TEST(Tolerance, EachDtypeAcceptsJustInsideAndRejectsJustOutsideItsBound) {
  struct Bound {
    DType dtype;
    double tolerance;
  };
  const Bound bounds[] = {{DType::fp64, 1e-10}, {DType::fp32, 5e-5}, {DType::tf32, 1e-2},
                          {DType::fp16, 1e-2},  {DType::bf16, 1e-2}, {DType::fp8_e4m3, 2e-2},
                          {DType::int8, 0.0}};
  ASSERT_EQ(std::size(bounds), std::size(k_all_dtypes));  // a new dtype needs its bound here
  const DotReference ref{3.0, 5.0};                       // the bound is relative to |3| + 5 = 8
  for (const Bound& b : bounds) {
    const double tol = gemm_tolerance(b.dtype);
    SCOPED_TRACE(to_string(b.dtype));
    const double allowed = b.tolerance * (std::fabs(ref.value) + ref.magnitude);
    // int8 is exact: the smallest difference a double can hold is already outside.
    const double inside = b.dtype == DType::int8 ? 0.0 : 0.999 * allowed;
    const double outside =
        b.dtype == DType::int8 ? std::nextafter(ref.value, 4.0) - ref.value : 1.001 * allowed;
    for (const double sign : {1.0, -1.0}) {
      EXPECT_TRUE(within_tolerance(ref.value + sign * inside, ref, tol)) << sign * inside;
      EXPECT_FALSE(within_tolerance(ref.value + sign * outside, ref, tol)) << sign * outside;
    }
    ValidationReport report(tol);
    report.add(0, 0, ref.value + inside, ref);
    EXPECT_TRUE(report.passed()) << report.summary();
    report.add(0, 1, ref.value - outside, ref);
    EXPECT_EQ(report.failed(), 1u) << report.summary();
  }
}

// The FP8 fast-accumulation bound at the suite's k, held the same way: 4096 keeps the flat 2e-2
// (128 additions x 2^-13 + 2^-8 = 0.0195 is below it), 16384 and 32768 follow the model.
TEST(Tolerance, Fp8FastAccumulationAcceptsJustInsideAndRejectsJustOutside) {
  const DotReference ref{-2.0, 6.0};  // scale 8
  for (const auto& [k, bound] : {std::pair<std::int64_t, double>{4096, 2e-2},
                                 {16384, 512 * std::ldexp(1.0, -13) + std::ldexp(1.0, -8)},
                                 {32768, 1024 * std::ldexp(1.0, -13) + std::ldexp(1.0, -8)}}) {
    const double tol = fp8_fast_accum_tolerance(k);
    EXPECT_TRUE(within_tolerance(ref.value + 0.999 * bound * 8, ref, tol)) << "k=" << k;
    EXPECT_FALSE(within_tolerance(ref.value + 1.001 * bound * 8, ref, tol)) << "k=" << k;
  }
}

// The bugs the FP64 and FP32 bounds exist to catch: an FP64 GEMM run in FP32 and an FP32 GEMM
// run on TF32 Tensor Cores (inputs cut to 10 mantissa bits) fail; an honest result in the right
// precision, summed in another order than the reference, passes.
float round_to_tf32(float v) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
  bits += 0xFFFu + ((bits >> 13) & 1u);  // to nearest, ties to even, at TF32's last mantissa bit
  return std::bit_cast<float>(bits & ~0x1FFFu);
}

TEST(Tolerance, LowerPrecisionThanTheDtypeFailsItsBound) {
  std::mt19937 rng(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  const std::size_t k = 4096;
  std::vector<double> a(k), b(k);
  ValidationReport fp64_honest(gemm_tolerance(DType::fp64));
  ValidationReport fp64_in_fp32(gemm_tolerance(DType::fp64));
  ValidationReport fp32_honest(gemm_tolerance(DType::fp32));
  ValidationReport fp32_on_tf32(gemm_tolerance(DType::fp32));
  ValidationReport tf32_honest(gemm_tolerance(DType::tf32));
  for (int trial = 0; trial < 40; ++trial) {
    for (std::size_t p = 0; p < k; ++p) {
      a[p] = static_cast<float>(normal(rng));  // exact in FP32 and FP64 alike
      b[p] = static_cast<float>(normal(rng));
    }
    const DotReference ref = reference_dot(a.data(), 1, b.data(), 1, k);
    double reversed = 0.0;
    float f32 = 0.0f, tf32 = 0.0f;
    for (std::size_t p = k; p-- > 0;) reversed += a[p] * b[p];
    for (std::size_t p = 0; p < k; ++p) {
      f32 += static_cast<float>(a[p]) * static_cast<float>(b[p]);
      tf32 += round_to_tf32(static_cast<float>(a[p])) * round_to_tf32(static_cast<float>(b[p]));
    }
    const auto col = static_cast<std::size_t>(trial);
    fp64_honest.add(0, col, reversed, ref);
    fp64_in_fp32.add(0, col, f32, ref);
    fp32_honest.add(0, col, f32, ref);
    fp32_on_tf32.add(0, col, tf32, ref);
    tf32_honest.add(0, col, tf32, ref);
  }
  EXPECT_TRUE(fp64_honest.passed()) << fp64_honest.summary();
  EXPECT_EQ(fp64_in_fp32.failed(), fp64_in_fp32.checked()) << fp64_in_fp32.summary();
  EXPECT_TRUE(fp32_honest.passed()) << fp32_honest.summary();
  // TF32's error is random with a spread near 5x the FP32 bound: most elements fail, not all.
  EXPECT_GE(fp32_on_tf32.failed(), fp32_on_tf32.checked() / 2) << fp32_on_tf32.summary();
  EXPECT_GT(fp32_on_tf32.worst_error(), 4 * gemm_tolerance(DType::fp32)) << fp32_on_tf32.summary();
  EXPECT_TRUE(tf32_honest.passed()) << tf32_honest.summary();
}

// A simulation of FP8 GEMM with fast accumulation (the model of fp8_fast_accum_tolerance): random
// N(0,1) inputs rounded to E4M3, exact products, each 32-product MMA step summed exactly and added
// to an accumulator truncated to 14 significant bits, the result rounded to bf16. The bound must
// hold with room to spare at the suite's k (quick 16384, standard 32768) and still fail a wrong
// element; the old flat 2e-2 does not hold at k = 32768.
double round_to_e4m3(double v) {
  static const std::vector<double> values = [] {
    std::vector<double> out;
    for (int bits = 0; bits < 256; ++bits) {
      const double d = decode_fp8_e4m3(static_cast<std::uint8_t>(bits));
      if (std::isfinite(d)) out.push_back(d);
    }
    std::sort(out.begin(), out.end());
    return out;
  }();
  const auto above = std::lower_bound(values.begin(), values.end(), v);
  if (above == values.begin()) return values.front();
  if (above == values.end()) return values.back();
  return *above - v < v - *(above - 1) ? *above : *(above - 1);
}

double truncate_significand(double v, int bits) {
  if (v == 0.0) return 0.0;
  int exponent = 0;
  const double m = std::frexp(v, &exponent);  // |m| in [0.5, 1)
  return std::ldexp(std::trunc(std::ldexp(m, bits)), exponent - bits);
}

double fast_accum_dot(const std::vector<double>& a, const std::vector<double>& b) {
  double acc = 0.0;
  for (std::size_t p0 = 0; p0 < a.size(); p0 += k_fp8_mma_k) {
    double step = 0.0;
    for (std::size_t p = p0; p < std::min(a.size(), p0 + k_fp8_mma_k); ++p) step += a[p] * b[p];
    acc = truncate_significand(acc + step, k_fp8_fast_accum_significant_bits);
  }
  return decode_bf16(encode_bf16(static_cast<float>(acc)));
}

TEST(Tolerance, Fp8FastAccumulationBoundHoldsOnASimulation) {
  std::mt19937 rng(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  double worst_at_32768 = 0.0;
  for (std::int64_t k : {4096, 16384, 32768}) {
    const double tol = fp8_fast_accum_tolerance(k);
    ValidationReport report(tol);
    ValidationReport wrong(tol);
    std::vector<double> a(static_cast<std::size_t>(k)), b(a.size());
    for (int element = 0; element < 48; ++element) {
      for (std::size_t p = 0; p < a.size(); ++p) {
        a[p] = round_to_e4m3(normal(rng));
        b[p] = round_to_e4m3(normal(rng));
      }
      const DotReference ref = reference_dot(a.data(), 1, b.data(), 1, a.size());
      const double gpu = fast_accum_dot(a, b);
      report.add(0, static_cast<std::size_t>(element), gpu, ref);
      // A wrong element: the sum of another row.
      wrong.add(0, static_cast<std::size_t>(element), gpu + (element % 2 ? 1 : -1) * ref.magnitude,
                ref);
    }
    EXPECT_TRUE(report.passed()) << "k=" << k << ": " << report.summary();
    std::printf("k=%lld: %s\n", static_cast<long long>(k), report.summary().c_str());
    EXPECT_LT(report.worst_error(), 0.5 * tol) << "k=" << k << ": " << report.summary();
    EXPECT_EQ(wrong.failed(), wrong.checked()) << "k=" << k << ": " << wrong.summary();
    if (k == 32768) worst_at_32768 = report.worst_error();
  }
  EXPECT_GT(worst_at_32768, gemm_tolerance(DType::fp8_e4m3))
      << "the flat FP8 bound would hold at k = 32768 in this model";
  EXPECT_DOUBLE_EQ(fp8_fast_accum_tolerance(1024), gemm_tolerance(DType::fp8_e4m3));
  EXPECT_NEAR(fp8_fast_accum_tolerance(32768), 1024 * std::ldexp(1.0, -13) + std::ldexp(1.0, -8),
              1e-12);
}

// Simulates a bf16 GEMM output on random data: honest rounding passes, a wrong element fails.
TEST(Tolerance, Bf16RoundingPassesWrongResultsFail) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const std::size_t k = 4096;
  std::vector<double> a(k), b(k);
  ValidationReport ok(gemm_tolerance(DType::bf16));
  ValidationReport bad(gemm_tolerance(DType::bf16));
  for (int trial = 0; trial < 50; ++trial) {
    for (std::size_t p = 0; p < k; ++p) {
      a[p] = decode_bf16(encode_bf16(normal(rng)));
      b[p] = decode_bf16(encode_bf16(normal(rng)));
    }
    const auto ref = reference_dot(a.data(), 1, b.data(), 1, k);
    const double gpu =
        decode_bf16(encode_bf16(static_cast<float>(ref.value)));  // fp32 accumulate, bf16 out
    ok.add(0, static_cast<std::size_t>(trial), gpu, ref);
    // A result computed from the wrong row: same magnitude, unrelated value.
    bad.add(0, static_cast<std::size_t>(trial), gpu + ref.magnitude, ref);
  }
  EXPECT_TRUE(ok.passed()) << ok.summary();
  EXPECT_LT(ok.worst_error(), 0.004);
  EXPECT_FALSE(bad.passed());
  EXPECT_EQ(bad.failed(), 50u);
  EXPECT_NE(bad.summary().find("50 of 50"), std::string::npos) << bad.summary();
}

TEST(Tolerance, ExactTypesAndNonFinite) {
  const DotReference ref{10.0, 5.0};
  EXPECT_TRUE(within_tolerance(10.0, ref, 0.0));
  EXPECT_FALSE(within_tolerance(11.0, ref, 0.0));
  EXPECT_FALSE(within_tolerance(std::numeric_limits<double>::quiet_NaN(), ref, 1.0));
  EXPECT_FALSE(within_tolerance(std::numeric_limits<double>::infinity(), ref, 1.0));
  // Near-zero true value: judged against the magnitude, not against |ref|.
  const DotReference tiny{1e-9, 64.0};
  EXPECT_TRUE(within_tolerance(0.05, tiny, 1e-2));
  EXPECT_FALSE(within_tolerance(5.0, tiny, 1e-2));
  ValidationReport empty(1e-2);
  EXPECT_FALSE(empty.passed());  // nothing checked is not a pass
}

TEST(Sampling, DistinctSortedWithEdges) {
  const auto idx = sample_indices(1000, 12, 11);
  ASSERT_EQ(idx.size(), 12u);
  EXPECT_EQ(idx.front(), 0u);
  EXPECT_EQ(idx.back(), 999u);
  EXPECT_EQ(std::set<std::size_t>(idx.begin(), idx.end()).size(), 12u);
  EXPECT_TRUE(std::is_sorted(idx.begin(), idx.end()));
  EXPECT_EQ(sample_indices(1000, 12, 11), idx);  // seeded: reproducible
  EXPECT_EQ(sample_indices(5, 12, 1).size(), 5u);
  EXPECT_TRUE(sample_indices(0, 12, 1).empty());
}

}  // namespace
}  // namespace gpubench::suite
