// The seven defects of issue 8 as regression tests (fixture data, not measurements): each case
// failed with the margin-based rules and must keep passing.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "compare/compare.hpp"
#include "compare/render/render.hpp"
#include "compare/stats/stats.hpp"
#include "compare/tools/simulate.hpp"
#include "fixtures.hpp"

namespace gpubench::compare {
namespace {

using results::Direction;
using testing::normal_samples;
using testing::row;

Side side_of(const std::string& sel, int64_t id, std::vector<results::ResultRow> rows) {
  Side s;
  s.selection = sel;
  s.runs.push_back(testing::run_detail(id, "560.1"));
  s.results = std::move(rows);
  return s;
}

Comparison one(std::vector<double> base, std::vector<double> cand,
               Direction direction = Direction::lower, const Options& o = Options{}) {
  return compare_sides(side_of("A", 1, {row("s/b", "real_time", "ns", direction, std::move(base))}),
                       side_of("B", 2, {row("s/b", "real_time", "ns", direction, std::move(cand))}),
                       o);
}

std::vector<double> scaled(std::vector<double> v, double k) {
  for (double& x : v) x *= k;
  return v;
}

}  // namespace

// 1. A significant, large change was "unchanged" because delta = 3 x CV did not shrink with n.
TEST(Defects, SignificantLargeChangeIsARegressionNotUnchanged) {
  std::vector<double> base = normal_samples(100, 0.08, 10, 11);
  std::vector<double> cand = scaled(normal_samples(100, 0.08, 10, 12), 1.173);
  Comparison c = one(base, cand);
  const Entry& e = c.entries.at(0);
  EXPECT_GT(e.ci_low, 1.0) << e.reason;
  EXPECT_EQ(e.verdict, Verdict::regression) << e.reason;
  EXPECT_DOUBLE_EQ(e.delta, 0.02);
}

// 1b. With history: a true +10% change at 3% run-to-run noise, one run a side, is never called
// unchanged (it was in 59 of 120 trials): the history goes into the interval, not the margin.
TEST(Defects, TenPercentAtThreePercentRunToRunIsNeverUnchanged) {
  sim::Generator gen(2024);
  int unchanged = 0, regression = 0, improvement = 0;
  for (int trial = 0; trial < 120; ++trial) {
    std::vector<double> logs;
    for (int k = 0; k < 10; ++k) {
      logs.push_back(std::log(median(gen.run(1.0, 0.01, 10, sim::Shape::lognormal, 0.03))));
    }
    HistoryNoise history;
    history[Key{"s", "s/b", "real_time", "gpu0"}] = SeriesNoise{stddev(logs), 10, 0, 0, true, ""};
    Options o;
    o.history = &history;
    Comparison c = one(gen.run(1.0, 0.01, 10, sim::Shape::lognormal, 0.03),
                       gen.run(1.1, 0.01, 10, sim::Shape::lognormal, 0.03), Direction::lower, o);
    const Entry& e = c.entries.at(0);
    ASSERT_TRUE(e.history);
    unchanged += e.verdict == Verdict::unchanged;
    regression += e.verdict == Verdict::regression;
    improvement += e.verdict == Verdict::improvement;
  }
  EXPECT_EQ(unchanged, 0);
  EXPECT_EQ(improvement, 0);
  EXPECT_GT(regression, 0);  // some are decided; the rest are inconclusive, never a false answer
}

// 2. The interval was centred on the ratio of medians while p came from the mean of logs; a
// skewed sample put "regression" on an interval that included 1. Now one statistic: the point
// is inside its interval, and p < 0.01 exactly when the 99% interval excludes 1.
TEST(Defects, IntervalAndTestAgree) {
  std::vector<double> base = {100, 100.5, 101, 99.5, 120, 121, 99.8};
  std::vector<double> cand = {101, 101.5, 100.8, 122, 123, 124, 121.5};
  Comparison c = one(base, cand);
  const Entry& e = c.entries.at(0);
  EXPECT_LE(e.ci_low, e.ratio);
  EXPECT_GE(e.ci_high, e.ratio);
  EXPECT_EQ(e.p_value<0.01, e.ci_low> 1.0 || e.ci_high < 1.0);
  if (e.verdict == Verdict::regression) {
    EXPECT_GT(e.ci_low, 1.0);
  }
}

// 4. One or two outliers removed all power: +20.7% at CV 1.2%, n = 14.
TEST(Defects, OutliersDoNotHideA20PercentChange) {
  std::vector<double> base = normal_samples(100, 0.012, 14, 31);
  std::vector<double> cand = scaled(normal_samples(100, 0.012, 14, 32), 1.207);
  base[3] *= 3;
  cand[5] *= 3;
  cand[9] *= 3;
  Comparison c = one(base, cand);
  EXPECT_EQ(c.entries.at(0).verdict, Verdict::regression) << c.entries.at(0).reason;
  EXPECT_NEAR(c.entries.at(0).ratio, 1.207, 0.02);
}

// 5. A side without samples looked like a result (median 0, ratio 1, [1, 1], p = q = 1) and
// entered the geometric mean; 1-2 samples gave a zero-width interval.
TEST(Defects, MissingAndTooFewSamplesAreNotResults) {
  Side a =
      side_of("A", 1,
              {row("s/none", "real_time", "ns", Direction::lower, {}),
               row("s/two", "real_time", "ns", Direction::lower, {100, 101}),
               row("s/ok", "real_time", "ns", Direction::lower, normal_samples(100, 0.01, 5, 1))});
  Side b =
      side_of("B", 2,
              {row("s/none", "real_time", "ns", Direction::lower, {100, 101, 102}),
               row("s/two", "real_time", "ns", Direction::lower, {150, 151}),
               row("s/ok", "real_time", "ns", Direction::lower, normal_samples(100, 0.01, 5, 2))});
  Comparison c = compare_sides(a, b, Options{});
  ASSERT_EQ(c.entries.size(), 3u);
  const Entry& none = c.entries[0];
  ASSERT_EQ(none.key.benchmark, "s/none");
  EXPECT_EQ(none.verdict, Verdict::missing);
  EXPECT_TRUE(std::isnan(none.ratio));
  EXPECT_TRUE(std::isnan(none.base.median));
  const Entry& two = c.entries[2];
  ASSERT_EQ(two.key.benchmark, "s/two");
  EXPECT_EQ(two.verdict, Verdict::inconclusive);
  EXPECT_TRUE(std::isnan(two.ci_low) && std::isnan(two.ci_high) && std::isnan(two.p_value));
  ASSERT_EQ(c.suites.size(), 1u);
  EXPECT_EQ(c.suites[0].geomean_count, 1u);  // only s/ok
  EXPECT_EQ(c.suites[0].count(Verdict::missing), 1u);

  std::ostringstream json;
  render_json(c, json);
  nlohmann::json doc = nlohmann::json::parse(json.str());
  const nlohmann::json& r0 = doc["results"][0];
  for (const char* k : {"ratio", "ci_low", "ci_high", "p_value", "q_value"}) {
    EXPECT_TRUE(r0[k].is_null()) << k;
  }
  EXPECT_TRUE(r0["base"]["median"].is_null());
  EXPECT_EQ(r0["verdict"], "missing");
  EXPECT_TRUE(doc["results"][2]["ci_low"].is_null());
  EXPECT_EQ(doc["suites"][0]["speedup_count"], 1);
  std::ostringstream text;
  render_text(c, text, false);
  EXPECT_NE(text.str().find("—"), std::string::npos);
  EXPECT_EQ(text.str().find("nan"), std::string::npos) << text.str();
}

// 6. `changed` passed --fail-on inconclusive, and the JSON counts disagreed with the suites'.
TEST(Defects, ChangedFailsAndEveryRendererCountsTheSame) {
  Side a = side_of(
      "A", 1,
      {row("s/foreign", "items", "1", Direction::unknown, normal_samples(50, 0.005, 10, 5)),
       row("s/same", "real_time", "ns", Direction::lower, normal_samples(100, 0.005, 10, 6)),
       row("s/none", "real_time", "ns", Direction::lower, {})});
  Side b = side_of(
      "B", 2,
      {row("s/foreign", "items", "1", Direction::unknown, normal_samples(60, 0.005, 10, 7)),
       row("s/same", "real_time", "ns", Direction::lower, normal_samples(100, 0.005, 10, 8)),
       row("s/none", "real_time", "ns", Direction::lower, {1, 2, 3})});
  Options o;
  o.fail_on = FailOn::changed;
  Comparison c = compare_sides(a, b, o);
  ASSERT_EQ(c.count(Verdict::changed), 1u);
  EXPECT_EQ(c.exit_code(FailOn::regression), 0);
  EXPECT_EQ(c.exit_code(FailOn::changed), 1);
  EXPECT_EQ(c.exit_code(FailOn::inconclusive), 1);
  EXPECT_EQ(c.exit_code(FailOn::never), 0);
  EXPECT_EQ(fail_on_from_string("changed"), FailOn::changed);

  std::ostringstream json, junit, csv, text, md, html;
  render_json(c, json);
  render_junit(c, junit);
  render_csv(c, csv);
  render_text(c, text, false);
  render_markdown(c, md);
  render_html(c, html);
  nlohmann::json doc = nlohmann::json::parse(json.str());
  for (Verdict v : k_all_verdicts) {
    std::size_t in_suites = 0;
    for (const auto& s : doc["suites"]) in_suites += s["counts"][to_string(v)].get<std::size_t>();
    EXPECT_EQ(doc["counts"][to_string(v)].get<std::size_t>(), c.count(v)) << to_string(v);
    EXPECT_EQ(in_suites, c.count(v)) << to_string(v);
    std::string phrase = std::to_string(c.count(v)) + " " + to_string(v);
    EXPECT_NE(text.str().find(phrase), std::string::npos) << phrase;
    EXPECT_NE(md.str().find(phrase), std::string::npos) << phrase;
    EXPECT_NE(html.str().find(std::to_string(c.count(v)) + ' ' + to_string(v)), std::string::npos);
    std::size_t rows = 0;
    std::istringstream lines(csv.str());
    for (std::string line; std::getline(lines, line);) {
      rows += line.find("," + std::string(to_string(v)) + ",") != std::string::npos;
    }
    EXPECT_EQ(rows, c.count(v)) << to_string(v);
  }
  EXPECT_EQ(doc["failing"], 1);
  EXPECT_EQ(doc["options"]["fail_on"], "changed");
  EXPECT_NE(junit.str().find("failures=\"1\""), std::string::npos) << junit.str();
  EXPECT_NE(junit.str().find("type=\"changed\""), std::string::npos);
}

// 7. p-values printed as exactly 0 below ~1e-16: a huge, clean change keeps a tiny positive p.
TEST(Defects, TinyPValuesAreNotZero) {
  Comparison c = one(normal_samples(100, 0.001, 30, 1), normal_samples(150, 0.001, 30, 2));
  const Entry& e = c.entries.at(0);
  EXPECT_GT(e.p_value, 0.0);
  EXPECT_LT(e.p_value, 1e-50);
  std::ostringstream json;
  render_json(c, json);
  double p = nlohmann::json::parse(json.str())["results"][0]["p_value"].get<double>();
  EXPECT_NEAR(p / e.p_value, 1.0, 1e-12);
}

// The JSON says what it is and every option that shaped it.
TEST(Defects, JsonIsVersionedAndRecordsOptions) {
  Options o;
  o.history_window = 10;
  o.thresholds_file = "fixture.thresholds";
  o.gpubench_version = "0.0.0-fixture";
  Comparison c =
      one(normal_samples(100, 0.01, 5, 1), normal_samples(100, 0.01, 5, 2), Direction::lower, o);
  std::ostringstream json;
  render_json(c, json);
  nlohmann::json doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["schema_version"], k_json_schema_version);
  EXPECT_EQ(doc["gpubench_version"], "0.0.0-fixture");
  EXPECT_EQ(doc["options"]["history_window"], 10);
  EXPECT_EQ(doc["options"]["thresholds_file"], "fixture.thresholds");
  EXPECT_EQ(doc["options"]["fail_on"], "regression");
  EXPECT_DOUBLE_EQ(doc["options"]["threshold"].get<double>(), 0.02);
}

}  // namespace gpubench::compare
