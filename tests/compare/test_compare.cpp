// Verdicts on synthetic sides (fixtures): known effects must be found, no effect must not be
// called, and the rules for too few samples, unknown direction, throttling and units hold.
#include <gtest/gtest.h>

#include "compare/compare.hpp"
#include "fixtures.hpp"
#include "util/error.hpp"

using namespace gpubench::compare;
using namespace gpubench::compare::testing;
using gpubench::results::Direction;

namespace {

Side side(const std::string& sel, int64_t id, std::vector<gpubench::results::ResultRow> rows,
          const std::string& driver = "560.1") {
  Side s;
  s.selection = sel;
  s.runs.push_back(run_detail(id, driver));
  s.results = std::move(rows);
  return s;
}

const Entry& find(const Comparison& c, const std::string& bench) {
  for (const Entry& e : c.entries) {
    if (e.key.benchmark == bench) return e;
  }
  throw std::runtime_error("no entry " + bench);
}

}  // namespace

TEST(Compare, KnownEffectsAndDirections) {
  Side a = side(
      "A", 1,
      {row("memory/copy", "GB_per_s", "GB/s", Direction::higher, normal_samples(100, 0.005, 10, 1)),
       row("memory/triad", "GB_per_s", "GB/s", Direction::higher,
           normal_samples(100, 0.005, 10, 2)),
       row("launch/graph", "real_time", "ns", Direction::lower, normal_samples(1000, 0.005, 10, 3)),
       row("launch/same", "real_time", "ns", Direction::lower, normal_samples(1000, 0.005, 10, 4)),
       row("x/foreign", "items", "1", Direction::unknown, normal_samples(50, 0.005, 10, 5))},
      "550.1");
  Side b = side(
      "B", 2,
      {row("memory/copy", "GB_per_s", "GB/s", Direction::higher, normal_samples(90, 0.005, 10, 11)),
       row("memory/triad", "GB_per_s", "GB/s", Direction::higher,
           normal_samples(110, 0.005, 10, 12)),
       row("launch/graph", "real_time", "ns", Direction::lower,
           normal_samples(1100, 0.005, 10, 13)),
       row("launch/same", "real_time", "ns", Direction::lower, normal_samples(1000, 0.005, 10, 14)),
       row("x/foreign", "items", "1", Direction::unknown, normal_samples(60, 0.005, 10, 15))});
  Comparison c = compare_sides(a, b, Options{});
  EXPECT_EQ(find(c, "memory/copy").verdict, Verdict::regression);
  EXPECT_EQ(find(c, "memory/triad").verdict, Verdict::improvement);
  EXPECT_EQ(find(c, "launch/graph").verdict, Verdict::regression);  // time up = worse
  EXPECT_EQ(find(c, "launch/same").verdict, Verdict::unchanged);
  EXPECT_EQ(find(c, "x/foreign").verdict, Verdict::changed);  // no good/bad for unknown
  EXPECT_EQ(c.exit_code(FailOn::regression), 1);
  EXPECT_EQ(c.exit_code(FailOn::never), 0);
  ASSERT_EQ(c.env_differences.size(), 1u);
  EXPECT_EQ(c.env_differences[0].field, "driver");
  EXPECT_EQ(c.env_differences[0].base, "550.1");
  EXPECT_EQ(c.env_differences[0].candidate, "560.1");
  // Suite summary: memory has one -10% and one +10%: geomean speed-up about 0.99-1.0.
  ASSERT_EQ(c.suites.size(), 3u);
  EXPECT_EQ(c.suites[1].suite, "memory");
  EXPECT_NEAR(c.suites[1].geomean, std::sqrt(0.9 * 1.1), 0.01);
  EXPECT_LT(c.suites[1].geomean_low, c.suites[1].geomean);
}

TEST(Compare, NeverConfidentFromTwoSamples) {
  Side a = side("A", 1, {row("s/b", "GB_per_s", "GB/s", Direction::higher, {100, 100.1})});
  Side b = side("B", 2, {row("s/b", "GB_per_s", "GB/s", Direction::higher, {50, 50.1})});
  Comparison c = compare_sides(a, b, Options{});
  EXPECT_EQ(c.entries[0].verdict, Verdict::inconclusive);
  EXPECT_NE(c.entries[0].reason.find("too few samples"), std::string::npos);
  EXPECT_NEAR(c.entries[0].ratio, 0.5, 1e-3);  // change figures are still shown
}

TEST(Compare, NoiseWidensTheIntervalNotTheThreshold) {
  // CV 10%, 3 samples: a 5% shift cannot be told from noise, and the threshold stays 2%.
  Side a = side("A", 1, {row("s/b", "GB_per_s", "GB/s", Direction::higher, {90, 100, 110})});
  Side b = side("B", 2, {row("s/b", "GB_per_s", "GB/s", Direction::higher, {95, 105, 115})});
  Comparison c = compare_sides(a, b, Options{});
  EXPECT_EQ(c.entries[0].verdict, Verdict::inconclusive);
  EXPECT_DOUBLE_EQ(c.entries[0].delta, 0.02);
  EXPECT_LT(c.entries[0].ci_low, 1.0);
  EXPECT_GT(c.entries[0].ci_high, 1.1);
  EXPECT_NE(c.entries[0].reason.find("would decide it"), std::string::npos) << c.entries[0].reason;
}

TEST(Compare, OneOutlierRepetitionDoesNotHideAChange) {
  // 10% faster candidate; the base has one slow outlier repetition (fixture values).
  std::vector<double> base = normal_samples(1.0, 0.01, 12, 5);
  base[1] = 1.2;
  Side a = side("A", 1, {row("s/b", "real_time", "ns", Direction::lower, base)});
  Side b = side(
      "B", 2, {row("s/b", "real_time", "ns", Direction::lower, normal_samples(0.9, 0.01, 12, 6))});
  Comparison c = compare_sides(a, b, Options{});
  EXPECT_EQ(c.entries[0].verdict, Verdict::improvement) << c.entries[0].reason;
  EXPECT_DOUBLE_EQ(c.entries[0].delta, 0.02);
}

TEST(Compare, ThrottledAndErrorsAreInvalid) {
  auto throttled =
      row("s/t", "GB_per_s", "GB/s", Direction::higher, normal_samples(100, 0.01, 5, 1));
  throttled.throttled[2] = 1;
  auto failed = row("s/e", "GB_per_s", "GB/s", Direction::higher, {});
  failed.status = gpubench::results::BenchmarkStatus::error;
  failed.message = "validation failed: max error 0.5";
  auto skipped = row("s/k", "GB_per_s", "GB/s", Direction::higher, {});
  skipped.status = gpubench::results::BenchmarkStatus::skipped;
  skipped.message = "skipped: no CUDA device";
  Side a = side("A", 1,
                {throttled, row("s/e", "GB_per_s", "GB/s", Direction::higher, {1, 2, 3}),
                 row("s/k", "GB_per_s", "GB/s", Direction::higher, {1, 2, 3}),
                 row("s/old", "GB_per_s", "GB/s", Direction::higher, {1, 2, 3})});
  Side b = side("B", 2,
                {row("s/t", "GB_per_s", "GB/s", Direction::higher, normal_samples(100, 0.01, 5, 2)),
                 failed, skipped, row("s/new", "GB_per_s", "GB/s", Direction::higher, {1, 2, 3})});
  Comparison c = compare_sides(a, b, Options{});
  EXPECT_EQ(find(c, "s/t").verdict, Verdict::invalid);
  EXPECT_EQ(find(c, "s/e").verdict, Verdict::invalid);
  EXPECT_NE(find(c, "s/e").reason.find("validation failed"), std::string::npos);
  ASSERT_EQ(c.skipped.size(), 1u);
  EXPECT_NE(c.skipped[0].reason.find("no CUDA device"), std::string::npos);
  ASSERT_EQ(c.added.size(), 1u);
  EXPECT_EQ(c.added[0].key.benchmark, "s/new");
  ASSERT_EQ(c.removed.size(), 1u);
  EXPECT_EQ(c.removed[0].key.benchmark, "s/old");
}

TEST(Compare, ThresholdsFileOverridesAndIgnores) {
  Thresholds t = Thresholds::parse("s/*  20%\ns/ignored ignore\n", "fixture");
  Side a =
      side("A", 1,
           {row("s/b", "GB_per_s", "GB/s", Direction::higher, normal_samples(100, 0.001, 8, 1)),
            row("s/ignored", "GB_per_s", "GB/s", Direction::higher, {1, 2, 3})});
  Side b = side("B", 2,
                {row("s/b", "GB_per_s", "GB/s", Direction::higher, normal_samples(90, 0.001, 8, 2)),
                 row("s/ignored", "GB_per_s", "GB/s", Direction::higher, {1, 2, 3})});
  Options o;
  o.thresholds = &t;
  Comparison c = compare_sides(a, b, o);
  // -10% is within the 20% threshold: significant but not beyond it.
  EXPECT_NE(find(c, "s/b").verdict, Verdict::regression);
  EXPECT_DOUBLE_EQ(find(c, "s/b").delta, 0.2);
  ASSERT_EQ(c.skipped.size(), 1u);
  EXPECT_NE(c.skipped[0].reason.find("line 2"), std::string::npos);
}

TEST(Compare, BadInput) {
  Side a = side("A", 1, {row("s/b", "GB_per_s", "GB/s", Direction::higher, {1, 2, 3})});
  Side units = side("B", 2, {row("s/b", "GB_per_s", "MB/s", Direction::higher, {1, 2, 3})});
  try {
    compare_sides(a, units, Options{});
    FAIL() << "different units must be refused";
  } catch (const gpubench::Error& e) {
    EXPECT_EQ(e.code(), gpubench::ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("MB/s"), std::string::npos);
  }
  Side other = side("B", 2, {row("t/c", "GB_per_s", "GB/s", Direction::higher, {1, 2, 3})});
  try {
    compare_sides(a, other, Options{});
    FAIL() << "no benchmark in common must be refused";
  } catch (const gpubench::Error& e) {
    EXPECT_EQ(e.code(), gpubench::ExitCode::bad_input);
  }
}

TEST(Compare, AaFalsePositiveRateOnFixtures) {
  // 2000 A/A series (CV 2%, 10 samples a side): with alpha 0.01, BH and the noise margin, none
  // may be called a regression (the issue targets < 1%).
  std::vector<gpubench::results::ResultRow> ra, rb;
  for (int i = 0; i < 2000; ++i) {
    std::string name = "s/b" + std::to_string(i);
    ra.push_back(row(name, "GB_per_s", "GB/s", Direction::higher,
                     normal_samples(100, 0.02, 10, static_cast<unsigned>(2 * i + 1))));
    rb.push_back(row(name, "GB_per_s", "GB/s", Direction::higher,
                     normal_samples(100, 0.02, 10, static_cast<unsigned>(2 * i + 2))));
  }
  Comparison c = compare_sides(side("A", 1, ra), side("B", 2, rb), Options{});
  // 0 with BH; deciding on p instead of q calls 11 of them (issue 35's mutation test), so the
  // bound is tight enough to catch that, not just the 1% target (20).
  EXPECT_LE(c.count(Verdict::regression) + c.count(Verdict::improvement), 2u);
}

// Benjamini-Hochberg is a rule of its own (issue 35, "Tests that would catch a broken rule"):
// deciding on p instead of q must fail here. One real change whose p is just under alpha stands
// among identical series: over the whole comparison its q is p * m, so it is inconclusive with
// the BH reason; compared alone (m = 1, q = p) the same samples are a regression.
TEST(Compare, BenjaminiHochbergHoldsOneSmallPAmongIdenticalSeries) {
  const std::vector<double> pattern = {0.98, 0.99, 1.00, 1.01, 1.02};
  const double ratio = 0.962;  // the candidate is 3.8% slower: p between 0.001 and 0.01 (below)
  std::vector<double> base, candidate;
  for (double x : pattern) {
    base.push_back(100.0 * x);
    candidate.push_back(100.0 * x * ratio);
  }
  auto changed = [&](std::vector<double> values) {
    return row("s/changed", "GB_per_s", "GB/s", Direction::higher, std::move(values));
  };
  std::vector<gpubench::results::ResultRow> ra = {changed(base)}, rb = {changed(candidate)};
  for (int i = 0; i < 99; ++i) {
    const std::string name = "s/same" + std::to_string(i);
    ra.push_back(row(name, "GB_per_s", "GB/s", Direction::higher, base));
    rb.push_back(row(name, "GB_per_s", "GB/s", Direction::higher, base));
  }
  const Options options{};
  const Comparison all = compare_sides(side("A", 1, ra), side("B", 2, rb), options);
  const Entry& among = find(all, "s/changed");
  ASSERT_LT(among.p_value, options.alpha);  // p alone would call it
  ASSERT_GT(among.p_value, 0.001);          // and q = 100 p is well above alpha
  EXPECT_GE(among.q_value, options.alpha);
  EXPECT_EQ(among.verdict, Verdict::inconclusive);
  EXPECT_NE(among.reason.find("Benjamini-Hochberg over 100 series"), std::string::npos)
      << among.reason;
  EXPECT_EQ(all.count(Verdict::regression), 0u);

  const Comparison alone = compare_sides(side("A", 1, {changed(base)}),
                                         side("B", 2, {changed(candidate)}), options);
  const Entry& single = find(alone, "s/changed");
  EXPECT_DOUBLE_EQ(single.p_value, among.p_value);
  EXPECT_EQ(single.verdict, Verdict::regression) << single.reason;
}
