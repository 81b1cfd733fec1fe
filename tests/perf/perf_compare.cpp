// Speed of compare (issue 3 targets): two runs of 10,000 benchmarks x 10 repetitions
//   compared (read from the store + statistics)   < 1 s
//   rendered as the HTML report                    < 2 s
// Inputs are synthetic (seeded normal samples; the candidate 3% slower on every 10th benchmark),
// not measurements. GPUBENCH_PERF_SCALE (default 1) shrinks the benchmark count; the ctest smoke
// test runs it at 0.01 so it keeps building and running.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "compare/compare.hpp"
#include "compare/render/render.hpp"
#include "compare/run_noise.hpp"
#include "compare/selection.hpp"
#include "results/store.hpp"
#include "tests/compare/synthetic_memory_doc.hpp"
#include "util/fs.hpp"

namespace {

using nlohmann::json;
namespace results = gpubench::results;
namespace cmp = gpubench::compare;

constexpr int k_repetitions = 10;

int benchmark_count() {
  const char* s = std::getenv("GPUBENCH_PERF_SCALE");
  double v = s != nullptr ? std::atof(s) : 1.0;
  if (!(v > 0)) v = 1.0;
  return std::max(10, static_cast<int>(10000 * v));
}

json synthetic_doc(int benchmarks, double slowdown, unsigned seed) {
  return gpubench::testing::synthetic_memory_doc(
      benchmarks, k_repetitions, 0.01, seed,
      [slowdown](int b) { return b % 10 == 0 ? slowdown : 1.0; });
}

// Stores `runs` complete runs of the synthetic memory suite on one host in a new `db`: run r
// (0-based) slowed by slowdown(r) and seeded first_seed + r.
template <class Slowdown>
void store_runs(const std::filesystem::path& db, int runs, Slowdown slowdown, unsigned first_seed) {
  results::Store store = results::Store::open(db, results::OpenMode::read_write_create);
  const int n = benchmark_count();
  for (int r = 0; r < runs; ++r) {
    results::RunInfo info;
    info.host.hostname = "perf-host";
    const int64_t run = store.begin_run(info);
    results::SuiteRunInfo suite;
    suite.suite = "memory";
    suite.executable = "gpubench-memory";
    const int64_t sr = store.add_suite_run(run, suite);
    store.ingest_benchmark_json(sr, synthetic_doc(n, slowdown(r), first_seed + r), "memory");
    store.finish_run(run, results::RunStatus::complete);
  }
}

// One store with two runs (base, candidate), built once for all benchmarks in this binary.
struct Fixture {
  gpubench::TempDir dir{"gpubench-perf-compare"};
  std::filesystem::path db = dir.path() / "perf.db";
  Fixture() {
    store_runs(
        db, 2, [](int side) { return side == 0 ? 1.0 : 1.03; }, 17u);
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void BM_CompareFromStore(benchmark::State& state) {
  Fixture& f = fixture();
  std::size_t entries = 0;
  for (auto _ : state) {
    results::Store store = results::Store::open(f.db, results::OpenMode::read_only);
    cmp::Side base = cmp::load_side(store, "1");
    cmp::Side cand = cmp::load_side(store, "2");
    cmp::Comparison c = cmp::compare_sides(base, cand, cmp::Options{});
    entries = c.entries.size();
    benchmark::DoNotOptimize(c);
  }
  state.counters["series"] = static_cast<double>(entries);
}
BENCHMARK(BM_CompareFromStore)->Unit(benchmark::kMillisecond)->Iterations(3);

// What `gpubench compare` does (issue 16): both sides read at once, on two connections.
void BM_CompareFromStoreBothSidesAtOnce(benchmark::State& state) {
  Fixture& f = fixture();
  std::size_t entries = 0;
  for (auto _ : state) {
    results::Store store = results::Store::open(f.db, results::OpenMode::read_only);
    auto [base, cand] = cmp::load_sides(store, "1", "2");
    cmp::Comparison c = cmp::compare_sides(base, cand, cmp::Options{});
    entries = c.entries.size();
    benchmark::DoNotOptimize(c);
  }
  state.counters["series"] = static_cast<double>(entries);
}
BENCHMARK(BM_CompareFromStoreBothSidesAtOnce)->Unit(benchmark::kMillisecond)->Iterations(3);

// History case (what `gpubench compare` does by default): 10 runs of the same hardware and
// configuration, run 9 compared with run 10, so the margin reads 9 runs of history: per-run
// medians of 10,000 series from their repetitions (no median aggregates in this synthetic data,
// the slower path).
struct HistoryFixture {
  gpubench::TempDir dir{"gpubench-perf-history"};
  std::filesystem::path db = dir.path() / "history.db";
  HistoryFixture() {
    store_runs(
        db, 10, [](int r) { return r == 9 ? 1.03 : 1.0; }, 31u);
  }
};

void BM_CompareFromStoreWithHistory(benchmark::State& state) {
  static HistoryFixture f;
  std::size_t with_history = 0;
  for (auto _ : state) {
    results::Store store = results::Store::open(f.db, results::OpenMode::read_only);
    cmp::Side base = cmp::load_side(store, "9");
    cmp::Side cand = cmp::load_side(store, "10");
    cmp::HistoryNoise history = cmp::load_history_noise(store, base, cand);
    cmp::Options options;
    options.history = &history;
    cmp::Comparison c = cmp::compare_sides(base, cand, options);
    with_history = history.size();
    benchmark::DoNotOptimize(c);
  }
  state.counters["series_with_history"] = static_cast<double>(with_history);
}
BENCHMARK(BM_CompareFromStoreWithHistory)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_CompareInMemory(benchmark::State& state) {
  Fixture& f = fixture();
  results::Store store = results::Store::open(f.db, results::OpenMode::read_only);
  cmp::Side base = cmp::load_side(store, "1");
  cmp::Side cand = cmp::load_side(store, "2");
  for (auto _ : state) {
    cmp::Comparison c = cmp::compare_sides(base, cand, cmp::Options{});
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_CompareInMemory)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_RenderHtml(benchmark::State& state) {
  Fixture& f = fixture();
  results::Store store = results::Store::open(f.db, results::OpenMode::read_only);
  cmp::Comparison c =
      cmp::compare_sides(cmp::load_side(store, "1"), cmp::load_side(store, "2"), cmp::Options{});
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::ostringstream out;
    cmp::render_html(c, out);
    bytes = out.str().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["html_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_RenderHtml)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
