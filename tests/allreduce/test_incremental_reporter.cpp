// The allreduce suite's JSON file reporter: the file on disk is complete, valid Google Benchmark
// JSON after every written case, so a suite killed mid-run keeps what it measured.
#include "suites/allreduce/incremental_reporter.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <unistd.h>

namespace gpubench::allreduce {
namespace {

namespace fs = std::filesystem;

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::json::parse(s.str());
}

benchmark::BenchmarkReporter::Run make_run(const std::string& name, bool error) {
  benchmark::BenchmarkReporter::Run r;
  r.run_name.function_name = name;
  r.iterations = 1;
  r.real_accumulated_time = 1e-3;
  r.cpu_accumulated_time = 1e-3;
  r.error_occurred = error;
  if (error) r.error_message = "rank 1: injected failure";
  r.counters["busbw_GB_per_s"] = 12.5;
  return r;
}

struct TempFile {
  fs::path path =
      fs::temp_directory_path() / ("gpubench-incremental-" + std::to_string(::getpid()) + ".json");
  ~TempFile() {
    std::error_code ec;
    fs::remove(path, ec);
    fs::remove(path.string() + ".partial", ec);
  }
};

TEST(IncrementalReporter, TheFileIsValidAfterEveryCase) {
  TempFile f;
  bool summary_added = false;
  IncrementalJsonReporter rep(
      f.path.string(), [&] { summary_added = true; }, 20.0, [] { return 0.0; });
  benchmark::BenchmarkReporter::Context ctx;
  ASSERT_TRUE(rep.ReportContext(ctx));
  for (int i = 0; i < 3; ++i) {
    rep.ReportRuns({make_run("allreduce/case" + std::to_string(i), false)});
    // What a kill right now would leave: a parseable file with every case so far.
    const auto doc = read_json(f.path);
    ASSERT_EQ(doc["benchmarks"].size(), static_cast<std::size_t>(i + 1));
    EXPECT_EQ(doc["benchmarks"][static_cast<std::size_t>(i)]["name"],
              "allreduce/case" + std::to_string(i));
    EXPECT_DOUBLE_EQ(doc["benchmarks"][0]["busbw_GB_per_s"].get<double>(), 12.5);
    EXPECT_TRUE(doc.contains("context"));
  }
  EXPECT_FALSE(summary_added);
  rep.Finalize();
  EXPECT_TRUE(summary_added);
  EXPECT_EQ(read_json(f.path)["benchmarks"].size(), 3u);
  EXPECT_FALSE(fs::exists(f.path.string() + ".partial"));
}

TEST(IncrementalReporter, RewritesAreThrottledByTheirCostExceptForFailures) {
  TempFile f;
  // Every clock reading advances 10 ms, so a rewrite "takes" 10 ms and the next one is due
  // 20 x 10 ms = 200 ms after it.
  double now = 0;
  IncrementalJsonReporter rep(f.path.string(), {}, 20.0, [&] { return now += 0.01; });
  benchmark::BenchmarkReporter::Context ctx;
  rep.ReportContext(ctx);
  rep.ReportRuns({make_run("a", false)});  // first: written
  EXPECT_EQ(rep.writes(), 1);
  rep.ReportRuns({make_run("b", false)});  // 10 ms later: kept in memory
  EXPECT_EQ(rep.writes(), 1);
  EXPECT_EQ(read_json(f.path)["benchmarks"].size(), 1u);
  rep.ReportRuns({make_run("c", true)});  // a failure is written at once
  EXPECT_EQ(rep.writes(), 2);
  const auto doc = read_json(f.path);
  ASSERT_EQ(doc["benchmarks"].size(), 3u);
  EXPECT_TRUE(doc["benchmarks"][2]["error_occurred"].get<bool>());
  now += 1;
  rep.ReportRuns({make_run("d", false)});  // past the cost interval: written
  EXPECT_EQ(rep.writes(), 3);
  rep.ReportRuns({make_run("e", false)});
  EXPECT_EQ(rep.writes(), 3);
  rep.Finalize();  // the end always writes
  EXPECT_EQ(rep.writes(), 4);
  EXPECT_EQ(read_json(f.path)["benchmarks"].size(), 5u);
}

TEST(IncrementalReporter, AFinishedSeriesIsWrittenWhateverTheThrottle) {
  TempFile f;
  double now = 0;
  IncrementalJsonReporter rep(f.path.string(), {}, 20.0, [&] { return now += 0.01; });
  benchmark::BenchmarkReporter::Context ctx;
  rep.ReportContext(ctx);
  const std::string oop = "allreduce/allreduce/dtype:fp32/mode:out_of_place/bytes:";
  const std::string inp = "allreduce/allreduce/dtype:fp32/mode:in_place/bytes:";
  rep.ReportRuns({make_run(oop + "8/ranks:2/device:host", false)});  // first: written
  rep.ReportRuns({make_run(oop + "32/ranks:2/device:host", false)});
  rep.ReportRuns({make_run(oop + "128/ranks:2/device:host", false)});
  EXPECT_EQ(rep.writes(), 1);                                        // throttled inside the series
  rep.ReportRuns({make_run(inp + "8/ranks:2/device:host", false)});  // a new series: written
  EXPECT_EQ(rep.writes(), 2);
  EXPECT_EQ(read_json(f.path)["benchmarks"].size(), 4u);
  rep.ReportRuns({make_run(inp + "32/ranks:2/device:host", false)});
  EXPECT_EQ(rep.writes(), 2);
}

TEST(IncrementalReporter, TheSeriesOfACaseDropsItsSize) {
  EXPECT_EQ(series_of_case("allreduce/allreduce/dtype:fp32/mode:in_place/bytes:2048/ranks:2"),
            "allreduce/allreduce/dtype:fp32/mode:in_place/ranks:2");
  EXPECT_EQ(series_of_case("allreduce/broadcast/dtype:fp32/mode:in_place/bytes:8"),
            "allreduce/broadcast/dtype:fp32/mode:in_place");
  EXPECT_EQ(series_of_case("no_size_here"), "");
}

TEST(IncrementalReporter, FindsTheOutputPathInArgv) {
  char a0[] = "suite", a1[] = "--benchmark_filter=x", a2[] = "--benchmark_out=/x/y.json";
  char* argv[] = {a0, a1, a2, nullptr};
  EXPECT_EQ(benchmark_out_path(3, argv), "/x/y.json");
  EXPECT_EQ(benchmark_out_path(2, argv), "");
}

}  // namespace
}  // namespace gpubench::allreduce
