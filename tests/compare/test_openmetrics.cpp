// The OpenMetrics renderer's rules that the strict-parser test (tests/ci/check_openmetrics.py)
// does not pin down one by one: base units, escaping, one sample per label set, families kept
// together, and the doctor differences compare lists. Inputs are in-memory fixtures.
#include <gtest/gtest.h>

#include <sstream>

#include "compare/render/openmetrics.hpp"
#include "fixtures.hpp"

namespace gpubench::compare {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(OpenMetrics, UnitsMapToPrometheusBaseUnits) {
  EXPECT_EQ(prometheus_unit("ns").suffix, "seconds");
  EXPECT_EQ(prometheus_unit("ns").to_base(2000), 2e-06);
  EXPECT_EQ(prometheus_unit("GB/s").suffix, "bytes_per_second");
  EXPECT_EQ(prometheus_unit("GB/s").to_base(2.5), 2.5e9);
  EXPECT_EQ(prometheus_unit("TFLOP/s").suffix, "flop_per_second");
  EXPECT_EQ(prometheus_unit("%").to_base(50), 0.5);
  EXPECT_EQ(prometheus_unit("calls/s").suffix, "");  // no base unit: own family + unit label
}

TEST(OpenMetrics, LabelValuesAreEscaped) {
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

TEST(OpenMetrics, RendersFamiliesOnceWithBaseUnitsAndEof) {
  OpenMetricsInput in;
  in.run.run.id = 7;
  in.run.run.uuid = "u-7";
  in.run.info.host.hostname = "node\"01";
  results::GpuInfo gpu;
  gpu.nvml_index = 0;
  gpu.uuid = "GPU-abc";
  gpu.name = "NVIDIA H200";
  in.run.info.gpus.push_back(gpu);
  using testing::row;
  in.rows.push_back(row("memory/triad/bytes:1", "real_time", "ns", results::Direction::lower,
                        {1000, 2000, 3000}));
  in.rows.push_back(
      row("memory/triad/bytes:1", "GB_per_s", "GB/s", results::Direction::higher, {1.5, 2.5, 3.5}));
  in.rows.push_back(
      row("memory/copy/bytes:1", "real_time", "ns", results::Direction::lower, {4000}));
  in.rows.push_back(row("memory/copy/bytes:1", "real_time", "ns", results::Direction::lower,
                        {9000}));  // same series twice: one sample (the median of both)
  in.rows.push_back(row("calibration/x", "calls_per_s", "calls/s", results::Direction::higher, {10},
                        std::nullopt));
  // Ingest ties each GPU result to its GPU's UUID (gpubench.devices); the export names it.
  for (auto& r : in.rows) {
    if (r.device_index) r.gpu_uuid = "GPU-abc";
  }
  results::DoctorCheck check;
  check.name = "limits.nofile";
  check.area = "Limits";
  check.status = results::CheckStatus::warn;
  in.doctor.push_back(check);
  std::ostringstream out;
  render_openmetrics(in, out);
  const std::string text = out.str();
  EXPECT_TRUE(text.ends_with("# EOF\n")) << text;
  EXPECT_TRUE(contains(
      text, "# TYPE gpubench_result_seconds gauge\n# UNIT gpubench_result_seconds seconds\n"))
      << text;
  EXPECT_TRUE(contains(text, "host=\"node\\\"01\"")) << text;
  EXPECT_TRUE(contains(text, "gpu_uuid=\"GPU-abc\",gpu_model=\"NVIDIA H200\",device=\"gpu0\""))
      << text;
  // Median 2000 ns = 2e-06 s; median 2.5 GB/s = 2.5e9 B/s.
  EXPECT_TRUE(contains(text, "metric=\"real_time\"} 2e-06\n")) << text;
  EXPECT_TRUE(contains(text, "metric=\"GB_per_s\"} 2.5e+09\n")) << text;
  EXPECT_TRUE(contains(text,
                       "gpubench_result{host=\"node\\\"01\",gpu_uuid=\"\",gpu_model=\"\","
                       "device=\"host\",suite=\"calibration\",benchmark=\"calibration/x\","
                       "metric=\"calls_per_s\",unit=\"calls/s\"} 10"))
      << text;
  EXPECT_FALSE(contains(text, "} 9000")) << "a repeated series is written once: " << text;
  EXPECT_TRUE(contains(text, "gpubench_run_info{")) << text;
  EXPECT_TRUE(contains(text, "check=\"limits.nofile\",area=\"Limits\",status=\"warn\"} 1")) << text;
  // Each family's TYPE line appears once (samples of a family are not split up).
  std::size_t types = 0;
  for (std::size_t p = text.find("# TYPE gpubench_result_seconds "); p != std::string::npos;
       p = text.find("# TYPE gpubench_result_seconds ", p + 1)) {
    ++types;
  }
  EXPECT_EQ(types, 1u);
}

// Issue 35: a run measures each suite in several executions, each its own suite run with its own
// row of every series. The exported median is over every execution's values, not the first's.
TEST(OpenMetrics, ExecutionsOfASeriesArePooledIntoOneMedian) {
  OpenMetricsInput in;
  in.run.run.id = 1;
  in.run.info.host.hostname = "node01";
  using testing::row;
  int64_t suite_run_id = 10;
  for (const auto& values :
       {std::vector<double>{1000}, std::vector<double>{3000, 4000}, std::vector<double>{2000}}) {
    in.rows.push_back(row("memory/copy/bytes:1", "real_time", "ns", results::Direction::lower,
                          values, std::nullopt));
    in.rows.back().suite_run_id = suite_run_id++;
  }
  for (bool streamed : {false, true}) {
    OpenMetricsInput input = in;
    if (streamed) {
      input.row_source = [rows = in.rows](const auto& f) {
        for (const auto& r : rows) f(r);
      };
      input.rows.clear();
    }
    std::ostringstream out;
    render_openmetrics(input, out);
    const std::string text = out.str();
    // Median of {1000, 3000, 4000, 2000} ns = 2500 ns; the first execution alone would be 1e-06.
    EXPECT_TRUE(contains(text, "metric=\"real_time\"} 2.5e-06\n")) << text;
    EXPECT_EQ(text.find("benchmark=\"memory/copy/bytes:1\""),
              text.rfind("benchmark=\"memory/copy/bytes:1\""))
        << "one sample per series: " << text;
  }
}

// node_exporter's textfile collector and promtool parse the Prometheus text format, which has no
// type "info" (issue 26: 'unknown metric type "info"', node_textfile_scrape_error 1).
TEST(OpenMetrics, RunInfoIsAGaugeBothParsersAccept) {
  OpenMetricsInput in;
  in.run.run.id = 3;
  std::ostringstream out;
  render_openmetrics(in, out);
  EXPECT_TRUE(contains(out.str(), "# TYPE gpubench_run_info gauge\n")) << out.str();
  EXPECT_FALSE(contains(out.str(), " info\n")) << out.str();
}

// Verdicts of primary metrics only: count() over gpubench_verdict equals compare's counts (a
// secondary real_time regression next to its primary metric is not a second regression).
TEST(OpenMetrics, VerdictsOnlyForPrimaryMetrics) {
  Comparison cmp;
  for (const char* metric : {"calls_per_s", "real_time"}) {
    Entry e;
    e.key.suite = "calibration";
    e.key.benchmark = "calibration/x";
    e.key.metric = metric;
    e.key.device = "host";
    e.primary = std::string(metric) == "calls_per_s";
    e.ratio = 2;
    e.verdict = Verdict::regression;
    cmp.entries.push_back(e);
  }
  OpenMetricsInput in;
  in.comparison = &cmp;
  in.baseline = "nightly";
  std::ostringstream out;
  render_openmetrics(in, out);
  const std::string text = out.str();
  EXPECT_TRUE(
      contains(text, "metric=\"calls_per_s\",baseline=\"nightly\",verdict=\"regression\"} 1"))
      << text;
  EXPECT_FALSE(contains(text, "metric=\"real_time\",baseline=\"nightly\",verdict=")) << text;
  // The secondary metric keeps its change ratio.
  EXPECT_TRUE(contains(text, "metric=\"real_time\",baseline=\"nightly\"} 2\n")) << text;
  EXPECT_EQ(cmp.count(Verdict::regression), 1u);
}

// Issue 39: Grafana's "Change vs baseline" summarises worse and better; it needs the direction
// applied and secondary metrics (a primary rate's reciprocal time) left out.
TEST(OpenMetrics, SpeedupHasTheDirectionAppliedForPrimaryMetricsOnly) {
  Comparison cmp;
  for (const auto& [metric, direction, primary] :
       {std::tuple{"calls_per_s", results::Direction::higher, true},
        std::tuple{"wall_time", results::Direction::lower, true},
        std::tuple{"real_time", results::Direction::lower, false},
        std::tuple{"widgets", results::Direction::unknown, true}}) {
    Entry e;
    e.key = {"calibration", "calibration/x", metric, "host"};
    e.direction = direction;
    e.primary = primary;
    e.ratio = direction == results::Direction::higher ? 0.5 : 2;  // all a 2x slowdown
    e.verdict = Verdict::regression;
    cmp.entries.push_back(e);
  }
  OpenMetricsInput in;
  in.comparison = &cmp;
  in.baseline = "nightly";
  std::ostringstream out;
  render_openmetrics(in, out);
  const std::string text = out.str();
  EXPECT_TRUE(contains(text, "gpubench_change_speedup_ratio{host=")) << text;
  for (const char* metric : {"calls_per_s", "wall_time"}) {
    EXPECT_TRUE(
        contains(text, std::string("metric=\"") + metric + "\",baseline=\"nightly\"} 0.5\n"))
        << metric << '\n'
        << text;
  }
  std::size_t speedups = 0;
  for (std::size_t at = text.find("\ngpubench_change_speedup_ratio{"); at != std::string::npos;
       at = text.find("\ngpubench_change_speedup_ratio{", at + 1)) {
    ++speedups;
  }
  EXPECT_EQ(speedups, 2u) << text;  // not real_time (secondary), not widgets (no direction)
}

TEST(DoctorDifferences, StatusChangesAreListedOnlyWhenBothSidesHaveChecks) {
  auto run_with = [](results::CheckStatus status, const std::string& value) {
    results::RunDetail d;
    results::DoctorCheck c;
    c.name = "limits.nofile";
    c.status = status;
    c.value = value;
    d.doctor.push_back(c);
    return d;
  };
  std::vector<EnvDifference> out;
  append_doctor_differences({run_with(results::CheckStatus::pass, "ulimit -n 65536")},
                            {run_with(results::CheckStatus::warn, "ulimit -n 1024")}, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].field, "doctor limits.nofile");
  EXPECT_EQ(out[0].base, "pass (ulimit -n 65536)");
  EXPECT_EQ(out[0].candidate, "warn (ulimit -n 1024)");
  out.clear();
  // Same status, different value (free space moves every run): not a difference.
  append_doctor_differences({run_with(results::CheckStatus::pass, "80 GiB")},
                            {run_with(results::CheckStatus::pass, "79 GiB")}, out);
  EXPECT_TRUE(out.empty());
  // A run recorded before doctor existed: nothing to compare.
  append_doctor_differences({results::RunDetail{}}, {run_with(results::CheckStatus::fail, "x")},
                            out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace gpubench::compare
