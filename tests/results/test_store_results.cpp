// Store::for_each_result (issue 16: one ordered pass over a run's samples) gives exactly the rows
// the earlier get_results gave: every field, in the same order. The reference below is that
// earlier implementation (every sample of the run materialised, grouped in a hash map, sorted),
// kept here as the oracle. All documents are FIXTURES (made-up values), not measurements.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>
#include <unordered_map>

#include "helpers.hpp"
#include "results/metric_roles.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"

namespace gpubench::results {
namespace {

using nlohmann::json;

// The get_results of gpubench before issue 16, verbatim in what it computes.
std::vector<ResultRow> reference_results(Database& db, int64_t run_id) {
  struct Outcome {
    int64_t position;
    BenchmarkStatus status;
    std::string message;
    bool has_samples = false;
  };
  struct BenchmarkInfo {
    std::string suite, name, case_name;
    std::vector<Param> params;
  };
  std::map<std::pair<int64_t, int64_t>, Outcome> outcomes;
  std::unordered_map<int64_t, BenchmarkInfo> benchmarks;
  {
    Statement st = db.prepare(
        "SELECT o.suite_run_id, o.benchmark_id, o.position, o.status, o.message, b.suite, "
        "b.name, b.case_name FROM benchmark_outcomes o JOIN suite_runs sr ON sr.id = "
        "o.suite_run_id JOIN benchmarks b ON b.id = o.benchmark_id WHERE sr.run_id = ?1");
    st.bind(1, run_id);
    while (st.step()) {
      const std::string status = st.column_text(3);
      outcomes[{st.column_int64(0), st.column_int64(1)}] =
          Outcome{st.column_int64(2),
                  status == "error"     ? BenchmarkStatus::error
                  : status == "skipped" ? BenchmarkStatus::skipped
                                        : BenchmarkStatus::ok,
                  st.column_text(4)};
      benchmarks[st.column_int64(1)] = {
          st.column_text(5), st.column_text(6), st.column_text(7), {}};
    }
    Statement params = db.prepare(
        "SELECT benchmark_id, key, text, number FROM benchmark_params ORDER BY benchmark_id, "
        "position");
    while (params.step()) {
      auto it = benchmarks.find(params.column_int64(0));
      if (it == benchmarks.end()) continue;
      it->second.params.push_back(
          Param{params.column_text(1), params.column_text(2), params.column_optional_double(3)});
    }
  }
  struct Group {
    ResultRow row;
    int64_t position = 0;
    int64_t first_sample = 0;
    std::vector<std::pair<int64_t, size_t>> order;
  };
  std::vector<Group> groups;
  std::map<std::array<int64_t, 5>, size_t> index;
  Statement st = db.prepare(
      "SELECT s.id, s.suite_run_id, s.benchmark_id, m.name, m.unit, m.direction, "
      "s.device_index, s.gpu_device_id, g.uuid, g.pci_bus_id, s.kind, s.repetition, s.value, "
      "s.throttled, s.power_limited, s.clock_below_expected, s.metric_id FROM samples s "
      "JOIN suite_runs sr ON sr.id = s.suite_run_id JOIN metrics m ON m.id = s.metric_id "
      "LEFT JOIN gpu_devices g ON g.id = s.gpu_device_id WHERE sr.run_id = ?1 ORDER BY s.id");
  st.bind(1, run_id);
  while (st.step()) {
    const int64_t suite_run = st.column_int64(1);
    const int64_t bench = st.column_int64(2);
    const auto device = st.column_optional_int64(6);
    const auto gpu = st.column_optional_int64(7);
    const std::array<int64_t, 5> key{suite_run, bench, st.column_int64(16), device.value_or(-1),
                                     gpu.value_or(-1)};
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) {
      Group g;
      g.first_sample = st.column_int64(0);
      ResultRow& r = g.row;
      r.suite_run_id = suite_run;
      auto o = outcomes.find({suite_run, bench});
      if (o != outcomes.end()) {
        o->second.has_samples = true;
        g.position = o->second.position;
        r.status = o->second.status;
        r.message = o->second.message;
      }
      const BenchmarkInfo& b = benchmarks[bench];
      r.suite = b.suite;
      r.benchmark = b.name;
      r.case_name = b.case_name;
      r.params = b.params;
      r.metric = st.column_text(3);
      r.unit = st.column_text(4);
      r.direction = direction_from_string(st.column_text(5)).value_or(Direction::unknown);
      if (device) r.device_index = static_cast<int>(*device);
      if (gpu) {
        r.gpu_uuid = st.column_text(8);
        r.gpu_pci_bus_id = st.column_text(9);
      }
      groups.push_back(std::move(g));
    }
    Group& g = groups[it->second];
    if (st.column_text(10) == "iteration") {
      g.order.emplace_back(st.column_optional_int64(11).value_or(0), g.row.values.size());
      g.row.values.push_back(st.column_double(12));
      g.row.throttled.push_back(st.is_null(13) ? -1 : static_cast<int>(st.column_int64(13)));
      g.row.power_limited.push_back(st.is_null(14) ? -1 : static_cast<int>(st.column_int64(14)));
      g.row.clock_below_expected.push_back(st.is_null(15) ? -1
                                                          : static_cast<int>(st.column_int64(15)));
    } else {
      g.row.aggregates[st.column_text(10)] = st.column_double(12);
    }
  }
  for (const auto& [key, o] : outcomes) {
    if (o.has_samples) continue;
    Group g;
    g.position = o.position;
    g.row.suite_run_id = key.first;
    const BenchmarkInfo& b = benchmarks[key.second];
    g.row.suite = b.suite;
    g.row.benchmark = b.name;
    g.row.case_name = b.case_name;
    g.row.params = b.params;
    g.row.status = o.status;
    g.row.message = o.message;
    groups.push_back(std::move(g));
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return std::tie(a.row.suite_run_id, a.position, a.first_sample) <
           std::tie(b.row.suite_run_id, b.position, b.first_sample);
  });
  std::vector<ResultRow> out;
  for (Group& g : groups) {
    std::stable_sort(g.order.begin(), g.order.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    ResultRow r = g.row;
    r.values.clear();
    r.throttled.clear();
    r.power_limited.clear();
    r.clock_below_expected.clear();
    for (const auto& [rep, i] : g.order) {
      r.values.push_back(g.row.values[i]);
      r.throttled.push_back(g.row.throttled[i]);
      r.power_limited.push_back(g.row.power_limited[i]);
      r.clock_below_expected.push_back(g.row.clock_below_expected[i]);
    }
    out.push_back(std::move(r));
  }
  std::vector<std::tuple<int64_t, std::string, std::optional<int64_t>>> telemetry;
  Statement tel = db.prepare(
      "SELECT t.suite_run_id, COALESCE(g.uuid, ''), max((t.throttle_reasons & ?2) != 0) "
      "FROM telemetry t LEFT JOIN gpu_devices g ON g.id = t.gpu_device_id WHERE t.run_id = ?1 "
      "AND t.suite_run_id IS NOT NULL GROUP BY t.suite_run_id, t.device_index");
  tel.bind(1, run_id).bind(2, k_reasons_slowdown);
  while (tel.step()) {
    telemetry.emplace_back(tel.column_int64(0), tel.column_text(1), tel.column_optional_int64(2));
  }
  for (ResultRow& r : out) {
    std::optional<int64_t> flag;
    for (const auto& [suite_run, uuid, value] : telemetry) {
      if (suite_run != r.suite_run_id || !value) continue;
      if (r.device_index && (r.gpu_uuid.empty() || uuid != r.gpu_uuid)) continue;
      flag = std::max(flag.value_or(0), *value);
    }
    if (flag) r.telemetry_throttled = *flag != 0;
  }
  attach_metric_roles(db, out);
  return out;
}

void expect_same_rows(const std::vector<ResultRow>& got, const std::vector<ResultRow>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const ResultRow& a = got[i];
    const ResultRow& b = want[i];
    SCOPED_TRACE("row " + std::to_string(i) + ": " + b.benchmark + " " + b.metric);
    EXPECT_EQ(a.suite_run_id, b.suite_run_id);
    EXPECT_EQ(a.suite, b.suite);
    EXPECT_EQ(a.benchmark, b.benchmark);
    EXPECT_EQ(a.case_name, b.case_name);
    ASSERT_EQ(a.params.size(), b.params.size());
    for (size_t k = 0; k < a.params.size(); ++k) {
      EXPECT_EQ(a.params[k].key, b.params[k].key);
      EXPECT_EQ(a.params[k].text, b.params[k].text);
      EXPECT_EQ(a.params[k].number, b.params[k].number);
    }
    EXPECT_EQ(a.metric, b.metric);
    EXPECT_EQ(a.unit, b.unit);
    EXPECT_EQ(a.direction, b.direction);
    EXPECT_EQ(a.role, b.role);
    EXPECT_EQ(a.device_index, b.device_index);
    EXPECT_EQ(a.gpu_uuid, b.gpu_uuid);
    EXPECT_EQ(a.gpu_pci_bus_id, b.gpu_pci_bus_id);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.message, b.message);
    EXPECT_EQ(a.values, b.values);
    EXPECT_EQ(a.throttled, b.throttled);
    EXPECT_EQ(a.power_limited, b.power_limited);
    EXPECT_EQ(a.clock_below_expected, b.clock_below_expected);
    EXPECT_EQ(a.aggregates, b.aggregates);
    EXPECT_EQ(a.telemetry_throttled, b.telemetry_throttled);
  }
}

json entry(const std::string& name, int rep, double t, const json& extra = json::object()) {
  json e = {{"name", name},     {"run_name", name},        {"run_type", "iteration"},
            {"repetitions", 3}, {"repetition_index", rep}, {"threads", 1},
            {"iterations", 10}, {"real_time", t},          {"cpu_time", t * 1.01},
            {"time_unit", "ns"}};
  e.update(extra);
  return e;
}

// A GPU suite's document: repetitions interleaved across benchmarks and out of order, two GPUs
// named by device: parameters, roles declared, one error and one skip, aggregates.
json interleaved_document() {
  json doc;
  doc["context"] = {
      {"gpubench.metrics",
       R"([{"name":"GB_per_s","unit":"GB/s","direction":"higher","role":"primary"},)"
       R"({"name":"work","unit":"","direction":"unknown","role":"parameter"}])"},
      {"gpubench.devices", R"([{"index":0,"uuid":"GPU-11111111-2222-3333-4444-555555555555"},)"
                           R"({"index":1,"uuid":"GPU-66666666-7777-8888-9999-000000000000"}])"}};
  json& list = doc["benchmarks"] = json::array();
  for (int rep : {2, 0, 1}) {
    for (int dev = 0; dev < 2; ++dev) {
      const std::string name = "memory/copy/bytes:4096/device:" + std::to_string(dev);
      list.push_back(entry(name, rep, 100.0 + rep + 10 * dev,
                           {{"GB_per_s", 40.0 - rep - dev}, {"work", 7}, {"extra_counter", 3.0}}));
    }
  }
  list.push_back({{"name", "memory/copy/bytes:4096/device:0"},
                  {"run_name", "memory/copy/bytes:4096/device:0"},
                  {"run_type", "aggregate"},
                  {"aggregate_name", "median"},
                  {"repetitions", 3},
                  {"threads", 1},
                  {"iterations", 10},
                  {"real_time", 101.0},
                  {"cpu_time", 102.0},
                  {"time_unit", "ns"},
                  {"GB_per_s", 39.0}});
  list.push_back({{"name", "memory/broken/device:1"},
                  {"run_name", "memory/broken/device:1"},
                  {"run_type", "iteration"},
                  {"error_occurred", true},
                  {"error_message", "validation failed: 3 of 4096 elements differ"}});
  list.push_back({{"name", "memory/fp8/device:0"},
                  {"run_name", "memory/fp8/device:0"},
                  {"run_type", "iteration"},
                  {"error_occurred", true},
                  {"error_message", "skipped: FP8 needs sm_89+"}});
  return doc;
}

class StoreResults : public ::testing::Test {
 protected:
  void SetUp() override {
    m_store = Store::open(m_dir.path() / "r.db", OpenMode::read_write_create);
    m_run = m_store->begin_run(testing::sample_run_info());
    // Suite runs of the same suite twice (one benchmark id, two suite runs), a foreign file, a
    // file with skips, and telemetry that saw a slowdown on GPU 1 during the first suite run.
    TelemetrySample hot;
    hot.nvml_index = 1;
    hot.t_s = 0.5;
    hot.throttle_reasons = k_reasons_slowdown;
    TelemetrySample cool = hot;
    cool.nvml_index = 0;
    cool.throttle_reasons = 0;
    m_store->store_suite(m_run, testing::sample_suite_run("memory"), &m_doc, "memory", {hot, cool});
    const json reps = testing::load_fixture("gb171_repetitions.json");
    m_store->store_suite(m_run, testing::sample_suite_run("memory"), &reps, "memory", {});
    m_store->store_suite(m_run, testing::sample_suite_run("memory"), &m_doc, "memory", {});
    const json skipped = testing::load_fixture("gb18_skipped.json");
    m_store->store_suite(m_run, testing::sample_suite_run("gemm"), &skipped, "gemm", {});
    const json context = testing::load_fixture("gb171_gpubench_context.json");
    m_store->store_suite(m_run, testing::sample_suite_run("memory"), &context, "memory", {});
    m_store->finish_run(m_run, RunStatus::complete);
  }

  TempDir m_dir{"gpubench-test-store-results"};
  json m_doc = interleaved_document();
  std::optional<Store> m_store;
  int64_t m_run = 0;
};

TEST_F(StoreResults, StreamedRowsAreTheRowsOfTheEarlierImplementation) {
  const std::vector<ResultRow> want = reference_results(m_store->database(), m_run);
  ASSERT_GT(want.size(), 20u);
  // The fixture exercises what the streaming pass must get right.
  bool reordered = false, skipped = false, error = false, gpu = false, role = false, flag = false;
  for (const ResultRow& r : want) {
    reordered = reordered || (r.values.size() == 3 && r.values[0] < r.values[2]);
    skipped = skipped || r.status == BenchmarkStatus::skipped;
    error = error || r.status == BenchmarkStatus::error;
    gpu = gpu || !r.gpu_uuid.empty();
    role = role || r.role == MetricRole::parameter;
    flag = flag || r.telemetry_throttled.value_or(false);
  }
  EXPECT_TRUE(reordered && skipped && error && gpu && role && flag);

  std::vector<ResultRow> streamed;
  m_store->for_each_result(m_run, [&](ResultRow& r) { streamed.push_back(r); });  // a copy
  expect_same_rows(streamed, want);
  expect_same_rows(m_store->get_results(m_run), want);
}

TEST_F(StoreResults, AFilterReadsOnlyTheBenchmarksItAccepts) {
  const std::vector<ResultRow> all = m_store->get_results(m_run);
  std::vector<ResultRow> want;
  for (const ResultRow& r : all) {
    if (r.benchmark.find("device:1") != std::string::npos) want.push_back(r);
  }
  ASSERT_FALSE(want.empty());
  std::vector<ResultRow> got;
  std::size_t asked = 0;
  m_store->for_each_result(
      m_run, [&](ResultRow& r) { got.push_back(std::move(r)); },
      [&](const ResultRow& r) {
        ++asked;
        EXPECT_TRUE(r.metric.empty() && r.values.empty());  // the benchmark part only
        return r.benchmark.find("device:1") != std::string::npos;
      });
  expect_same_rows(got, want);
  EXPECT_GT(asked, want.size() / 4);

  std::size_t none = 0;
  m_store->for_each_result(
      m_run, [&](ResultRow&) { ++none; }, [](const ResultRow&) { return false; });
  EXPECT_EQ(none, 0u);
}

TEST_F(StoreResults, AnExceptionFromTheVisitorStopsTheRead) {
  std::size_t seen = 0;
  EXPECT_THROW(m_store->for_each_result(m_run,
                                        [&](ResultRow&) {
                                          if (++seen == 3) throw std::runtime_error("stop");
                                        }),
               std::runtime_error);
  EXPECT_EQ(seen, 3u);
  EXPECT_FALSE(m_store->get_results(m_run).empty());  // the store is usable afterwards
}

TEST_F(StoreResults, UnknownRunIsBadInput) {
  try {
    m_store->for_each_result(m_run + 100, [](ResultRow&) {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("unknown run"), std::string::npos);
  }
}

TEST_F(StoreResults, ReadPathIndexesExistAndTheSamplesAreNotSorted) {
  Database& db = m_store->database();
  for (const char* name : {"benchmark_outcomes_order", "samples_suite_run_benchmark"}) {
    Statement st = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?1");
    st.bind(1, name);
    EXPECT_TRUE(st.step()) << name;
  }
  // The loop order for_each_result uses reaches rows in order without a temporary sort.
  Statement plan = db.prepare(
      "EXPLAIN QUERY PLAN SELECT o.suite_run_id, s.value FROM suite_runs sr CROSS JOIN "
      "benchmark_outcomes o CROSS JOIN samples s WHERE sr.run_id = ?1 AND o.suite_run_id = sr.id "
      "AND s.suite_run_id = o.suite_run_id AND s.benchmark_id = o.benchmark_id "
      "ORDER BY sr.id, o.position, o.rowid, s.id");
  plan.bind(1, m_run);
  std::string steps;
  while (plan.step()) steps += plan.column_text(3) + "\n";
  EXPECT_EQ(steps.find("TEMP B-TREE"), std::string::npos) << steps;
  EXPECT_NE(steps.find("samples_suite_run_benchmark"), std::string::npos) << steps;
}

}  // namespace
}  // namespace gpubench::results
