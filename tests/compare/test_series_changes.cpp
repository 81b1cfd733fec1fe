// Change points grouped by run, summarised over primary metrics by direction (issue 39: a 24%
// slowdown read "15 series, geomean +9.6%" because real_time +31.8% and calls_per_s -24% were
// averaged). Series built in memory: the detection itself is tested in test_changepoints.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "compare/history/series_history.hpp"
#include "compare/render/render_history.hpp"

namespace gpubench::compare {
namespace {

// Four runs; every series steps at run index 2 by `ratio` (after / before) with a +-1% interval.
History with_series(
    const std::vector<std::tuple<std::string, results::Direction, bool, double>>& series) {
  History h;
  h.options.selector = "all";
  for (int i = 0; i < 4; ++i) {
    HistoryRun r;
    r.id = i + 1;
    r.started_at = "2026-12-0" + std::to_string(i + 1) + "T02:00:00Z";
    r.group = "fixture-host [no GPU]";
    h.runs.push_back(r);
  }
  for (const auto& [metric, direction, primary, ratio] : series) {
    SeriesHistory s;
    s.group = "fixture-host [no GPU]";
    s.key = {"calibration", "calibration/mul_add_chain", metric, "host"};
    s.direction = direction;
    s.primary = primary;
    for (std::size_t i = 0; i < 4; ++i) {
      const double v = i < 2 ? 100.0 : 100.0 * ratio;
      s.points.push_back({i, v, v * 0.99, v * 1.01, 10, false});
    }
    SeriesChange c;
    c.point = 2;
    c.median_before = 100;
    c.median_after = 100 * ratio;
    c.ratio = ratio;
    c.ci_low = ratio * 0.99;
    c.ci_high = ratio * 1.01;
    s.changes.push_back(c);
    h.series.push_back(s);
  }
  return h;
}

TEST(SeriesChanges, ASlowdownReadAsATimeAndARateIsWorseBothWays) {
  // One 24% slowdown three ways: the time +31.6% (lower is better), the rate -24% (higher is
  // better), and a secondary time that must not be counted.
  const History h = with_series({{"real_time", results::Direction::lower, true, 1.316},
                                 {"calls_per_s", results::Direction::higher, true, 0.76},
                                 {"ms_per_call", results::Direction::lower, false, 1.316}});
  const std::vector<RunChanges> all = changes_by_run(h);
  ASSERT_EQ(all.size(), 1u);
  const RunChanges& rc = all[0];
  EXPECT_EQ(rc.series, 3u);
  EXPECT_EQ(rc.worse.count, 2u);
  EXPECT_EQ(rc.better.count, 0u);
  EXPECT_EQ(rc.secondary, 1u);
  EXPECT_NEAR(rc.worse.value, 0.76, 0.001);  // speed, not the average of +31.6% and -24%
  EXPECT_LT(rc.worse.ci_low, rc.worse.value);
  EXPECT_GT(rc.worse.ci_high, rc.worse.value);
  EXPECT_EQ(change_summary(rc),
            "2 primary series: 2 worse (geomean -24.0% speed [-24.8, -23.2]), 0 better; 1 "
            "secondary not counted");
}

TEST(SeriesChanges, BetterAndWorseAreSeparateAndUnknownDirectionsAreNamed) {
  const History h = with_series({{"real_time", results::Direction::lower, true, 0.9},
                                 {"TFLOP_per_s", results::Direction::higher, true, 0.8},
                                 {"widgets", results::Direction::unknown, true, 1.5}});
  const RunChanges rc = changes_by_run(h).at(0);
  EXPECT_EQ(rc.worse.count, 1u);
  EXPECT_NEAR(rc.worse.value, 0.8, 1e-9);
  EXPECT_EQ(rc.better.count, 1u);
  EXPECT_NEAR(rc.better.value, 1 / 0.9, 1e-9);  // a time 10% shorter: 11.1% faster
  EXPECT_EQ(rc.unknown_direction, 1u);
  const std::string text = change_summary(rc);
  EXPECT_EQ(text.rfind("3 primary series: 1 worse (geomean -20.0% speed", 0), 0u) << text;
  EXPECT_NE(text.find(", 1 better (geomean +11.1% speed"), std::string::npos) << text;
  EXPECT_NE(text.find(", 1 changed (no direction)"), std::string::npos) << text;
}

TEST(SeriesChanges, JsonAndTextCarryTheDirectionAwareSummary) {
  const History h = with_series({{"real_time", results::Direction::lower, true, 1.316},
                                 {"calls_per_s", results::Direction::higher, true, 0.76}});
  std::ostringstream text, json;
  render_history(h, HistoryFormat::text, true, text);
  EXPECT_NE(text.str().find("run 3 (2026-12-03): 2 primary series: 2 worse (geomean -24.0% speed"),
            std::string::npos)
      << text.str();
  EXPECT_EQ(text.str().find("geomean +"), std::string::npos) << text.str();
  render_history(h, HistoryFormat::json, true, json);
  EXPECT_NE(json.str().find("\"primary_worse\""), std::string::npos) << json.str();
  EXPECT_EQ(json.str().find("\"geomean\":"), std::string::npos) << json.str();
}

}  // namespace
}  // namespace gpubench::compare
