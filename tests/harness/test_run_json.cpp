// show/export --format json stream the run document (issue 16): write_run_json must write the
// bytes run_to_json(...).dump(2) writes, for every kind of row. Rows are FIXTURES, not
// measurements.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "harness/cli/run_json.hpp"

namespace gpubench::cli {
namespace {

results::RunDetail detail_fixture() {
  results::RunDetail d;
  d.run.id = 7;
  d.run.uuid = "0f3c0c56-5a8e-4f7e-9b1e-1d2a3b4c5d6e";
  d.run.started_at = "2026-12-03T10:00:00Z";
  d.run.status = results::RunStatus::complete;
  d.run.tags = {{"job", "nightly"}, {"rack", "a\"7"}};
  d.run.note = "fixture run \xc3\xa9";
  d.info.user = "tester";
  d.info.argv = {"gpubench", "run"};
  d.info.host.hostname = "node01";
  d.info.host.cores = 64;
  results::GpuInfo g;
  g.uuid = "GPU-11111111-2222-3333-4444-555555555555";
  g.name = "NVIDIA H200";
  d.info.gpus.push_back(g);
  d.info.config.env = {{"CUDA_VISIBLE_DEVICES", "0"}};
  results::SuiteRunInfo s;
  s.suite = "memory";
  s.exit_code = 0;
  s.stderr_tail = "line 1\nline\t2\n";
  d.suites = {s, s};
  d.suite_run_ids = {3, 4};
  return d;
}

std::vector<results::ResultRow> rows_fixture() {
  std::vector<results::ResultRow> rows;
  results::ResultRow r;
  r.suite_run_id = 3;
  r.suite = "memory";
  r.benchmark = "memory/triad/bytes:4096/threads:2/mode:fast/threads:4";
  r.case_name = "triad";
  // A repeated key: a JSON object keeps the last one.
  r.params = {{"bytes", "4096", 4096.0},
              {"threads", "2", 2.0},
              {"mode", "fast", std::nullopt},
              {"threads", "4", 4.0}};
  r.metric = "GB_per_s";
  r.unit = "GB/s";
  r.direction = results::Direction::higher;
  r.role = results::MetricRole::primary;
  r.device_index = 0;
  r.gpu_uuid = "GPU-11111111-2222-3333-4444-555555555555";
  r.gpu_pci_bus_id = "00000000:01:00.0";
  r.values = {1.0, 0.1, 1e21, 123.456};
  r.throttled = {0, 1, -1, 0};
  r.power_limited = {-1, -1, 0, 1};
  r.clock_below_expected = {0, 0, 0, 0};
  r.aggregates = {{"median", 0.55}, {"cv", 0.01}, {"mean", 2.0}};
  r.telemetry_throttled = true;
  rows.push_back(r);
  r.metric = "real_time";
  r.unit = "ns";
  r.direction = results::Direction::lower;
  r.role = results::MetricRole::secondary;
  r.values = {5.0};  // one value: cv is NaN-free 0, median = the value
  r.throttled = {0};
  r.power_limited = {0};
  r.clock_below_expected = {0};
  r.aggregates.clear();
  r.telemetry_throttled = false;
  rows.push_back(r);
  results::ResultRow skip;  // a skipped benchmark: no metric, no values, no device
  skip.suite_run_id = 4;
  skip.suite = "memory";
  skip.benchmark = "memory/fp8";
  skip.case_name = "fp8";
  skip.status = results::BenchmarkStatus::skipped;
  skip.message = "skipped: FP8 needs sm_89+ \xe2\x80\x94 here";
  rows.push_back(skip);
  return rows;
}

std::string streamed(const results::RunDetail& d, const std::vector<results::ResultRow>& rows,
                     bool flag, std::vector<JsonMember> extra) {
  std::ostringstream out;
  JsonWriter w(out);
  write_run_json(w, d, rows_of(rows), flag, std::move(extra));
  w.finish();
  return out.str();
}

TEST(RunJson, StreamedExportIsTheDocumentRunToJsonDumps) {
  const results::RunDetail d = detail_fixture();
  const std::vector<results::ResultRow> rows = rows_fixture();
  nlohmann::json doc = run_to_json(d, rows);
  const nlohmann::json telemetry = {{{"suite_run", 3}, {"t_s", 0.1}, {"power_w", nullptr}}};
  doc["telemetry"] = telemetry;
  const std::string got =
      streamed(d, rows, false, {{"telemetry", [&](JsonWriter& w) { w.value(telemetry); }}});
  EXPECT_EQ(got, doc.dump(2));
  EXPECT_EQ(nlohmann::json::parse(got)["results"][0]["params"]["threads"], 4.0);
}

TEST(RunJson, StreamedShowAddsTheTelemetryFlagAndItsMembers) {
  const results::RunDetail d = detail_fixture();
  const std::vector<results::ResultRow> rows = rows_fixture();
  // What `show --format json` wrote before it streamed: the flag added to each result, then
  // members after and before "results" in key order.
  nlohmann::json doc = run_to_json(d, rows);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& flag = rows[i].telemetry_throttled;
    doc["results"][i]["telemetry_throttled"] = flag ? nlohmann::json(*flag) : nullptr;
  }
  doc["problems"] = nlohmann::json::array();
  doc["doctor"] = {{"checks", nlohmann::json::array()}};
  doc["zz_last"] = "after everything";
  const std::string got =
      streamed(d, rows, true,
               {{"problems", [](JsonWriter& w) { w.value(nlohmann::json::array()); }},
                {"doctor",
                 [](JsonWriter& w) {
                   w.value({{"checks", nlohmann::json::array()}});
                 }},
                {"zz_last", [](JsonWriter& w) { w.string("after everything"); }}});
  EXPECT_EQ(got, doc.dump(2));
}

TEST(RunJson, EmptyRunIsAnEmptyResultsArray) {
  const results::RunDetail d = detail_fixture();
  const std::vector<results::ResultRow> none;
  EXPECT_EQ(streamed(d, none, false, {}), run_to_json(d, none).dump(2));
}

TEST(RunJson, CsvHasOneLinePerSampleAndOnePerSkip) {
  const results::RunDetail d = detail_fixture();
  const std::string csv = run_to_csv(d, rows_fixture());
  std::size_t lines = 0;
  for (char c : csv) lines += c == '\n';
  EXPECT_EQ(lines, 1u + 4u + 1u + 1u);  // header, 4 + 1 samples, the skip
  EXPECT_NE(csv.find(",memory/triad/bytes:4096/threads:2/mode:fast/threads:4,triad,"
                     "bytes=4096;threads=2;mode=fast;threads=4,GB_per_s,GB/s,higher,0,"),
            std::string::npos);
  EXPECT_NE(csv.find(",skipped,,,,"), std::string::npos);
  // Issue 35: the executions of a suite are separate suite runs; the last column tells them
  // apart (the fixture's memory rows are in suite run 3, its skip in suite run 4).
  EXPECT_EQ(csv.rfind("run_id,run_uuid,suite,benchmark,case,params,metric,unit,direction,"
                      "device_index,gpu_uuid,status,repetition,value,throttled,message,suite_run\n",
                      0),
            0u)
      << csv;
  EXPECT_NE(csv.find(",ok,3,123.456,0,,3\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("sm_89+ \xe2\x80\x94 here,4\n"), std::string::npos) << csv;
}

}  // namespace
}  // namespace gpubench::cli
