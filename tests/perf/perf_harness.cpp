// Harness overhead per suite (issue 2 target: < 50 ms beyond the suite's own time).
//
// BM_RunSuite runs harness::run_suite() on a FIXTURE suite (a shell script written at start-up
// that immediately writes a fixed, small Google Benchmark JSON file: 8 benchmarks x 5
// repetitions) into a real SQLite file, and reports
//   total_ms     spawn + the trivial child + JSON parse + store, per suite (wall clock)
//   child_ms     the child's lifetime as the harness measured it (fork to reap)
//   overhead_ms  total_ms - child_ms: parse, ingest, suite-run row, temp files
// BM_ProbeEnvironment is the once-per-run fingerprint (/proc, NVML, CUDA, cuBLAS, NCCL dlopen).
//
//   build/bin/perf_harness --benchmark_repetitions=5
#include <benchmark/benchmark.h>
#include <sys/stat.h>

#include <string>

#include "harness/probe/environment.hpp"
#include "harness/run/runner.hpp"
#include "results/store.hpp"
#include "util/clock.hpp"
#include "util/fs.hpp"

namespace {

using namespace gpubench;

std::string fixture_json() {
  std::string benchmarks;
  for (int b = 0; b < 8; ++b) {
    for (int rep = 0; rep < 5; ++rep) {
      if (!benchmarks.empty()) benchmarks += ",\n";
      const std::string name = "perf_fixture/case/n:" + std::to_string(b);
      benchmarks += "{\"name\":\"" + name + "\",\"run_name\":\"" + name +
                    "\",\"run_type\":\"iteration\",\"repetitions\":5,\"repetition_index\":" +
                    std::to_string(rep) +
                    ",\"threads\":1,\"iterations\":100,\"real_time\":" + std::to_string(100 + rep) +
                    ",\"cpu_time\":" + std::to_string(99 + rep) +
                    ",\"time_unit\":\"ns\",\"items_per_s\":" + std::to_string(1000 + b) + "}";
    }
  }
  return "{\"context\":{\"gpubench.metrics\":\"[{\\\"name\\\":\\\"items_per_s\\\",\\\"unit\\\":"
         "\\\"items/s\\\",\\\"direction\\\":\\\"higher\\\"}]\"},\n\"benchmarks\":[" +
         benchmarks + "]}\n";
}

void BM_RunSuite(benchmark::State& state) {
  TempDir dir("gpubench-perf");
  // FIXTURE suite: copies a prepared JSON file to --benchmark_out and exits.
  write_file_atomic(dir.path() / "fixture.json", fixture_json());
  const auto script = dir.path() / "gpubench-perf_fixture";
  write_file_atomic(
      script,
      "#!/bin/sh\n# FIXTURE suite for perf_harness\nfor a in \"$@\"; do case \"$a\" in "
      "--benchmark_out=*) cp \"" +
          (dir.path() / "fixture.json").string() + "\" \"${a#--benchmark_out=}\";; esac; done\n");
  chmod(script.c_str(), 0755);
  results::Store store =
      results::Store::open(dir.path() / "perf.db", results::OpenMode::read_write_create);
  results::RunInfo info;
  const int64_t run_id = store.begin_run(info);
  harness::SuiteRunOptions options;
  options.work_dir = dir.path();
  const harness::SuiteExecutable suite{"perf_fixture", script};

  double child_s = 0, total_s = 0;
  for (auto _ : state) {
    const double t0 = monotonic_seconds();
    const harness::SuiteOutcome out = harness::run_suite(store, run_id, suite, options);
    total_s += monotonic_seconds() - t0;
    child_s += out.info.duration_s;
    if (!out.ingested || out.summary.benchmarks != 8) {
      state.SkipWithError("the fixture suite was not stored");
      break;
    }
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["total_ms"] = total_s / n * 1e3;
  state.counters["child_ms"] = child_s / n * 1e3;
  state.counters["overhead_ms"] = (total_s - child_s) / n * 1e3;
}
BENCHMARK(BM_RunSuite)->Unit(benchmark::kMillisecond)->Iterations(50);

void BM_ProbeEnvironment(benchmark::State& state) {
  for (auto _ : state) {
    harness::Environment env = harness::probe_environment("standard");
    benchmark::DoNotOptimize(env);
  }
}
BENCHMARK(BM_ProbeEnvironment)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace

BENCHMARK_MAIN();
