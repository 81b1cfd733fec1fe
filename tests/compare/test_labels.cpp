// Readable reports (issue 9): short, unique chart labels; numeric ordering; the "why" column in
// plain words; one verdict per benchmark (primary metrics) in counts and suite summaries.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "compare/render/render.hpp"
#include "compare/render/svg.hpp"
#include "fixtures.hpp"
#include "util/text_width.hpp"

using namespace gpubench::compare;
using namespace gpubench::compare::testing;
using gpubench::results::Direction;
using gpubench::results::MetricRole;

TEST(Labels, ShortNumbers) {
  EXPECT_EQ(svg::short_number("67108864"), "64Mi");
  EXPECT_EQ(svg::short_number("1000000"), "1M");
  EXPECT_EQ(svg::short_number("250000"), "250k");
  EXPECT_EQ(svg::short_number("1024"), "1024");  // small numbers stay as written
  EXPECT_EQ(svg::short_number("123457"), "123457");
  EXPECT_EQ(svg::short_number("fp16"), "fp16");
}

TEST(Labels, NaturalOrder) {
  EXPECT_TRUE(svg::natural_less("x/bytes:250000", "x/bytes:1000000"));
  EXPECT_FALSE(svg::natural_less("x/bytes:1000000", "x/bytes:250000"));
  EXPECT_TRUE(svg::natural_less("a/m:8/n:2", "a/m:16/n:1"));
  EXPECT_TRUE(svg::natural_less("a", "b"));
}

TEST(Labels, CompactLabelsDropNoiseAndStayUnique) {
  std::vector<std::string> names = {
      "calibration/hash_chain/base_units:250000/iterations:16/manual_time",
      "calibration/hash_chain/base_units:1000000/iterations:4/manual_time",
      "calibration/mul_add_chain/base_units:1000000/iterations:4/manual_time"};
  std::vector<std::string> labels =
      svg::compact_labels(names, {"calls_per_s host", "calls_per_s host", "calls_per_s host"});
  EXPECT_EQ(labels,
            (std::vector<std::string>{"hash_chain/base_units:250k", "hash_chain/base_units:1M",
                                      "mul_add_chain/base_units:1M"}));
  // Shortening that would merge two rows keeps the digits.
  std::vector<std::string> close =
      svg::compact_labels({"m/c/bytes:1000000", "m/c/bytes:1000001"}, {"", ""});
  EXPECT_NE(close[0], close[1]);
  // Suffixes that differ are kept.
  std::vector<std::string> dev = svg::compact_labels({"m/c/x:1", "m/c/x:1"}, {"gpu0", "gpu1"});
  EXPECT_EQ(dev, (std::vector<std::string>{"x:1 gpu0", "x:1 gpu1"}));
}

namespace {

Side side_with(const std::string& sel, double scale, unsigned seed) {
  Side s;
  s.selection = sel;
  s.runs.push_back(run_detail(seed, "560"));
  s.runs.back().run.status = gpubench::results::RunStatus::complete;
  for (int b = 0; b < 3; ++b) {
    std::string name = "calibration/c" + std::to_string(b) + "/base_units:1000";
    auto rate = row(name, "calls_per_s", "calls/s", Direction::higher,
                    normal_samples(1000 / scale, 0.003, 8, seed + b), std::nullopt);
    rate.role = MetricRole::primary;
    auto ms = row(name, "ms_per_call", "ms", Direction::lower,
                  normal_samples(1.0 * scale, 0.003, 8, seed + 10 + b), std::nullopt);
    ms.role = MetricRole::secondary;
    auto rt = row(name, "real_time", "ns", Direction::lower,
                  normal_samples(1e6 * scale, 0.003, 8, seed + 20 + b), std::nullopt);
    rt.role = MetricRole::secondary;
    auto units = row(name, "work_units", "units", Direction::unknown,
                     std::vector<double>(8, 1000.0 * scale), std::nullopt);
    units.role = MetricRole::parameter;
    for (auto* r : {&rate, &ms, &rt, &units}) {
      r->suite_run_id = static_cast<int64_t>(seed);
      s.results.push_back(*r);
    }
  }
  return s;
}

}  // namespace

TEST(PrimaryMetrics, OneVerdictPerBenchmark) {
  Comparison cmp = compare_sides(side_with("a", 1.0, 1), side_with("b", 1.1, 100), Options{});
  // 3 benchmarks x (calls_per_s, ms_per_call, real_time); work_units is never compared.
  EXPECT_EQ(cmp.entries.size(), 9u);
  for (const Entry& e : cmp.entries) EXPECT_NE(e.key.metric, "work_units");
  EXPECT_EQ(cmp.count(Verdict::regression), 3u);
  ASSERT_EQ(cmp.suites.size(), 1u);
  EXPECT_EQ(cmp.suites[0].compared, 3u);
  EXPECT_EQ(cmp.suites[0].count(Verdict::regression), 3u);
  EXPECT_EQ(cmp.exit_code(FailOn::regression), 1);
  std::ostringstream text;
  render_text(cmp, text, false);
  EXPECT_NE(text.str().find("verdicts: 3 regression"), std::string::npos) << text.str();
  // Issue 39: secondary metrics counted by default, listed with --all.
  EXPECT_NE(text.str().find("secondary metrics: 6 entries (6 regression), not counted"),
            std::string::npos)
      << text.str();
  EXPECT_EQ(text.str().find("ms_per_call"), std::string::npos) << text.str();
  std::ostringstream all;
  render_text(cmp, all, false, Detail::all);
  EXPECT_NE(all.str().find("secondary metrics (6, shown, not counted"), std::string::npos)
      << all.str();
  EXPECT_NE(all.str().find("ms_per_call"), std::string::npos) << all.str();
  std::ostringstream junit;
  render_junit(cmp, junit);
  EXPECT_NE(junit.str().find("tests=\"3\" failures=\"3\""), std::string::npos) << junit.str();
}

TEST(PrimaryMetrics, WhyInPlainWords) {
  Comparison cmp = compare_sides(side_with("a", 1.0, 1), side_with("b", 1.1, 100), Options{});
  for (const Entry& e : cmp.entries) {
    if (!e.primary) continue;
    std::string why = plain_why(e, 0.99);
    EXPECT_NE(why.find("% worse, between "), std::string::npos) << why;
    EXPECT_NE(why.find("with 99% confidence"), std::string::npos) << why;
    EXPECT_EQ(why.find("q="), std::string::npos) << why;
    EXPECT_EQ(why.find("+-"), std::string::npos) << why;
  }
}

TEST(PrimaryMetrics, SuiteNoteExplainsAnAverageWithoutVerdicts) {
  SuiteSummary s;
  s.geomean = 0.918;
  s.geomean_low = 0.887;
  s.geomean_high = 0.950;
  s.geomean_count = 5;
  EXPECT_NE(suite_note(s).find("no single benchmark beyond its own margin"), std::string::npos);
  s.counts[static_cast<std::size_t>(Verdict::regression)] = 2;
  EXPECT_EQ(suite_note(s), "");
}

TEST(PrimaryMetrics, ProblemsComeFirstInEveryFormat) {
  Side bad = side_with("b", 1.0, 100);
  bad.runs[0].run.status = gpubench::results::RunStatus::interrupted;
  Comparison cmp = compare_sides(side_with("a", 1.0, 1), bad, Options{});
  ASSERT_EQ(cmp.problems.size(), 1u);
  EXPECT_NE(cmp.problems[0].find("candidate run 100 was interrupted"), std::string::npos);
  for (Format f :
       {Format::text, Format::md, Format::html, Format::json, Format::junit, Format::csv}) {
    std::ostringstream out;
    render_comparison(cmp, f, out);
    EXPECT_NE(out.str().find("candidate run 100 was interrupted"), std::string::npos)
        << to_string(f);
  }
}

// Issue 26: on an axis from 0.019x to 1.1x the old ticks (lo, its midpoint with 1, 1, 1.05, hi)
// drew "1.000×1.050×1.100×" on top of each other. Every kept label clears its neighbours.
TEST(RatioTicks, LabelsNeverOverlapOnAWideAxis) {
  for (const auto& [lo, hi] : std::vector<std::pair<double, double>>{
           {0.019, 1.1}, {0.9, 1.1}, {0.5, 60.0}, {0.001, 1000.0}}) {
    SCOPED_TRACE(std::to_string(lo) + " " + std::to_string(hi));
    const double left = 100, plot = 420;
    auto x = [&](double v) { return left + std::log(v / lo) / std::log(hi / lo) * plot; };
    const std::vector<double> ticks = svg::ratio_ticks(lo, hi, x, left - 8, left + plot + 30);
    ASSERT_GE(ticks.size(), 2u);
    EXPECT_NE(std::find(ticks.begin(), ticks.end(), 1.0), ticks.end());  // no change is marked
    for (std::size_t i = 1; i < ticks.size(); ++i) {
      const double half_a = svg::k_tick_char_w * 0.5 *
                            static_cast<double>(svg::ratio_tick_text(ticks[i - 1]).size() - 1);
      const double half_b =
          svg::k_tick_char_w * 0.5 * static_cast<double>(svg::ratio_tick_text(ticks[i]).size() - 1);
      EXPECT_GE(x(ticks[i]) - x(ticks[i - 1]), half_a + half_b + svg::k_tick_gap - 1e-9)
          << svg::ratio_tick_text(ticks[i - 1]) << " " << svg::ratio_tick_text(ticks[i]);
    }
  }
  EXPECT_EQ(svg::ratio_tick_text(1.05), "1.05×");
  // No trailing zeros (issue 26): "1×", not "1.00×".
  EXPECT_EQ(svg::ratio_tick_text(1.0), "1×");
  EXPECT_EQ(svg::ratio_tick_text(1.1), "1.1×");
  EXPECT_EQ(svg::ratio_tick_text(0.019), "0.019×");
  EXPECT_EQ(svg::ratio_tick_text(60.0), "60×");
}

// Issue 39: what every name shares is printed once; the rows keep what tells them apart.
TEST(Labels, ShortNamesDropWhatEveryNameShares) {
  gpubench::set_output_width(120);
  const ShortNames same_shape =
      short_names({"gemm/cublaslt/dtype:bf16/m:8192/layout:nn/device:0/manual_time",
                   "gemm/cublaslt/dtype:fp8/m:8192/layout:nn/device:3/manual_time"},
                  Shorten::when_width_limited);
  EXPECT_EQ(same_shape.pattern, "gemm/cublaslt/dtype:*/m:8192/layout:nn/device:*");
  EXPECT_EQ(same_shape.name.at("gemm/cublaslt/dtype:fp8/m:8192/layout:nn/device:3/manual_time"),
            "dtype:fp8/device:3");
  // Names of different shapes: only the shared leading segments go.
  const ShortNames ragged =
      short_names({"memory/triad/bytes:1024", "memory/copy"}, Shorten::when_width_limited);
  EXPECT_EQ(ragged.pattern, "memory/*");
  EXPECT_EQ(ragged.name.at("memory/triad/bytes:1024"), "triad/bytes:1024");
  // Names that differ only in what would be dropped stay whole.
  const ShortNames control =
      short_names({"a/b/iterations:10", "a/b/iterations:20"}, Shorten::when_width_limited);
  EXPECT_EQ(control.pattern, "");
  EXPECT_EQ(control.name.at("a/b/iterations:10"), "a/b/iterations:10");
  // --wide: whole names in text; Markdown shortens regardless.
  gpubench::set_output_width(0);
  EXPECT_EQ(short_names({"x/a:1", "x/a:2"}, Shorten::when_width_limited).pattern, "");
  EXPECT_EQ(short_names({"x/a:1", "x/a:2"}, Shorten::always).pattern, "x/a:*");
}

TEST(Labels, GpuUuidsCutToTheShortestUniquePrefix) {
  const auto s = short_uuids({"GPU-5f3a9c1e-1111-2222", "GPU-77aa0000-1111-2222",
                              "GPU-FIXTURE-00000003", "GPU-FIXTURE-00000004", "GPU-1"});
  EXPECT_EQ(s.at("GPU-5f3a9c1e-1111-2222"), "GPU-5f3a9c1e");
  EXPECT_EQ(s.at("GPU-FIXTURE-00000003"), "GPU-FIXTURE-00000003");
  EXPECT_EQ(s.at("GPU-1"), "GPU-1");
  EXPECT_EQ(run_ref(7, "23285c63-88c4-432e"), "7 (23285c63)");
  EXPECT_EQ(run_ref(7, ""), "7");
}

// Issue 39: failing entries worst first; per-GPU verdicts name the failing GPU and count the rest.
TEST(Labels, SeverityOrderAndPerGpuVerdicts) {
  Comparison cmp;
  const auto add = [&](const std::string& device, Verdict v, double ratio) {
    Entry e;
    e.key = {"s", "s/b/" + device, "items_per_s", device};
    e.direction = Direction::higher;
    e.verdict = v;
    e.ratio = ratio;
    e.candidate.gpu_uuid = "GPU-0000000" + device.substr(3);
    cmp.entries.push_back(e);
  };
  add("gpu0", Verdict::unchanged, 1.0);
  add("gpu1", Verdict::regression, 0.95);
  add("gpu2", Verdict::improvement, 1.05);
  add("gpu3", Verdict::regression, 0.80);
  add("gpu4", Verdict::missing, NAN);
  std::vector<const Entry*> all;
  for (const Entry& e : cmp.entries) all.push_back(&e);
  const std::vector<const Entry*> sorted = by_severity(all);
  std::vector<std::string> order;
  for (const Entry* e : sorted) order.push_back(e->key.device);
  EXPECT_EQ(order, (std::vector<std::string>{"gpu3", "gpu1", "gpu4", "gpu2", "gpu0"}));
  EXPECT_EQ(gpu_verdicts(cmp),
            "gpu1 GPU-00000001: FAIL (1 regression); gpu3 GPU-00000003: FAIL (1 regression); "
            "3 GPUs PASS");
  cmp.options.fail_on = FailOn::inconclusive;
  EXPECT_EQ(gpu_verdicts(cmp),
            "gpu1 GPU-00000001: FAIL (1 regression); gpu3 GPU-00000003: FAIL (1 regression); "
            "gpu4 GPU-00000004: FAIL (1 missing); 2 GPUs PASS");
  cmp.options.fail_on = FailOn::never;
  EXPECT_NE(gpu_verdicts(cmp).find("gpu1 GPU-00000001: would FAIL (1 regression)"),
            std::string::npos);
}
