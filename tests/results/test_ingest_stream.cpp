// The streaming reader of Google Benchmark files (results/ingest/ingest_stream.hpp) and the per-run
// series medians written with the samples (results/schema/series_medians.hpp). Inputs are fixtures.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "helpers.hpp"
#include "results/ingest/ingest_stream.hpp"
#include "results/schema/series_medians.hpp"
#include "results/sqlite/sqlite.hpp"
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
  void entry(const StreamedEntry& e, std::size_t index, EntryWork* /*work*/) override {
    EXPECT_EQ(index, entries.size());
    entries.push_back(e.to_json());
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

// A file of `n` small entries "e<i>", context first.
std::filesystem::path entries_file(const TempDir& dir, std::size_t n, const std::string& tail = "]}") {
  std::string text = R"({"context": {"host_name": "h"}, "benchmarks": [)";
  for (std::size_t i = 0; i < n; ++i) {
    text += (i ? ",\n" : "\n") + std::string(R"({"name": "e)") + std::to_string(i) +
            R"(", "run_type": "iteration", "real_time": )" + std::to_string(i + 1) +
            R"(, "cpu_time": 1, "time_unit": "ns"})";
  }
  text += tail;
  const std::filesystem::path path = dir.path() / ("n" + std::to_string(n) + ".json");
  std::ofstream(path) << text;
  return path;
}

// Entries that are not plain objects of scalars: nested values, a key given twice, elements that
// are not objects, an empty object. Read member by member, each must equal what the whole
// document holds (a key given twice keeps its last value in both).
TEST(ParseBenchmarkFile, NestedDuplicateAndNonObjectEntriesReadAsTheDocumentDoes) {
  TempDir dir("gpubench-test-stream");
  const std::filesystem::path path = dir.path() / "odd.json";
  std::ofstream(path) << R"({"context": {"x": [1, {"y": null}]}, "benchmarks": [
    {"name": "a", "x": 1, "x": 2, "nested": {"k": [1, {"z": NaN}], "s": "t"}, "arr": [true, "u"]},
    42, "text", [1, [2]], null, {},
    {"name": "b", "s": "NaN \\\"q", "name": "c", "v": -Infinity, "w": 1e-3}
  ], "after": {"k": 1}})";
  expect_same_as_text(path);
  Collect sink;
  parse_benchmark_file(path, "f", &sink);
  ASSERT_EQ(sink.entries.size(), 7u);
  EXPECT_EQ(sink.entries[0]["x"], 2);
  EXPECT_EQ(sink.entries[1], 42);
  EXPECT_EQ(sink.entries[5], json::object());
  EXPECT_EQ(sink.entries[6]["name"], "c");
}

// More entries than the hand-over holds at once (batches of 256, four waiting): every entry
// arrives once, in order, with its index, however slowly the sink takes them; prepare() ran
// for each, before entry(), with the same entry.
TEST(ParseBenchmarkFile, ManyEntriesArriveInOrderWithWhatPrepareMadeOfThem) {
  TempDir dir("gpubench-test-stream");
  const std::size_t n = 3000;
  const std::filesystem::path path = entries_file(dir, n);
  struct Name : EntryWork {
    std::string name;
    std::size_t index = 0;
  };
  class Slow : public EntrySink {
   public:
    bool begin_entries(const json& /*head*/) override { return true; }
    std::unique_ptr<EntryWork> prepare(const StreamedEntry& e, std::size_t index) override {
      auto w = std::make_unique<Name>();
      w->name = e.to_json()["name"];
      w->index = index;
      return w;
    }
    void entry(const StreamedEntry& e, std::size_t index, EntryWork* work) override {
      if (index % 500 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      EXPECT_EQ(index, seen);
      ASSERT_NE(work, nullptr);
      const auto& w = static_cast<const Name&>(*work);
      EXPECT_EQ(w.index, index);
      EXPECT_EQ(w.name, "e" + std::to_string(index));
      EXPECT_EQ(e.to_json()["name"], w.name);
      ++seen;
    }
    std::size_t seen = 0;
  } sink;
  const json rest = parse_benchmark_file(path, "f", &sink);
  EXPECT_EQ(sink.seen, n);
  EXPECT_EQ(rest["benchmarks"], json::array());
}

// A sink that throws stops the reading (it does not hang on a full hand-over) and its exception
// comes out unchanged, in begin_entries as in entry; no entry after it reaches the sink.
TEST(ParseBenchmarkFile, ASinkThatThrowsStopsTheReadingWithItsOwnError) {
  TempDir dir("gpubench-test-stream");
  const std::filesystem::path path = entries_file(dir, 5000);
  class Throws : public EntrySink {
   public:
    explicit Throws(std::size_t at) : m_at(at) {}
    bool begin_entries(const json& /*head*/) override {
      if (m_at == 0) throw std::runtime_error("no thanks");
      return true;
    }
    void entry(const StreamedEntry& /*e*/, std::size_t index, EntryWork* /*work*/) override {
      if (index + 1 == m_at) throw std::runtime_error("stop at " + std::to_string(index));
      ++seen;
    }
    std::size_t seen = 0;

   private:
    std::size_t m_at;
  };
  for (std::size_t at : {std::size_t{0}, std::size_t{1}, std::size_t{700}, std::size_t{5000}}) {
    Throws sink(at);
    try {
      parse_benchmark_file(path, "f", &sink);
      ADD_FAILURE() << "no exception for " << at;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), at == 0 ? "no thanks" : "stop at " + std::to_string(at - 1));
    }
    EXPECT_EQ(sink.seen, at == 0 ? 0 : at - 1);
  }
}

// A file that breaks off after some entries: the entries before the break reach the sink, then
// the read fails as bad input (the caller rolls back what the sink stored).
TEST(ParseBenchmarkFile, EntriesBeforeABreakArriveThenTheErrorComes) {
  TempDir dir("gpubench-test-stream");
  const std::filesystem::path path = entries_file(dir, 600, R"(, {"name": "cut", "real_t)");
  Collect sink;
  try {
    parse_benchmark_file(path, "cut.json", &sink);
    FAIL() << "a cut file was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(e.why().find("not valid JSON"), std::string::npos) << e.why();
  }
  ASSERT_EQ(sink.entries.size(), 600u);
  EXPECT_EQ(sink.entries.back()["name"], "e599");
}

// Every stored row an import writes, as text, for comparing two imports of the same input.
std::vector<std::string> stored_rows(Store& store) {
  const std::pair<const char*, int> queries[] = {
      {"SELECT b.name, x.name, s.kind, s.repetition, s.value, s.device_index, s.gpu_device_id, "
       "s.iterations, s.threads, s.throttled, s.sm_clock_mhz, s.temperature_c, s.power_w, "
       "s.throttle_reasons, s.power_limited, s.thermal_or_hw_slowdown, s.clock_below_expected, "
       "s.window_start_s, s.window_end_s FROM samples s JOIN benchmarks b ON b.id = "
       "s.benchmark_id JOIN metrics x ON x.id = s.metric_id ORDER BY s.id",
       19},
      {"SELECT b.name, o.position, o.status, o.message FROM benchmark_outcomes o JOIN benchmarks "
       "b ON b.id = o.benchmark_id ORDER BY o.position",
       4},
      {"SELECT b.name, i.metric, i.kind, i.repetition, i.raw, i.reason FROM invalid_samples i "
       "JOIN benchmarks b ON b.id = i.benchmark_id ORDER BY i.id",
       6},
      {"SELECT b.name, x.name, m.device_index, m.n, m.median FROM series_medians m JOIN "
       "benchmarks b ON b.id = m.benchmark_id JOIN metrics x ON x.id = m.metric_id ORDER BY 1, "
       "2, 3",
       5},
      {"SELECT name, suite, case_name, params FROM benchmarks ORDER BY id", 4},
      {"SELECT benchmark_id, position, key, text, number FROM benchmark_params ORDER BY 1, 2", 5},
      {"SELECT name, unit, direction FROM metrics ORDER BY id", 3}};
  std::vector<std::string> rows;
  for (const auto& [sql, columns] : queries) {
    Statement st = store.database().prepare(sql);
    while (st.step()) {
      std::string row;
      for (int c = 0; c < columns; ++c) row += (st.is_null(c) ? "NULL" : st.column_text(c)) + "|";
      rows.push_back(row);
    }
    rows.push_back("--");
  }
  return rows;
}

// Imports a file as a stream into `store`, the way `gpubench import` does: entries read on the
// parsing thread (prepare), stored on this one.
class StreamIntoStore : public EntrySink {
 public:
  explicit StreamIntoStore(Store& store) : m_store(store) {}
  bool begin_entries(const json& head) override {
    m_import = m_store.begin_import(testing::sample_run_info(), testing::sample_suite_run(),
                                    head.value("context", json::object()), "memory");
    return true;
  }
  std::unique_ptr<EntryWork> prepare(const StreamedEntry& e, std::size_t index) override {
    return m_import->prepare(e, index);
  }
  void entry(const StreamedEntry& e, std::size_t index, EntryWork* work) override {
    m_import->add(e, index, work);
  }
  void finish() { m_import->finish(); }

 private:
  Store& m_store;
  std::unique_ptr<Store::RunImport> m_import;
};

// A file streamed in stores exactly the rows the whole document stores: every fixture, and one
// with a key given twice, non-finite and negative values, a label naming the device, an error
// and a skip. A bad entry (a nested counter among them, issue 23) fails with the same message
// either way.
TEST(StreamedImport, StoresWhatTheWholeDocumentStores) {
  TempDir dir("gpubench-test-stream");
  const std::filesystem::path odd = dir.path() / "odd.json";
  std::ofstream(odd) << R"({"context": {"gpubench.suite": "memory", "gpubench.metrics":
      "[{\"name\":\"GB_per_s\",\"unit\":\"GB/s\",\"direction\":\"higher\"}]"}, "benchmarks": [
    {"name": "memory/copy/device:0", "run_type": "iteration", "repetition_index": 0,
     "iterations": 5, "real_time": 10, "cpu_time": 11, "time_unit": "us", "GB_per_s": 1,
     "GB_per_s": 2, "zeta": 3, "alpha": NaN, "sm_clock_mhz": 1980,
     "thermal_or_hw_slowdown": 1},
    {"name": "memory/copy/device:0", "run_type": "iteration", "repetition_index": 1,
     "iterations": 5, "real_time": -Infinity, "cpu_time": -3, "time_unit": "us", "GB_per_s": 4},
    {"name": "memory/copy/n:2", "run_type": "iteration", "real_time": 1, "cpu_time": 1,
     "label": "device_index=1,gpu_uuid=GPU-x"},
    {"name": "memory/copy/n:2", "run_type": "iteration", "real_time": 2, "cpu_time": 2},
    {"name": "memory/err", "error_occurred": true, "error_message": "skipped: no GPU"},
    {"name": "memory/err2", "error_occurred": true, "error_message": "boom"}
  ]})";
  std::vector<std::filesystem::path> files = {odd};
  for (const char* name :
       {"gb171_repetitions.json", "gb171_gpubench_context.json", "gb18_skipped.json"}) {
    files.push_back(testing::fixture_path(name));
  }
  for (const std::filesystem::path& file : files) {
    SCOPED_TRACE(file.string());
    const std::string tag = file.stem().string();
    Store whole = Store::open(dir.path() / (tag + "-whole.db"), OpenMode::read_write_create);
    int64_t run = 0;
    whole.import_run(testing::sample_run_info(), testing::sample_suite_run(),
                     parse_benchmark_json(read_file(file), "f"), "memory", run);
    Store streamed = Store::open(dir.path() / (tag + "-streamed.db"), OpenMode::read_write_create);
    StreamIntoStore sink(streamed);
    parse_benchmark_file(file, "f", &sink);
    sink.finish();
    const std::vector<std::string> rows = stored_rows(whole);
    EXPECT_GT(rows.size(), 10u);
    EXPECT_EQ(stored_rows(streamed), rows);
  }

  // Bad entries: the same message streamed as whole.
  const std::pair<const char*, const char*> bad[] = {
      {R"({"name": "b", "real_time": 1, "time_unit": "fortnights"})", "fortnights"},
      {R"(42)", "not an object"},
      {R"({"name": "b", "real_time": "fast"})", "not a number"},
      {R"({"name": "b", "iterations": 1.5})", "not a whole number"},
      {R"({"real_time": 1})", "has no 'name'"},
      {R"({"name": "b", "real_time": 1, "extra": {"a": [1]}})", "counter 'extra' is {\"a\":[1]}"}};
  for (const auto& [entry, why] : bad) {
    SCOPED_TRACE(entry);
    const std::filesystem::path file = dir.path() / "bad.json";
    std::ofstream(file) << R"({"context": {}, "benchmarks": [{"name": "ok", "real_time": 1},
        {"name": "ok2", "real_time": 2}, )"
                        << entry << "]}";
    auto error_of = [](auto&& f) -> std::string {
      try {
        f();
      } catch (const Error& e) {
        return e.why();
      }
      return "no error";
    };
    const std::string whole_error = error_of([&] {
      Store store = Store::open(dir.path() / "bad-whole.db", OpenMode::read_write_create);
      int64_t run = 0;
      store.import_run(testing::sample_run_info(), testing::sample_suite_run(),
                       parse_benchmark_json(read_file(file), "f"), "memory", run);
    });
    const std::string streamed_error = error_of([&] {
      Store store = Store::open(dir.path() / "bad-streamed.db", OpenMode::read_write_create);
      StreamIntoStore sink(store);
      parse_benchmark_file(file, "f", &sink);
      sink.finish();
    });
    EXPECT_NE(whole_error.find(why), std::string::npos) << whole_error;
    EXPECT_NE(whole_error.find("benchmarks[2]"), std::string::npos) << whole_error;
    EXPECT_EQ(streamed_error, whole_error);
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
