// Metric roles (issue 9): what a suite declares in gpubench.metrics is stored per suite run and
// read back with every row; real_time/cpu_time become secondary next to a declared primary.
#include <gtest/gtest.h>

#include "helpers.hpp"
#include "results/metric_roles.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

TEST(MetricRoles, FromContext) {
  nlohmann::json ctx = {
      {"gpubench.metrics",
       R"([{"name":"calls_per_s","unit":"calls/s","direction":"higher","role":"primary"},
           {"name":"ms_per_call","unit":"ms","direction":"lower","role":"secondary"},
           {"name":"work_units","unit":"units","direction":"unknown","role":"parameter"}])"}};
  auto roles = metric_roles_from_context(ctx);
  EXPECT_EQ(roles["calls_per_s"], MetricRole::primary);
  EXPECT_EQ(roles["ms_per_call"], MetricRole::secondary);
  EXPECT_EQ(roles["work_units"], MetricRole::parameter);
  EXPECT_EQ(roles["real_time"], MetricRole::secondary);
  EXPECT_EQ(roles["cpu_time"], MetricRole::secondary);
  // No roles declared (older suites, foreign files): nothing, so every metric stays primary.
  EXPECT_TRUE(metric_roles_from_context(nlohmann::json::object()).empty());
}

TEST(MetricRoles, StoredAndReadBack) {
  TempDir dir("gpubench-roles");
  Store store = Store::open(dir.path() / "r.db", OpenMode::read_write_create);
  const int64_t run = store.begin_run(testing::sample_run_info());
  const int64_t sr = store.add_suite_run(run, testing::sample_suite_run("calibration"));
  nlohmann::json doc = {
      {"context",
       {{"gpubench.suite", "calibration"},
        {"gpubench.metrics",
         R"([{"name":"calls_per_s","unit":"calls/s","direction":"higher","role":"primary"},
             {"name":"work_units","unit":"units","direction":"unknown","role":"parameter"}])"}}},
      {"benchmarks",
       {{{"name", "calibration/x/base_units:1"},
         {"run_name", "calibration/x/base_units:1"},
         {"run_type", "iteration"},
         {"repetitions", 1},
         {"repetition_index", 0},
         {"iterations", 1},
         {"real_time", 1.0},
         {"cpu_time", 1.0},
         {"time_unit", "ms"},
         {"calls_per_s", 10.0},
         {"work_units", 5.0},
         {"other_counter", 1.0}}}}};
  store.ingest_benchmark_json(sr, doc, "calibration");
  store.finish_run(run, RunStatus::complete);
  std::map<std::string, MetricRole> got;
  for (const ResultRow& r : store.get_results(run)) got[r.metric] = r.role;
  EXPECT_EQ(got["calls_per_s"], MetricRole::primary);
  EXPECT_EQ(got["work_units"], MetricRole::parameter);
  EXPECT_EQ(got["real_time"], MetricRole::secondary);
  EXPECT_EQ(got["other_counter"], MetricRole::secondary);  // undeclared next to declared roles
}

}  // namespace
}  // namespace gpubench::results
