// Issue 23 item 21 through the real CLI: while a series has fewer than 3 runs of history, a change
// beyond its within-run interval but inside its suite's run-to-run allowance
// (compare/allowance.hpp, fusion host series: 10%) is inconclusive with that reason; beyond the
// allowance it is a regression; with 3 or more runs of history the allowance no longer applies.
//
// FIXTURE runs: Google Benchmark files written as the fusion suite would write them, imported with
// `gpubench import`. The values are made up: ten repetitions a run, 0.2% apart within a run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/e2e/e2e_support.hpp"
#include "util/fs.hpp"

namespace gpubench::e2e {
namespace {

constexpr const char* k_series = "fusion/fixture_bias_gelu/variant:v2/threads:1/device:host";

// A fixture fusion run whose GB_per_s repetitions sit around `level`, dated `date`.
std::string fixture_run(double level, const std::string& date) {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (int i = 0; i < 10; ++i) {
    const double value = level * (1.0 + 0.002 * ((i % 5) - 2) / 2.0);
    benchmarks.push_back(iteration_entry({.name = k_series,
                                          .repetition = i,
                                          .repetitions = 10,
                                          .real_time = 1000.0 / value,
                                          .cpu_time = 1000.0 / value,
                                          .time_unit = "us"},
                                         {{"GB_per_s", value}}));
  }
  nlohmann::json doc = {
      {"context",
       {{"date", date},
        {"host_name", "fixture-host"},
        {"fixture_note", "FIXTURE: made-up fusion host measurements"},
        {"gpubench.suite", "fusion"},
        {"gpubench.metrics",
         R"([{"name":"GB_per_s","unit":"GB/s","direction":"higher","role":"primary"}])"}}},
      {"benchmarks", benchmarks}};
  return doc.dump();
}

class Allowance : public ::testing::Test {
 protected:
  // Imports a fixture run; returns its run id.
  long long import_run(double level, const std::string& date) {
    const fs::path file = m_ws.root() / ("run" + std::to_string(++m_files) + ".json");
    write_file_atomic(file, fixture_run(level, date));
    const CliResult r = m_ws.run({"import", file.string()});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    const CliResult runs = m_ws.run({"runs", "--format", "json", "--limit", "1"});
    return nlohmann::json::parse(runs.out).at(0).at("id").get<long long>();
  }
  // The one primary entry of `compare base cand --format json`, and the exit code.
  nlohmann::json compare(long long base, long long cand, int& exit_code) {
    const CliResult r =
        m_ws.run({"compare", std::to_string(base), std::to_string(cand), "--format", "json"});
    exit_code = r.exit_code;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    for (const auto& e : doc.at("results")) {
      if (e.at("metric") == "GB_per_s") return e;
    }
    ADD_FAILURE() << "no GB_per_s entry: " << r.out;
    return {};
  }

  Workspace m_ws;
  int m_files = 0;
};

TEST_F(Allowance, FivePercentSlowerWithoutHistoryIsInconclusiveWithTheAllowanceNamed) {
  const long long base = import_run(100.0, "2026-12-01T01:00:00+00:00");
  const long long cand = import_run(95.0, "2026-12-01T02:00:00+00:00");
  int exit_code = -1;
  const nlohmann::json e = compare(base, cand, exit_code);
  EXPECT_EQ(exit_code, 0) << e.dump();
  EXPECT_EQ(e["verdict"], "inconclusive") << e.dump();
  // The within-run interval alone excludes 1: only the allowance holds the verdict back.
  EXPECT_LT(e["ci_high"].get<double>(), 1.0) << e.dump();
  EXPECT_TRUE(contains(e["reason"], "within fusion's run-to-run allowance of 10%")) << e.dump();
  EXPECT_TRUE(contains(e["reason"], "fewer than 3 runs of history")) << e.dump();
}

TEST_F(Allowance, TwentyPercentSlowerWithoutHistoryIsARegression) {
  const long long base = import_run(100.0, "2026-12-01T01:00:00+00:00");
  const long long cand = import_run(80.0, "2026-12-01T02:00:00+00:00");
  int exit_code = -1;
  const nlohmann::json e = compare(base, cand, exit_code);
  EXPECT_EQ(exit_code, 1) << e.dump();
  EXPECT_EQ(e["verdict"], "regression") << e.dump();
  EXPECT_FALSE(contains(e["reason"], "allowance")) << e.dump();
}

TEST_F(Allowance, WithThreeRunsOfHistoryTheAllowanceNoLongerApplies) {
  // Three earlier runs of identical work, 0.1% apart: the history measures this series' run-to-run
  // noise, so a 5% step is judged by the interval alone.
  import_run(100.0, "2026-12-01T01:00:00+00:00");
  import_run(100.1, "2026-12-01T02:00:00+00:00");
  import_run(99.9, "2026-12-01T03:00:00+00:00");
  const long long base = import_run(100.0, "2026-12-01T04:00:00+00:00");
  const long long cand = import_run(95.0, "2026-12-01T05:00:00+00:00");
  int exit_code = -1;
  const nlohmann::json e = compare(base, cand, exit_code);
  EXPECT_GE(e["history_runs"].get<int>(), 3) << e.dump();
  EXPECT_EQ(e["verdict"], "regression") << e.dump();
  EXPECT_FALSE(contains(e["reason"], "allowance")) << e.dump();
  EXPECT_EQ(exit_code, 1) << e.dump();
}

}  // namespace
}  // namespace gpubench::e2e
