// The streaming reader of Google Benchmark files (results/ingest_stream.hpp) and the per-run
// series medians written with the samples (results/series_medians.hpp). Inputs are fixtures.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <vector>

#include "helpers.hpp"
#include "results/ingest_stream.hpp"
#include "results/series_medians.hpp"
#include "results/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

using nlohmann::json;

// Collects the streamed entries.
class Collect : public EntrySink {
 public:
  bool begin_entries(const json& head) override {
    heads.push_back(head);
    return stream;
  }
  void entry(const json& e, std::size_t index) override {
    EXPECT_EQ(index, entries.size());
    entries.push_back(e);
  }
  bool stream = true;
  std::vector<json> heads;
  std::vector<json> entries;
};

// The same document, read whole from text and streamed from the file, must agree in every
// value (non-finite markers included).
void expect_same_as_text(const std::filesystem::path& path) {
  SCOPED_TRACE(path.string());
  const json whole = parse_benchmark_json(read_file(path), path.filename().string());
  EXPECT_EQ(parse_benchmark_file(path, "f", nullptr), whole);
  Collect sink;
  json rest = parse_benchmark_file(path, "f", &sink);
  ASSERT_EQ(sink.heads.size(), 1u);
  EXPECT_TRUE(sink.heads[0].contains("context"));  // Google Benchmark writes it first
  EXPECT_EQ(rest["benchmarks"], json::array());
  rest["benchmarks"] = sink.entries;
  EXPECT_EQ(rest, whole);
  Collect keep;
  keep.stream = false;
  EXPECT_EQ(parse_benchmark_file(path, "f", &keep), whole);
  EXPECT_TRUE(keep.entries.empty());
}

TEST(ParseBenchmarkFile, EveryFixtureReadsAsTheWholeDocumentDoes) {
  for (const char* name : {"gb171_repetitions.json", "gb171_gpubench_context.json",
                           "gb18_skipped.json", "gb171_aggregates_only.json"}) {
    expect_same_as_text(testing::fixture_path(name));
  }
}

// Tokens, escapes and strings placed across the reader's 1 MiB chunk boundary at every offset.
TEST(ParseBenchmarkFile, TokensAndEscapesAcrossChunkBoundaries) {
  TempDir dir("gpubench-test-stream");
  const std::size_t chunk = std::size_t{1} << 20;
  for (int shift = 0; shift < 14; ++shift) {
    std::string text = R"({"context": {"pad": ")";
    const std::string tail =
        R"("}, "benchmarks": [{"name": "a\"b\\", "real_time": -Infinity, "cpu_time": NaN,)"
        R"( "x": Infinity, "y": -NaN, "s": "NaN \\\"Infinity", "z": -1.5e3}]})";
    // Put the tail's interesting bytes around the chunk boundary.
    text += std::string(chunk - text.size() - 30 + static_cast<std::size_t>(shift) * 3, 'p');
    text += tail;
    const std::filesystem::path path = dir.path() / ("f" + std::to_string(shift) + ".json");
    std::ofstream(path) << text;
    expect_same_as_text(path);
    Collect sink;
    parse_benchmark_file(path, "f", &sink);
    ASSERT_EQ(sink.entries.size(), 1u);
    const json& e = sink.entries[0];
    EXPECT_EQ(e["name"], "a\"b\\");
    EXPECT_EQ(non_finite_value(e["real_time"]), -std::numeric_limits<double>::infinity());
    EXPECT_TRUE(std::isnan(non_finite_value(e["cpu_time"]).value_or(0)));
    EXPECT_EQ(e["s"], "NaN \\\"Infinity");
    EXPECT_EQ(e["z"], -1500.0);
  }
}

TEST(ParseBenchmarkFile, BadFilesAreBadInputNamingTheCause) {
  TempDir dir("gpubench-test-stream");
  auto error_of = [&](const std::string& text) {
    const std::filesystem::path path = dir.path() / "bad.json";
    std::ofstream(path) << text;
    try {
      Collect sink;
      parse_benchmark_file(path, "bad.json", &sink);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::bad_input);
      EXPECT_EQ(e.what_failed(), "cannot read bad.json");
      return e.why();
    }
    ADD_FAILURE() << "accepted: " << text;
    return std::string();
  };
  EXPECT_EQ(error_of(" \n"), "it is empty");
  EXPECT_NE(error_of(read_file(testing::fixture_path("truncated.json"))).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"benchmarks": [{"real_time": 1e400}]})").find("too large"),
            std::string::npos);
  try {
    parse_benchmark_file(dir.path() / "missing.json", "missing.json", nullptr);
    FAIL() << "a missing file was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
  }
}

class SeriesMedians : public ::testing::Test {
 protected:
  void SetUp() override {
    m_run = m_store.begin_run(testing::sample_run_info());
    m_suite_run = m_store.add_suite_run(m_run, testing::sample_suite_run());
  }
  // (n, median) stored for the suite run's series of `benchmark` and `metric`.
  std::pair<int64_t, double> stored(const std::string& benchmark, const std::string& metric) {
    Statement st = m_store.database().prepare(
        "SELECT m.n, m.median FROM series_medians m JOIN benchmarks b ON b.id = m.benchmark_id "
        "JOIN metrics x ON x.id = m.metric_id WHERE m.suite_run_id = ?1 AND b.name = ?2 AND "
        "x.name = ?3");
    st.bind(1, m_suite_run).bind(2, benchmark).bind(3, metric);
    if (!st.step()) return {0, NAN};
    return {st.column_int64(0), st.column_double(1)};
  }
  TempDir m_dir{"gpubench-test-medians"};
  Store m_store = Store::open(m_dir.path() / "gpubench.db", OpenMode::read_write_create);
  int64_t m_run = 0;
  int64_t m_suite_run = 0;
};

// Fixture: 4 repetitions of one GPU benchmark; the third is marked a thermal slowdown by its
// suite, and a median aggregate row says something else entirely.
json slowdown_doc() {
  json list = json::array();
  const double times[] = {100, 110, 500, 120};
  for (int r = 0; r < 4; ++r) {
    list.push_back({{"name", "memory/copy/device:0"},
                    {"run_name", "memory/copy/device:0"},
                    {"run_type", "iteration"},
                    {"repetitions", 4},
                    {"repetition_index", r},
                    {"iterations", 10},
                    {"real_time", times[r]},
                    {"cpu_time", times[r]},
                    {"time_unit", "ns"},
                    {"GB_per_s", 1000.0 / times[r]},
                    {"thermal_or_hw_slowdown", r == 2 ? 1 : 0}});
  }
  list.push_back({{"name", "memory/copy/device:0_median"},
                  {"run_name", "memory/copy/device:0"},
                  {"run_type", "aggregate"},
                  {"aggregate_name", "median"},
                  {"repetitions", 4},
                  {"iterations", 10},
                  {"real_time", 999.0},
                  {"cpu_time", 999.0},
                  {"time_unit", "ns"},
                  {"GB_per_s", 1.0}});
  return {{"context",
           {{"gpubench.suite", "memory"},
            {"gpubench.metrics", R"([{"name":"GB_per_s","unit":"GB/s","direction":"higher"}])"}}},
          {"benchmarks", list}};
}

TEST_F(SeriesMedians, IngestStoresTheMedianOfTheValidRepetitions) {
  m_store.ingest_benchmark_json(m_suite_run, slowdown_doc(), "memory");
  // 100, 110, 120 (500 was a thermal slowdown; the aggregate row is not a repetition).
  EXPECT_EQ(stored("memory/copy/device:0", "real_time"), (std::pair<int64_t, double>{3, 110}));
  EXPECT_EQ(stored("memory/copy/device:0", "GB_per_s").first, 3);
  EXPECT_DOUBLE_EQ(stored("memory/copy/device:0", "GB_per_s").second, 1000.0 / 110);
}

TEST_F(SeriesMedians, RefreshFollowsStatesChangedAfterIngest) {
  m_store.ingest_benchmark_json(m_suite_run, slowdown_doc(), "memory");
  // A later classification marks the 120 ns repetition throttled too.
  m_store.database().exec(
      "UPDATE samples SET throttled = 1 WHERE kind = 'iteration' AND value = 120");
  detail::refresh_series_medians(m_store.database(), m_suite_run);
  EXPECT_EQ(stored("memory/copy/device:0", "real_time"), (std::pair<int64_t, double>{2, 105}));
}

}  // namespace
}  // namespace gpubench::results
