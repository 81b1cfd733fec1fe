// The CPU references of the fusion families against hand-computed values and properties.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include "kernels/bias_gelu/bias_gelu.hpp"
#include "kernels/bias_gelu/bias_gelu_reference.hpp"
#include "kernels/common/fusion_grid.hpp"
#include "kernels/layernorm/layernorm.hpp"
#include "kernels/layernorm/layernorm_reference.hpp"
#include "kernels/softmax/softmax.hpp"
#include "kernels/softmax/softmax_reference.hpp"

namespace kb = gpubench::kernels::bias_gelu;
namespace kl = gpubench::kernels::layernorm;
namespace ks = gpubench::kernels::softmax;

namespace {

std::vector<double> normal_values(std::size_t n, unsigned seed, double stddev = 1.0) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> dist(0.0, stddev);
  std::vector<double> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

TEST(GeluReference, TanhFormAtKnownPoints) {
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), evaluated by hand (Python, double).
  EXPECT_EQ(kb::gelu_tanh(0.0), 0.0);
  EXPECT_NEAR(kb::gelu_tanh(1.0), 0.8411919906082768, 1e-15);
  EXPECT_NEAR(kb::gelu_tanh(-1.0), -0.15880800939172324, 1e-15);
  EXPECT_NEAR(kb::gelu_tanh(-0.5), -0.15428599017485606, 1e-15);
  EXPECT_NEAR(kb::gelu_tanh(3.0), 2.996362607918227, 1e-14);
  // Far out it is the identity on the right and 0 on the left.
  EXPECT_NEAR(kb::gelu_tanh(10.0), 10.0, 1e-12);
  EXPECT_NEAR(kb::gelu_tanh(-10.0), 0.0, 1e-12);
}

TEST(GeluReference, TheExpEvaluationEqualsTheTextbookTanhFormula) {
  for (double x = -8.0; x <= 8.0; x += 1.0 / 64) {
    EXPECT_NEAR(kb::gelu_tanh(x), kb::gelu_tanh_textbook(x), 1e-14) << x;
    EXPECT_NEAR(kb::gelu_tanh(static_cast<float>(x)), kb::gelu_tanh_textbook(x), 2e-6) << x;
  }
  // No overflow trouble far out in float: exp(-2z) is inf and the result -0.
  EXPECT_EQ(kb::gelu_tanh(-30.0f), 0.0f);
}

// v3's fast GELU (__expf, __fdividef) on the CPU with the intrinsics' documented worst errors in
// both directions, over a dense grid far beyond the N(0,1) + N(0,1) inputs: within tolerance() of
// the textbook formula for every precision, counting the output rounding of fp16/bf16 (u |y|) and
// input differences of 2 ulp in the exponent (the GPU may contract the polynomial into an FMA).
TEST(GeluReference, FastV3FormulaStaysWithinEveryToleranceAtWorstCaseIntrinsicErrors) {
  using gpubench::kernels::Precision;
  double worst = 0.0;
  double worst_x = 0.0;
  std::vector<float> xs;
  for (double x = -40.0; x <= 40.0; x += 1.0 / 512) xs.push_back(static_cast<float>(x));
  for (float x : {-1e30f, -1e6f, -100.0f, 100.0f, 1e6f, 1e30f, 0.0f, -0.0f, 1e-30f, -1e-30f})
    xs.push_back(x);
  for (float x : xs) {
    const float a = std::fmin(x * (kb::k_fast_c0 + kb::k_fast_c1 * (x * x)), kb::k_fast_exp_cap);
    // (the exponent __expf sees: capped)
    // a = -inf (x^2 overflows for |x| > 1.8e19): __expf(-inf) is exactly 0.
    const double exp_error =
        std::isfinite(a)
            ? kb::fast_exp_error_bound(a) + std::fabs(static_cast<double>(a)) * std::ldexp(1.0, -22)
            : 0.0;
    const double div_error = 2.0 * std::ldexp(1.0, -23);
    const double ref = kb::gelu_tanh_textbook(x);
    for (double es : {-1.0, 1.0}) {
      for (double ds : {-1.0, 1.0}) {
        const float y = kb::gelu_fast_model(x, es * exp_error, ds * div_error);
        ASSERT_TRUE(std::isfinite(y)) << x;
        const double err = std::fabs(y - ref) / (std::fabs(ref) + 1.0);
        if (err > worst) {
          worst = err;
          worst_x = x;
        }
      }
    }
  }
  EXPECT_LT(worst, kb::tolerance(Precision::fp32) / 4) << "at x = " << worst_x;
  std::printf("fast GELU model: worst error %.3g of (|ref| + 1) at x = %g\n", worst, worst_x);
  // fp16 and bf16 round the output once more (u |y| <= u (|ref| + 1) up to the error above).
  for (Precision p : {Precision::fp16, Precision::bf16}) {
    EXPECT_LT(worst + gpubench::kernels::unit_roundoff(p), kb::tolerance(p) / 2)
        << gpubench::kernels::to_string(p);
  }
  // The cap: no overflow to inf, and gelu is 0 to far below every tolerance there.
  EXPECT_EQ(kb::gelu_fast_model(-1e30f, 0, 0), 0.0f);
  EXPECT_LT(std::fabs(kb::gelu_fast_model(-9.0f, 0, 0)), 1e-20);
  EXPECT_TRUE(std::isnan(kb::gelu_fast_model(std::nanf(""), 0, 0)));
  EXPECT_EQ(kb::gelu_fast_model(1e30f, 0, 0), 1e30f);
}

TEST(GeluReference, ErfFormAtKnownPoints) {
  EXPECT_NEAR(kb::gelu_erf(1.0), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(kb::gelu_erf(-3.0), -0.00404969409489031, 1e-15);
}

TEST(GeluReference, TanhFormWithinItsDocumentedErrorOfTheErfForm) {
  double worst = 0.0;
  double worst_x = 0.0;
  for (double x = -10.0; x <= 10.0; x += 1e-3) {
    const double d = std::fabs(kb::gelu_tanh_textbook(x) - kb::gelu_erf(x));
    if (d > worst) {
      worst = d;
      worst_x = x;
    }
  }
  EXPECT_LE(worst, kb::k_tanh_form_max_abs_error);
  // The documented bound is tight (4.73e-4 near x = +-2.70), not a loose guess.
  EXPECT_GT(worst, 0.95 * kb::k_tanh_form_max_abs_error);
  EXPECT_NEAR(std::fabs(worst_x), 2.70, 0.01);  // the difference is even in x
}

TEST(BiasGeluReference, AddsTheBiasPerColumnThenAppliesGelu) {
  const std::vector<double> x{0.0, 1.0, 2.0, -1.0, 0.5, 0.0};  // 2 rows x 3 columns
  const std::vector<double> bias{1.0, -1.0, 0.0};
  std::vector<double> y(6);
  kb::reference(x.data(), bias.data(), y.data(), 2, 3);
  EXPECT_NEAR(y[0], 0.8411919906082768, 1e-15);    // gelu(0 + 1)
  EXPECT_EQ(y[1], 0.0);                            // gelu(1 - 1)
  EXPECT_NEAR(y[2], 1.954597694087775, 1e-14);     // gelu(2)
  EXPECT_EQ(y[3], 0.0);                            // gelu(-1 + 1)
  EXPECT_NEAR(y[4], -0.15428599017485606, 1e-15);  // gelu(0.5 - 1)
  EXPECT_EQ(y[5], 0.0);
}

TEST(BiasGeluReference, FusedPassEqualsTheUnfusedPassesInFloat) {
  const auto xd = normal_values(64 * 96, 1);
  const auto bd = normal_values(96, 2);
  const std::vector<float> x(xd.begin(), xd.end()), b(bd.begin(), bd.end());
  std::vector<float> unfused(x.size()), fused(x.size());
  kb::reference(x.data(), b.data(), unfused.data(), 64, 96);
  kb::fused_pass(x.data(), b.data(), fused.data(), 0, 64, 96);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(fused[i], unfused[i]) << i;
}

TEST(LayerNormReference, HandComputedRow) {
  // x + res = [1, 2, 3, 4]: mean 2.5, biased variance 1.25, y = (s - 2.5) / sqrt(1.25 + 1e-5).
  const std::vector<double> x{0.5, 1.0, 1.5, 2.0}, res{0.5, 1.0, 1.5, 2.0};
  const std::vector<double> gamma(4, 1.0), beta(4, 0.0);
  std::vector<double> s(4), y(4);
  kl::reference(x.data(), res.data(), gamma.data(), beta.data(), s.data(), y.data(), 1, 4);
  EXPECT_EQ(s, (std::vector<double>{1.0, 2.0, 3.0, 4.0}));
  EXPECT_NEAR(y[0], -1.3416354199689269, 1e-14);
  EXPECT_NEAR(y[1], -0.447211806656309, 1e-14);
  EXPECT_NEAR(y[2], 0.447211806656309, 1e-14);
  EXPECT_NEAR(y[3], 1.3416354199689269, 1e-14);
}

TEST(LayerNormReference, OutputHasMeanZeroAndVarianceOne) {
  const std::uint64_t rows = 16, cols = 1024;
  const auto x = normal_values(rows * cols, 3, 3.0);
  const auto res = normal_values(rows * cols, 4, 2.0);
  const std::vector<double> gamma(cols, 1.0), beta(cols, 0.0);
  std::vector<double> s(x.size()), y(x.size());
  kl::reference(x.data(), res.data(), gamma.data(), beta.data(), s.data(), y.data(), rows, cols);
  for (std::uint64_t r = 0; r < rows; ++r) {
    double mean = 0, sq = 0, var_s = 0, mean_s = 0;
    for (std::uint64_t c = 0; c < cols; ++c) mean += y[r * cols + c], mean_s += s[r * cols + c];
    mean /= cols;
    mean_s /= cols;
    for (std::uint64_t c = 0; c < cols; ++c) {
      sq += (y[r * cols + c] - mean) * (y[r * cols + c] - mean);
      var_s += (s[r * cols + c] - mean_s) * (s[r * cols + c] - mean_s);
    }
    var_s /= cols;
    EXPECT_NEAR(mean, 0.0, 1e-12) << r;
    // The biased variance is var / (var + eps), a hair below 1.
    EXPECT_NEAR(sq / cols, var_s / (var_s + kl::k_epsilon), 1e-12) << r;
    EXPECT_NEAR(sq / cols, 1.0, 1e-5) << r;
  }
}

TEST(LayerNormReference, GammaAndBetaApplyPerColumn) {
  const std::vector<double> x{1.0, 2.0, 3.0, 4.0}, res(4, 0.0);
  const std::vector<double> gamma{2.0, 2.0, -1.0, 0.0}, beta{3.0, 0.0, 1.0, 5.0};
  std::vector<double> s(4), y(4);
  kl::reference(x.data(), res.data(), gamma.data(), beta.data(), s.data(), y.data(), 1, 4);
  EXPECT_NEAR(y[0], 2.0 * -1.3416354199689269 + 3.0, 1e-13);
  EXPECT_NEAR(y[1], 2.0 * -0.447211806656309, 1e-13);
  EXPECT_NEAR(y[2], -0.447211806656309 + 1.0, 1e-13);
  EXPECT_EQ(y[3], 5.0);
}

TEST(LayerNormReference, FusedPassMatchesTheUnfusedPasses) {
  const std::uint64_t rows = 8, cols = 256;
  const auto x = normal_values(rows * cols, 5), res = normal_values(rows * cols, 6);
  const auto gamma = normal_values(cols, 7), beta = normal_values(cols, 8);
  std::vector<double> s1(x.size()), y1(x.size()), s2(x.size()), y2(x.size());
  kl::reference(x.data(), res.data(), gamma.data(), beta.data(), s1.data(), y1.data(), rows, cols);
  kl::fused_pass(x.data(), res.data(), gamma.data(), beta.data(), s2.data(), y2.data(), 0, rows,
                 cols);
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(y1, y2);
}

// LayerNorm v3 keeps the row in registers: the team of threads per row holds every column (at most
// k_v3_values_per_thread each), is a power of two from a warp to a block, and is the smallest such.
TEST(LayerNormV3, TeamPerRowHoldsTheRowInRegisters) {
  using gpubench::kernels::Precision;
  EXPECT_EQ(kl::v3_row_threads(768), 32u);
  EXPECT_EQ(kl::v3_row_threads(1024), 32u);
  EXPECT_EQ(kl::v3_row_threads(8192), 256u);
  EXPECT_EQ(kl::v3_row_threads(kl::k_max_cols), 512u);
  EXPECT_EQ(kl::v3_packs_per_thread(Precision::fp32), 8);
  EXPECT_EQ(kl::v3_packs_per_thread(Precision::bf16), 4);
  for (Precision p : {Precision::fp32, Precision::fp16, Precision::bf16}) {
    const std::uint64_t per_pack = gpubench::kernels::elements_per_128_bits(p);
    for (std::uint64_t cols = per_pack; cols <= kl::k_max_cols; cols += per_pack) {
      if (!kl::version_supports(kl::Version::v3, p, cols)) continue;
      const unsigned team = kl::v3_row_threads(cols);
      ASSERT_GE(team, 32u);
      ASSERT_LE(team, kl::k_v3_max_block_threads);
      // The block the launcher uses holds whole teams and stays within the kernel's
      // __launch_bounds__ (a wider block would fail to launch once ptxas relies on the bound).
      const unsigned block = kl::v3_block_threads(cols);
      ASSERT_LE(block, kl::k_v3_max_block_threads) << cols;
      ASSERT_EQ(block % team, 0u) << cols;
      ASSERT_EQ(team & (team - 1), 0u) << cols;
      const std::uint64_t packs = cols / per_pack;
      // Every pack has a register slot: ceil(packs / team) <= packs per thread.
      ASSERT_LE((packs + team - 1) / team, static_cast<std::uint64_t>(kl::v3_packs_per_thread(p)))
          << cols;
      // The smallest team: half of it would not hold the row.
      if (team > 32) {
        ASSERT_GT(packs, (team / 2) * kl::v3_packs_per_thread(p)) << cols;
      }
    }
  }
}

// LayerNorm v3 fp32 needs 122 registers on sm_90 (ptxas): its 512-thread blocks fit the 65,536
// registers of a block only because __launch_bounds__(512) caps the kernel at 128 per thread.
TEST(LayerNormV3, BlocksStayWithinTheLaunchBound) {
  EXPECT_EQ(kl::k_v3_max_block_threads, 512u);
  EXPECT_EQ(kl::v3_block_threads(1024), 256u);  // 8 rows of a warp each
  EXPECT_EQ(kl::v3_block_threads(8192), 256u);
  EXPECT_EQ(kl::v3_block_threads(8193), 512u);
  EXPECT_EQ(kl::v3_block_threads(kl::k_max_cols), 512u);
  // 128 registers per thread is the per-block register file (64 Ki) over the largest block.
  EXPECT_EQ(65536u / kl::k_v3_max_block_threads, 128u);
}

namespace kd = gpubench::kernels::device;

// The 2D grid of the scalar v1/v2 kernels (fusion_grid.hpp) launches as many blocks as the flat
// grid it replaced wherever cols is a multiple of a block (every suite shape), so removing the
// per-element 64-bit % and / changed nothing else about those baselines.
TEST(FusionGrid, TwoDimensionalGridMatchesTheFlatGridOnSuiteShapes) {
  const std::uint64_t shapes[][2] = {{8, 768},     {64, 1024},   {512, 2048},  {1024, 4096},
                                     {4096, 4096}, {4096, 8192}, {8192, 8192}, {16384, 8192}};
  for (const auto& s : shapes) {
    const kd::Grid2d g = kd::grid_2d_for(s[0], s[1]);
    EXPECT_EQ(std::uint64_t{g.x} * g.y, kd::grid_for(s[0] * s[1])) << s[0] << "x" << s[1];
    EXPECT_EQ(std::uint64_t{g.x} * kd::k_block_threads, s[1]) << "one thread per column";
  }
}

TEST(FusionGrid, TwoDimensionalGridRespectsTheLaunchLimits) {
  struct Case {
    std::uint64_t rows, cols;
    unsigned x, y;
  };
  for (const Case c :
       {Case{70001, 72, 1, 65535},  // taller than gridDim.y: rows loop round
        Case{1, kd::k_max_cols_2d, 1u << 20, 1}, Case{1000000000, 1024, 4, 65535},
        Case{1u << 20, 1u << 20, 4096, 256}, Case{0, 0, 1, 1}, Case{37, 1544, 7, 37}}) {
    const kd::Grid2d g = kd::grid_2d_for(c.rows, c.cols);
    EXPECT_EQ(g.x, c.x) << c.rows << "x" << c.cols;
    EXPECT_EQ(g.y, c.y) << c.rows << "x" << c.cols;
    EXPECT_LE(std::uint64_t{g.y}, kd::k_max_grid_y);
    EXPECT_LE(std::uint64_t{g.x} * g.y, kd::k_max_blocks);
  }
  // The 32-bit column index plus its stride cannot wrap at the widest row the kernels accept.
  const kd::Grid2d widest = kd::grid_2d_for(1, kd::k_max_cols_2d);
  EXPECT_LT(kd::k_max_cols_2d + std::uint64_t{widest.x} * kd::k_block_threads,
            std::uint64_t{1} << 32);
}

// The kernels' two loops (rows from blockIdx.y by gridDim.y, columns from
// blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x), replayed on the host over the
// grid grid_2d_for gives: every element exactly once, also when rows exceed gridDim.y's limit and
// cols is not a multiple of a block.
TEST(FusionGrid, TwoDimensionalLoopsVisitEveryElementOnce) {
  for (const auto& [rows, cols] :
       {std::pair<std::uint64_t, std::uint64_t>{70001, 3}, {37, 72}, {5, 1544}, {1, 1}}) {
    const kd::Grid2d g = kd::grid_2d_for(rows, cols);
    std::vector<int> visits(rows * cols, 0);
    const auto block = static_cast<std::uint32_t>(kd::k_block_threads);
    for (std::uint32_t by = 0; by < g.y; ++by) {
      for (std::uint32_t bx = 0; bx < g.x; ++bx) {
        for (std::uint32_t t = 0; t < block; ++t) {
          for (std::uint64_t r = by; r < rows; r += g.y) {
            for (std::uint32_t c = bx * block + t; c < cols; c += g.x * block)
              ++visits[r * cols + c];
          }
        }
      }
    }
    for (std::size_t i = 0; i < visits.size(); ++i)
      ASSERT_EQ(visits[i], 1) << rows << "x" << cols << " element " << i;
  }
}

// v1/v2 of bias_gelu and v1 of softmax index columns in 32 bits; the vector and warp-per-row
// versions do not.
TEST(FusionGrid, ScalarVersionsRefuseRowsWiderThanA32BitIndex) {
  using gpubench::kernels::Precision;
  const std::uint64_t too_wide = kd::k_max_cols_2d + 1;
  EXPECT_TRUE(kb::version_supports(kb::Version::v1, Precision::bf16, kd::k_max_cols_2d));
  EXPECT_FALSE(kb::version_supports(kb::Version::v1, Precision::bf16, too_wide));
  EXPECT_FALSE(kb::version_supports(kb::Version::v2, Precision::bf16, too_wide));
  EXPECT_TRUE(kb::version_supports(kb::Version::v3, Precision::bf16, too_wide));
  EXPECT_FALSE(ks::version_supports(ks::Version::v1, Precision::bf16, too_wide));
  EXPECT_TRUE(ks::version_supports(ks::Version::v2, Precision::bf16, too_wide));
  EXPECT_FALSE(ks::version_supports(ks::Version::v1, Precision::bf16, 0));
}

TEST(SoftmaxReference, HandComputedRow) {
  const std::vector<double> x{1.0, 2.0, 3.0};
  std::vector<double> y(3);
  double m = 0, s = 0;
  ks::reference(x.data(), y.data(), &m, &s, 1, 3);
  EXPECT_EQ(m, 3.0);
  EXPECT_NEAR(y[0], 0.09003057317038046, 1e-15);
  EXPECT_NEAR(y[1], 0.24472847105479767, 1e-15);
  EXPECT_NEAR(y[2], 0.6652409557748219, 1e-15);
}

TEST(SoftmaxReference, RowsSumToOneAndLargeInputsDoNotOverflow) {
  const std::uint64_t rows = 8, cols = 4096;
  auto x = normal_values(rows * cols, 9, 4.0);
  for (std::uint64_t c = 0; c < cols; ++c) x[c] += 1000.0;  // exp(1000) overflows a double
  std::vector<double> y(x.size()), m(rows), s(rows);
  ks::reference(x.data(), y.data(), m.data(), s.data(), rows, cols);
  for (std::uint64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (std::uint64_t c = 0; c < cols; ++c) {
      const double v = y[r * cols + c];
      ASSERT_TRUE(std::isfinite(v));
      ASSERT_GE(v, 0.0);
      sum += v;
    }
    EXPECT_NEAR(sum, 1.0, 1e-12) << r;
  }
}

TEST(SoftmaxReference, OnlineStatisticsEqualTheTwoPassOnes) {
  const std::uint64_t cols = 1000;
  const auto x = normal_values(cols, 10, 3.0);
  double m2 = 0, s2 = 0, m1 = 0, s1 = 0;
  ks::max_pass(x.data(), &m2, 0, 1, cols);
  ks::sum_pass(x.data(), &m2, &s2, 0, 1, cols);
  ks::online_stats(x.data(), cols, m1, s1);
  EXPECT_EQ(m1, m2);
  EXPECT_NEAR(s1, s2, 1e-12 * s2);
  std::vector<double> fused(cols), unfused(cols), mm(1), ss(1);
  ks::fused_pass(x.data(), fused.data(), 0, 1, cols);
  ks::reference(x.data(), unfused.data(), mm.data(), ss.data(), 1, cols);
  for (std::uint64_t c = 0; c < cols; ++c) EXPECT_NEAR(fused[c], unfused[c], 1e-15) << c;
}

TEST(Tolerances, AreMultiplesOfTheUnitRoundoffForHalfTypes) {
  using gpubench::kernels::Precision;
  EXPECT_DOUBLE_EQ(kb::tolerance(Precision::bf16), 4.0 * 0.00390625);
  EXPECT_DOUBLE_EQ(kb::tolerance(Precision::fp16), 4.0 * 0.00048828125);
  EXPECT_EQ(kb::tolerance(Precision::fp32), 1e-5);
  EXPECT_LT(ks::tolerance(Precision::fp32), ks::tolerance(Precision::fp16));
  EXPECT_LT(kl::tolerance(Precision::fp16), kl::tolerance(Precision::bf16));
}

}  // namespace
