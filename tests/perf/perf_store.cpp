// Speed of the results store (issue 2 targets, one core):
//   ingest of 1,000,000 samples into a fresh file store   < 5 s
//   list_runs on a database with 10,000 runs               < 100 ms
//
// The input is a synthetic Google Benchmark document built in memory (the shape a suite with
// repetitions writes), not a measurement. GPUBENCH_PERF_SCALE (default 1) shrinks the sizes; the
// ctest smoke test runs it at 0.001 so the benchmark keeps building and running.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "results/ingest/ingest.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace {

using gpubench::TempDir;
using nlohmann::json;
namespace results = gpubench::results;

double scale() {
  const char* s = std::getenv("GPUBENCH_PERF_SCALE");
  const double v = s != nullptr ? std::atof(s) : 1.0;
  return v > 0 ? v : 1.0;
}

// rows x (real_time, cpu_time, GB_per_s, bytes_per_second) = 4 samples per row; every row is a
// repetition of one of `rows / repetitions` benchmarks.
json synthetic_doc(int64_t samples) {
  constexpr int k_metrics = 4;
  constexpr int k_repetitions = 10;
  const int64_t rows = std::max<int64_t>(k_repetitions, samples / k_metrics);
  json doc;
  doc["context"] = {
      {"gpubench.suite", "memory"},
      {"gpubench.metrics", R"([{"name":"GB_per_s","unit":"GB/s","direction":"higher"}])"}};
  json& benchmarks = doc["benchmarks"] = json::array();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t bench = r / k_repetitions;
    const std::string name = "memory/triad/bytes:" + std::to_string(1024 * (bench + 1)) +
                             "/threads:" + std::to_string(1 + bench % 4);
    benchmarks.push_back({{"name", name},
                          {"run_name", name},
                          {"run_type", "iteration"},
                          {"repetitions", k_repetitions},
                          {"repetition_index", r % k_repetitions},
                          {"threads", 1 + bench % 4},
                          {"iterations", 1000},
                          {"real_time", 1000.0 + static_cast<double>(r % 97)},
                          {"cpu_time", 990.0 + static_cast<double>(r % 89)},
                          {"time_unit", "ns"},
                          {"GB_per_s", 12.5 + static_cast<double>(r % 13)},
                          {"bytes_per_second", 1.25e10}});
  }
  return doc;
}

results::RunInfo run_info() {
  results::RunInfo info;
  info.host.hostname = "perf-host";
  info.tags = {{"job", "perf"}};
  results::GpuInfo g;
  g.uuid = "GPU-00000000-0000-0000-0000-000000000000";
  g.name = "synthetic";
  info.gpus.push_back(g);
  return info;
}

results::SuiteRunInfo suite_run() {
  results::SuiteRunInfo s;
  s.suite = "memory";
  s.executable = "gpubench-memory";
  return s;
}

// Ingest into a fresh database file (creation and schema included in the time).
void BM_ingest_samples(benchmark::State& state) {
  const int64_t samples = static_cast<int64_t>(static_cast<double>(state.range(0)) * scale());
  const json doc = synthetic_doc(samples);
  int64_t stored = 0;
  for (auto _ : state) {
    TempDir dir("gpubench-perf");
    auto store = results::Store::open(dir.path() / "perf.db", results::OpenMode::read_write_create);
    const int64_t run = store.begin_run(run_info());
    const int64_t sr = store.add_suite_run(run, suite_run());
    stored = store.ingest_benchmark_json(sr, doc, "memory").samples;
    store.finish_run(run, results::RunStatus::complete);
  }
  state.counters["samples"] = static_cast<double>(stored);
  state.counters["samples_per_s"] = benchmark::Counter(
      static_cast<double>(stored), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ingest_samples)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

// Text -> parsed JSON, the step before ingest when the harness reads a suite's output.
void BM_parse_output(benchmark::State& state) {
  const int64_t samples = static_cast<int64_t>(static_cast<double>(state.range(0)) * scale());
  const std::string text = synthetic_doc(samples).dump(2);
  for (auto _ : state) {
    benchmark::DoNotOptimize(results::parse_benchmark_json(text, "perf"));
  }
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_parse_output)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(1);

// `gpubench runs`: list_runs over a database of N runs, each with one suite run, a benchmark
// outcome and two tags.
void BM_list_runs(benchmark::State& state) {
  const int64_t runs =
      std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(state.range(0)) * scale()));
  TempDir dir("gpubench-perf");
  const auto path = dir.path() / "runs.db";
  {
    auto store = results::Store::open(path, results::OpenMode::read_write_create);
    // Setup only (not timed): skip the per-commit fsync of 40,000 small transactions.
    store.database().exec("PRAGMA synchronous = OFF");
    json doc = synthetic_doc(40);
    auto& rows = doc["benchmarks"];
    while (rows.size() > 1) rows.erase(rows.size() - 1);  // one benchmark, 4 samples per run
    for (int64_t i = 0; i < runs; ++i) {
      const int64_t run = store.begin_run(run_info());
      store.ingest_benchmark_json(store.add_suite_run(run, suite_run()), doc, "memory");
      store.finish_run(run, results::RunStatus::complete);
    }
  }
  auto store = results::Store::open(path, results::OpenMode::read_only);
  size_t listed = 0;
  for (auto _ : state) {
    listed = store.list_runs().size();
    benchmark::DoNotOptimize(listed);
  }
  if (listed != static_cast<size_t>(runs)) state.SkipWithError("list_runs lost runs");
  state.counters["runs"] = static_cast<double>(listed);
}
BENCHMARK(BM_list_runs)->Arg(10'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
