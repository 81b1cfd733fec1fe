#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "helpers.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

using nlohmann::json;
using testing::load_fixture;
using testing::sample_run_info;
using testing::sample_suite_run;

class IngestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_run = m_store.begin_run(sample_run_info());
    m_suite_run = m_store.add_suite_run(m_run, sample_suite_run());
  }

  const ResultRow* find(const std::vector<ResultRow>& rows, const std::string& benchmark,
                        const std::string& metric, std::optional<int> device = std::nullopt) {
    for (const ResultRow& r : rows) {
      if (r.benchmark == benchmark && r.metric == metric && r.device_index == device) return &r;
    }
    ADD_FAILURE() << "no row " << benchmark << " " << metric;
    return nullptr;
  }

  int64_t count(const std::string& sql) {
    Statement st = m_store.database().prepare(sql);
    st.step();
    return st.column_int64(0);
  }

  // The raw values of `field` in the fixture's iteration rows of `run_name`.
  static std::vector<double> fixture_values(const json& doc, const std::string& run_name,
                                            const std::string& field) {
    std::vector<double> out;
    for (const json& e : doc["benchmarks"]) {
      if (e["run_name"] == run_name && e["run_type"] == "iteration") out.push_back(e[field]);
    }
    return out;
  }

  TempDir m_dir{"gpubench-test-ingest"};
  Store m_store = Store::open(m_dir.path() / "gpubench.db", OpenMode::read_write_create);
  int64_t m_run = 0;
  int64_t m_suite_run = 0;
};

TEST_F(IngestTest, ForeignFileWithRepetitionsErrorsSkipsThreadsAndCounters) {
  const json doc = load_fixture("gb171_repetitions.json");
  const IngestSummary s = m_store.ingest_benchmark_json(m_suite_run, doc, "memory");
  EXPECT_EQ(s.benchmarks, 8);
  EXPECT_EQ(s.errors, 1);
  EXPECT_EQ(s.skipped, 1);
  EXPECT_EQ(s.samples, count("SELECT count(*) FROM samples"));

  const auto rows = m_store.get_results(m_run);
  // Times in microseconds in the file, nanoseconds in the store, in repetition order.
  const ResultRow* copy = find(rows, "memory/copy/bytes:4096", "real_time", 0);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->suite, "memory");
  EXPECT_EQ(copy->case_name, "copy");
  ASSERT_EQ(copy->params.size(), 1u);
  EXPECT_EQ(copy->params[0].number, 4096.0);
  EXPECT_EQ(copy->unit, "ns");
  EXPECT_EQ(copy->direction, Direction::lower);
  const auto raw = fixture_values(doc, "memory/copy/bytes:4096", "real_time");
  ASSERT_EQ(copy->values.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(copy->values[i], raw[i] * 1e3);
  EXPECT_EQ(copy->throttled, (std::vector<int>{-1, -1, -1}));
  for (const char* agg : {"mean", "median", "stddev", "cv"}) {
    EXPECT_EQ(copy->aggregates.count(agg), 1u) << agg;
  }
  EXPECT_LT(copy->aggregates.at("cv"), 1.0);  // a ratio, not scaled to ns
  EXPECT_NEAR(copy->aggregates.at("mean"), (raw[0] + raw[1] + raw[2]) / 3 * 1e3,
              1e-9 * copy->aggregates.at("mean"));

  // A user counter of a foreign file: no unit, direction unknown; device_index is the device.
  const ResultRow* gbps = find(rows, "memory/copy/bytes:4096", "GB_per_s", 0);
  ASSERT_NE(gbps, nullptr);
  EXPECT_EQ(gbps->unit, "");
  EXPECT_EQ(gbps->direction, Direction::unknown);
  EXPECT_EQ(count("SELECT count(*) FROM metrics WHERE name = 'device_index'"), 0);
  const ResultRow* bps = find(rows, "memory/copy/bytes:4096", "bytes_per_second", 0);
  ASSERT_NE(bps, nullptr);
  EXPECT_EQ(bps->unit, "B/s");
  EXPECT_EQ(bps->direction, Direction::higher);
  // Without gpubench.metrics, "throttled" is just a counter.
  EXPECT_NE(find(rows, "memory/device_copy/device:1", "throttled", 1), nullptr);

  // Milliseconds and threads.
  const ResultRow* spin = find(rows, "memory/spin/threads:2", "real_time");
  ASSERT_NE(spin, nullptr);
  const auto spin_raw = fixture_values(doc, "memory/spin/threads:2", "real_time");
  EXPECT_DOUBLE_EQ(spin->values.at(0), spin_raw.at(0) * 1e6);
  EXPECT_EQ(count("SELECT count(DISTINCT threads) FROM v_samples WHERE "
                  "benchmark = 'memory/spin/threads:2'"),
            1);
  EXPECT_EQ(count("SELECT min(threads) FROM v_samples WHERE benchmark = 'memory/spin/threads:2'"),
            2);

  // Skip and error are outcomes without samples.
  bool saw_skip = false, saw_error = false;
  for (const ResultRow& r : rows) {
    if (r.benchmark == "memory/device_triad/bytes:1024") {
      saw_skip = true;
      EXPECT_EQ(r.status, BenchmarkStatus::skipped);
      EXPECT_EQ(r.message, "no CUDA device");
      EXPECT_TRUE(r.values.empty());
      EXPECT_TRUE(r.metric.empty());
    }
    if (r.benchmark == "memory/broken") {
      saw_error = true;
      EXPECT_EQ(r.status, BenchmarkStatus::error);
      EXPECT_EQ(r.message, "validation failed: max relative error 0.5 > 1e-5");
    }
  }
  EXPECT_TRUE(saw_skip);
  EXPECT_TRUE(saw_error);
  EXPECT_EQ(count("SELECT count(*) FROM samples s JOIN benchmarks b ON b.id = s.benchmark_id "
                  "WHERE b.name IN ('memory/broken', 'memory/device_triad/bytes:1024')"),
            0);
  // The context is kept.
  EXPECT_EQ(count("SELECT count(*) FROM suite_runs WHERE json_extract(context, '$.num_cpus') = 2"),
            1);
}

// Aggregates-only output is stored as such (issue 23; issue 10 refused it, which locked whole
// files out): every statistic a sample named by its kind, every benchmark's outcome kind
// 'aggregate', no repetition and no series median made up from them.
TEST_F(IngestTest, AggregatesOnlyIsStoredAsAggregates) {
  m_store.ingest_benchmark_json(m_suite_run, load_fixture("gb171_aggregates_only.json"), "memory");
  EXPECT_EQ(count("SELECT count(*) FROM samples WHERE kind = 'iteration'"), 0);
  EXPECT_GT(count("SELECT count(*) FROM samples WHERE kind = 'mean'"), 0);
  EXPECT_GT(count("SELECT count(*) FROM samples WHERE kind = 'cv'"), 0);
  EXPECT_GT(count("SELECT count(*) FROM benchmark_outcomes"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM benchmark_outcomes WHERE kind <> 'aggregate'"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM series_medians"), 0);
}

// A complexity fit (google/benchmark's tools/gbench/Inputs/test1_run1.json): its BigO row's
// coefficients in ns and its complexity kept, beside the benchmarks that have repetitions.
TEST_F(IngestTest, ComplexityFitIsStoredWithItsComplexity) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"benchmarks": [
    {"name": "BM_Small", "iterations": 10, "real_time": 5, "cpu_time": 5, "time_unit": "us"},
    {"name": "MyComplexityTest_BigO", "run_name": "MyComplexityTest", "run_type": "aggregate",
     "aggregate_name": "BigO", "cpu_coefficient": 4.25, "real_coefficient": 6.5, "big_o": "N",
     "time_unit": "us"},
    {"name": "MyComplexityTest_RMS", "run_name": "MyComplexityTest", "run_type": "aggregate",
     "aggregate_name": "RMS", "rms": 0.0045}]})");
  m_store.ingest_benchmark_json(m_suite_run, doc, "imported");
  EXPECT_EQ(count("SELECT count(*) FROM benchmark_outcomes o JOIN benchmarks b ON "
                  "b.id = o.benchmark_id WHERE b.name = 'MyComplexityTest' AND o.kind = "
                  "'aggregate' AND o.complexity = 'N'"),
            1);
  EXPECT_EQ(count("SELECT count(*) FROM benchmark_outcomes o JOIN benchmarks b ON "
                  "b.id = o.benchmark_id WHERE b.name = 'BM_Small' AND o.kind = 'repetitions'"),
            1);
  EXPECT_EQ(count("SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id "
                  "WHERE m.name = 'real_coefficient' AND s.kind = 'BigO' AND s.value = 6500"),
            1);
  EXPECT_EQ(count("SELECT count(*) FROM samples s JOIN metrics m ON m.id = s.metric_id "
                  "WHERE m.name = 'rms' AND s.kind = 'RMS'"),
            1);
}

// NaN / Infinity (Google Benchmark's bare tokens) and negative times become invalid samples
// with a reason; the rest of the document is stored.
TEST_F(IngestTest, NonFiniteAndNegativeValuesAreKeptAsInvalid) {
  const std::string text = R"({"benchmarks": [
    {"name": "x/a", "run_type": "iteration", "repetition_index": 0, "iterations": 1,
     "real_time": NaN, "cpu_time": 2, "time_unit": "us", "c": -Infinity},
    {"name": "x/a", "run_type": "iteration", "repetition_index": 1, "iterations": 1,
     "real_time": -5.5, "cpu_time": 3, "time_unit": "ms", "c": 4}]})";
  const IngestSummary s =
      m_store.ingest_benchmark_json(m_suite_run, parse_benchmark_json(text, "test"), "x");
  EXPECT_EQ(s.samples, 3);  // cpu_time x2, c of repetition 1
  EXPECT_EQ(s.invalid, 3);
  const auto invalid = m_store.get_invalid_samples(m_run);
  ASSERT_EQ(invalid.size(), 3u);
  EXPECT_EQ(invalid[0].raw, "NaN");
  EXPECT_EQ(invalid[0].reason, "real_time is NaN");
  EXPECT_EQ(invalid[1].reason, "counter c is -Infinity");
  EXPECT_EQ(invalid[2].raw, "-5.5");
  EXPECT_NE(invalid[2].reason.find("negative (-5.5 ms)"), std::string::npos) << invalid[2].reason;
  EXPECT_EQ(count("SELECT count(*) FROM samples WHERE value < 0"), 0);
}

// Issue 23 item 15: a counter that is not a number (nor "NaN"/"inf") is refused naming the
// benchmark, the counter and the value; nothing of the document is stored.
TEST_F(IngestTest, ACounterThatIsNotANumberIsRefusedNotDropped) {
  for (const char* value : {"[[1]]", "\"fast\"", "null", "false", "{}"}) {
    const std::string text = std::string(R"({"benchmarks": [
      {"name": "x/ok", "run_type": "iteration", "iterations": 1, "real_time": 1, "c": 2},
      {"name": "x/bad", "run_type": "iteration", "iterations": 1, "real_time": 1, "GB_per_s": )") +
                             value + "}]}";
    try {
      m_store.ingest_benchmark_json(m_suite_run, parse_benchmark_json(text, "test"), "x");
      FAIL() << value << " was accepted";
    } catch (const gpubench::Error& e) {
      EXPECT_EQ(e.code(), gpubench::ExitCode::bad_input);
      const std::string what = e.what();
      EXPECT_NE(what.find("benchmarks[1] ('x/bad'): counter 'GB_per_s' is " +
                          nlohmann::json::parse(value).dump()),
                std::string::npos)
          << what;
    }
    EXPECT_EQ(count("SELECT count(*) FROM samples"), 0) << value;
  }
}

// Values that cannot be converted are errors naming the field, never silently dropped.
TEST_F(IngestTest, OutOfRangeValuesAreErrors) {
  for (const char* text :
       {R"({"benchmarks": [{"name": "x/a", "iterations": 1e30, "real_time": 1}]})",
        R"({"benchmarks": [{"name": "x/a", "repetition_index": 18446744073709551615,
            "real_time": 1}]})",
        R"({"benchmarks": [{"name": "x/a", "threads": 1.5, "real_time": 1}]})"}) {
    SCOPED_TRACE(text);
    EXPECT_THROW(
        m_store.ingest_benchmark_json(m_suite_run, parse_benchmark_json(text, "test"), "x"),
        gpubench::Error);
  }
  try {
    parse_benchmark_json(R"({"benchmarks": [{"name": "x", "real_time": 1e400}]})", "huge.json");
    FAIL() << "1e400 was accepted";
  } catch (const gpubench::Error& e) {
    EXPECT_EQ(e.code(), gpubench::ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("too large"), std::string::npos) << e.what();
  }
  EXPECT_EQ(count("SELECT count(*) FROM samples"), 0);
}

TEST_F(IngestTest, GpubenchContextDeclaresMetricsAndSampleState) {
  const IngestSummary s = m_store.ingest_benchmark_json(
      m_suite_run, load_fixture("gb171_gpubench_context.json"), "ignored-default");
  EXPECT_EQ(s.skipped, 1);
  const auto rows = m_store.get_results(m_run);
  const ResultRow* dev1 = find(rows, "memory/device_copy/device:1", "GB_per_s", 1);
  ASSERT_NE(dev1, nullptr);
  EXPECT_EQ(dev1->suite, "memory");  // from context gpubench.suite
  EXPECT_EQ(dev1->unit, "GB/s");
  EXPECT_EQ(dev1->direction, Direction::higher);
  EXPECT_EQ(dev1->gpu_uuid, "GPU-66666666-7777-8888-9999-000000000000");
  // v1's "throttled" counter (clock below 75% of peak) is read as clock_below_expected: it never
  // marks a sample invalid (`throttled` is the thermal/HW slowdown mark, unknown here).
  EXPECT_EQ(dev1->clock_below_expected, (std::vector<int>{1, 1}));
  EXPECT_EQ(dev1->throttled, (std::vector<int>{-1, -1}));
  const ResultRow* dev0 = find(rows, "memory/device_copy/device:0", "GB_per_s", 0);
  ASSERT_NE(dev0, nullptr);
  EXPECT_EQ(dev0->clock_below_expected, (std::vector<int>{0, 0}));
  // State counters fill sample columns, not metrics.
  EXPECT_EQ(count("SELECT count(*) FROM metrics WHERE name IN ('throttled', 'sm_clock_mhz')"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM samples WHERE sm_clock_mhz = 1980"),
            count("SELECT count(*) FROM samples s JOIN benchmarks b ON b.id = s.benchmark_id "
                  "WHERE b.case_name = 'device_copy' AND kind IN ('iteration', 'mean', 'median')"));
  EXPECT_EQ(count("SELECT count(*) FROM samples WHERE kind IN ('stddev', 'cv') AND "
                  "sm_clock_mhz IS NOT NULL"),
            0);
  // Aggregates belong to the device of their benchmark, whatever the aggregated counter says.
  EXPECT_EQ(dev1->aggregates.size(), 4u);
  // Declared metrics come first after the times, in declaration order.
  std::vector<std::string> metrics;
  for (const ResultRow& r : rows) {
    if (r.benchmark == "memory/device_copy/device:0") metrics.push_back(r.metric);
  }
  EXPECT_EQ(metrics, (std::vector<std::string>{"real_time", "cpu_time", "GB_per_s"}));
}

TEST_F(IngestTest, NewerFormatSkipsSecondsAndManualTime) {
  const IngestSummary s =
      m_store.ingest_benchmark_json(m_suite_run, load_fixture("gb18_skipped.json"), "imported");
  EXPECT_EQ(s.benchmarks, 3);
  EXPECT_EQ(s.skipped, 1);
  EXPECT_EQ(s.errors, 1);
  const auto rows = m_store.get_results(m_run);
  ASSERT_EQ(rows.size(), 2u + 4u);  // skip, error, then real_time, cpu_time, TFLOPs, items/s
  EXPECT_EQ(rows[0].status, BenchmarkStatus::skipped);
  EXPECT_EQ(rows[0].message, "FP8 needs sm_89+");
  EXPECT_EQ(rows[0].suite, "imported");
  EXPECT_EQ(rows[0].case_name, "BM_gemm/fp8");
  EXPECT_EQ(rows[1].status, BenchmarkStatus::error);
  const ResultRow* t = find(rows, "BM_gemm/bf16/m:8192/manual_time", "real_time");
  ASSERT_NE(t, nullptr);
  EXPECT_DOUBLE_EQ(t->values.at(0), 1.25e6);  // 0.00125 s
  ASSERT_EQ(t->params.size(), 2u);
  EXPECT_EQ(t->params[1].key, "manual_time");
  const ResultRow* items = find(rows, "BM_gemm/bf16/m:8192/manual_time", "items_per_second");
  ASSERT_NE(items, nullptr);
  EXPECT_EQ(items->unit, "items/s");
}

TEST_F(IngestTest, NotGoogleBenchmarkIsBadInputAndStoresNothing) {
  auto expect_bad = [&](const json& doc, const std::string& needle) {
    try {
      m_store.ingest_benchmark_json(m_suite_run, doc, "x");
      ADD_FAILURE() << "accepted: " << doc.dump();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::bad_input) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_bad(json::array({1, 2}), "is a array, not an object");
  expect_bad(load_fixture("not_benchmark.json"),
             "no 'benchmarks' array (top-level keys: '_fixture', 'results')");
  expect_bad(json{{"benchmarks", "many"}}, "'benchmarks' is a string");
  expect_bad(json{{"benchmarks", json::array({42})}}, "benchmarks[0] is a number");
  expect_bad(json{{"benchmarks", json::array({json{{"real_time", 1}}})}}, "has no 'name'");
  json bad_unit = load_fixture("gb171_repetitions.json");
  bad_unit["benchmarks"][5]["time_unit"] = "fortnights";
  expect_bad(bad_unit, "benchmarks[5] has unknown time_unit 'fortnights'");
  json bad_time = load_fixture("gb171_repetitions.json");
  bad_time["benchmarks"][7]["real_time"] = "fast";
  expect_bad(bad_time, "benchmarks[7].real_time is a string");
  json bad_metrics = load_fixture("gb171_gpubench_context.json");
  bad_metrics["context"]["gpubench.metrics"] = "[{oops";
  expect_bad(bad_metrics, "gpubench.metrics");
  // All or nothing: the valid rows before the bad one were not kept.
  EXPECT_EQ(count("SELECT count(*) FROM samples"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM benchmark_outcomes"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM benchmarks"), 0);
  expect_bad(json::object({{"benchmarks", json::array()}}).dump(), "is a string");
  EXPECT_EQ(
      m_store.ingest_benchmark_json(m_suite_run, json{{"benchmarks", json::array()}}, "x").samples,
      0);
}

TEST_F(IngestTest, UnknownSuiteRunIsBadInput) {
  EXPECT_THROW(m_store.ingest_benchmark_json(9999, json{{"benchmarks", json::array()}}, "x"),
               Error);
}

TEST_F(IngestTest, DeviceParameterInTheNameIsTheSamplesDevice) {
  // Inline fixture in Google Benchmark 1.7.1's JSON shape: GPU suites name the device
  // ("device:N") instead of writing a device_index counter.
  const json doc = json::parse(R"({
    "context": {"gpubench.suite": "gemm",
                "gpubench.metrics": "[{\"name\":\"TFLOP_per_s\",\"unit\":\"TFLOP/s\",\"direction\":\"higher\"}]"},
    "benchmarks": [
      {"name": "gemm/cublaslt/dtype:bf16/m:64/device:1/manual_time", "run_name":
       "gemm/cublaslt/dtype:bf16/m:64/device:1/manual_time", "run_type": "iteration",
       "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 10,
       "real_time": 5.0, "cpu_time": 5.0, "time_unit": "us", "TFLOP_per_s": 700.0},
      {"name": "gemm/cublaslt/dtype:bf16/m:64/device:0/manual_time", "run_name":
       "gemm/cublaslt/dtype:bf16/m:64/device:0/manual_time", "run_type": "iteration",
       "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 10,
       "real_time": 5.0, "cpu_time": 5.0, "time_unit": "us", "TFLOP_per_s": 710.0,
       "label": "device_index=3"}
    ]})");
  m_store.ingest_benchmark_json(m_suite_run, doc, "gemm");
  const auto rows = m_store.get_results(m_run);
  const ResultRow* one = find(rows, "gemm/cublaslt/dtype:bf16/m:64/device:1/manual_time",
                              "TFLOP_per_s", 1);
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->values, (std::vector<double>{700.0}));
  // An explicit label wins over the name.
  EXPECT_NE(find(rows, "gemm/cublaslt/dtype:bf16/m:64/device:0/manual_time", "TFLOP_per_s", 3),
            nullptr);
}

// Samples go in batches of 64 rows: a batch where no sample has a state binds ten columns, one
// with any state all twenty. 150 entries of a gpubench file, every 40th with clock, power and
// window: every stored column must be the entry's, whichever statement stored it.
TEST_F(IngestTest, SampleBatchesWithAndWithoutStateStoreEveryColumn) {
  json list = json::array();
  for (int i = 0; i < 150; ++i) {
    json e = {{"name", "memory/copy/n:" + std::to_string(i / 3)},
              {"run_type", "iteration"},
              {"repetition_index", i % 3},
              {"iterations", 100 + i},
              {"threads", 1 + i % 2},
              {"real_time", 1000.0 + i},
              {"cpu_time", 2000.0 + i},
              {"time_unit", "ns"},
              {"GB_per_s", 3000.0 + i}};
    if (i % 40 == 7) {
      e["sm_clock_mhz"] = 1900.0 + i;
      e["power_w"] = 600.0 + i;
      e["thermal_or_hw_slowdown"] = 1;
      e["window_start_s"] = 10.0 + i;
      e["window_end_s"] = 11.0 + i;
    }
    list.push_back(e);
  }
  const json doc = {{"context",
                     {{"gpubench.suite", "memory"},
                      {"gpubench.metrics",
                       R"([{"name":"GB_per_s","unit":"GB/s","direction":"higher"}])"}}},
                    {"benchmarks", list}};
  EXPECT_EQ(m_store.ingest_benchmark_json(m_suite_run, doc, "memory").samples, 450);
  Statement st = m_store.database().prepare(
      "SELECT b.name, x.name, s.repetition, s.iterations, s.threads, s.value, s.kind, "
      "s.sm_clock_mhz, s.power_w, s.throttled, s.window_start_s, s.window_end_s, "
      "s.suite_run_id FROM samples s JOIN benchmarks b ON b.id = s.benchmark_id JOIN metrics x "
      "ON x.id = s.metric_id ORDER BY s.id");
  int row = 0;
  const char* metrics[] = {"real_time", "cpu_time", "GB_per_s"};
  const double base[] = {1000, 2000, 3000};
  while (st.step()) {
    const int i = row / 3;
    const int m = row % 3;
    SCOPED_TRACE("sample " + std::to_string(row));
    EXPECT_EQ(st.column_text(0), "memory/copy/n:" + std::to_string(i / 3));
    EXPECT_EQ(st.column_text(1), metrics[m]);
    EXPECT_EQ(st.column_int64(2), i % 3);
    EXPECT_EQ(st.column_int64(3), 100 + i);
    EXPECT_EQ(st.column_int64(4), 1 + i % 2);
    EXPECT_EQ(st.column_double(5), base[m] + i);
    EXPECT_EQ(st.column_text(6), "iteration");
    EXPECT_EQ(st.column_int64(12), m_suite_run);
    if (i % 40 == 7) {
      EXPECT_EQ(st.column_optional_double(7), 1900.0 + i);
      EXPECT_EQ(st.column_optional_double(8), 600.0 + i);
      EXPECT_EQ(st.column_optional_int64(9), 1);
      EXPECT_EQ(st.column_optional_double(10), 10.0 + i);
      EXPECT_EQ(st.column_optional_double(11), 11.0 + i);
    } else {
      for (int c = 7; c <= 11; ++c) EXPECT_TRUE(st.is_null(c)) << "column " << c;
    }
    ++row;
  }
  EXPECT_EQ(row, 450);
}

// A document whose benchmarks alternate between names stored by an earlier ingest and new ones:
// the stored ones are reused (no second row, no second set of parameters), the new ones stored
// with their parameters, and every sample belongs to its own benchmark.
TEST_F(IngestTest, StoredBenchmarksAreReusedAndNewOnesStoredWhateverTheirOrder) {
  auto doc_of = [](const std::vector<std::string>& names) {
    json list = json::array();
    for (const std::string& name : names) {
      list.push_back({{"name", name}, {"run_type", "iteration"}, {"real_time", 1.0},
                      {"cpu_time", 1.0}, {"time_unit", "ns"}});
    }
    return json{{"benchmarks", list}};
  };
  std::vector<std::string> first, mixed;
  for (int k = 0; k < 10; ++k) first.push_back("memory/old/size:" + std::to_string(k));
  for (int k = 0; k < 10; ++k) {
    mixed.push_back(first[static_cast<size_t>(k)]);
    mixed.push_back("memory/new/size:" + std::to_string(k) + "/n:" + std::to_string(2 * k));
  }
  m_store.ingest_benchmark_json(m_suite_run, doc_of(first), "memory");
  const int64_t second = m_store.add_suite_run(m_run, sample_suite_run());
  m_store.ingest_benchmark_json(second, doc_of(mixed), "memory");
  EXPECT_EQ(count("SELECT count(*) FROM benchmarks"), 20);
  EXPECT_EQ(count("SELECT count(*) FROM benchmark_params"), 30);
  EXPECT_EQ(count("SELECT count(*) FROM benchmark_params p JOIN benchmarks b ON b.id = "
                  "p.benchmark_id WHERE b.name LIKE 'memory/new/%' AND p.key = 'n' AND "
                  "p.number = 2 * (SELECT q.number FROM benchmark_params q WHERE q.benchmark_id "
                  "= b.id AND q.key = 'size')"),
            10);
  Statement st = m_store.database().prepare(
      "SELECT b.name FROM samples s JOIN benchmarks b ON b.id = s.benchmark_id JOIN metrics x ON "
      "x.id = s.metric_id WHERE s.suite_run_id = ?1 AND x.name = 'real_time' ORDER BY s.id");
  st.bind(1, second);
  std::vector<std::string> names;
  while (st.step()) names.push_back(st.column_text(0));
  EXPECT_EQ(names, mixed);
}

TEST(ParseBenchmarkJson, NonFiniteTokensAreReadAsSuch) {
  const json j = parse_benchmark_json(
      R"({"a": NaN, "b": -NaN, "c": Infinity, "d": -Infinity, "s": "NaN \"Infinity\"", "n": 1})",
      "x.json");
  EXPECT_TRUE(std::isnan(non_finite_value(j["a"]).value_or(0)));
  EXPECT_TRUE(std::isnan(non_finite_value(j["b"]).value_or(0)));
  EXPECT_EQ(non_finite_value(j["c"]), std::numeric_limits<double>::infinity());
  EXPECT_EQ(non_finite_value(j["d"]), -std::numeric_limits<double>::infinity());
  EXPECT_FALSE(non_finite_value(j["s"]).has_value());  // inside strings nothing changes
  EXPECT_EQ(j["s"], "NaN \"Infinity\"");
  EXPECT_EQ(j["n"], 1);
}

TEST(ParseBenchmarkJson, TruncatedOrEmptyIsBadInputNamingTheSource) {
  const std::string truncated = read_file(testing::fixture_path("truncated.json"));
  try {
    parse_benchmark_json(truncated, "truncated.json");
    FAIL() << "truncated JSON accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_EQ(e.what_failed(), "cannot read truncated.json");
    EXPECT_NE(e.why().find("not valid JSON"), std::string::npos) << e.why();
  }
  try {
    parse_benchmark_json("  \n", "empty.json");
    FAIL() << "empty input accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.why(), "it is empty");
  }
}

}  // namespace
}  // namespace gpubench::results
