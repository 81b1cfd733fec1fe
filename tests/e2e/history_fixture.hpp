// FIXTURE runs for the history and site end-to-end tests (issue 25), written through the store:
// nightly runs of two benchmarks with 1% run-to-run noise (seeded), a step from run `step_at`
// where the driver changes, and a tag that differs every night.
#pragma once

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "results/store.hpp"
#include "tests/e2e/gbench_fixture.hpp"

namespace gpubench::e2e {

using nlohmann::json;

inline const char* const k_benchmarks[] = {"calibration/spin/work:1", "calibration/spin/work:4"};

// FIXTURE: a suite run of 10 repetitions per benchmark around `level` x 1000 ns, CV 0.2%.
inline json fixture_doc(double level, std::mt19937_64& rng) {
  std::normal_distribution<double> within(0.0, 0.002);
  json list = json::array();
  for (const char* bench : k_benchmarks) {
    for (int r = 0; r < 10; ++r) {
      const double v = 1000.0 * level * (1.0 + within(rng));
      list.push_back(testing::iteration_entry({.name = bench,
                                               .repetition = r,
                                               .repetitions = 10,
                                               .iterations = 100,
                                               .real_time = v,
                                               .cpu_time = v,
                                               .with_threads = true}));
    }
  }
  return {{"benchmarks", list}};
}

// FIXTURE run: night `night` (1-based; its date follows from it unless `started_at` is given) at
// `level` x 1000 ns with `driver`, appended to `store`.
inline void add_fixture_run(results::Store& store, int night, double level,
                            const std::string& driver, std::mt19937_64& rng,
                            const std::string& hostname = "fixture-node",
                            const std::string& started_at = "") {
  results::RunInfo info;
  info.host.hostname = hostname;
  info.host.cpu_model = "Fixture CPU";
  info.software.driver_version = driver;
  info.software.git_sha = "abc1234";
  info.tags = {{"ci", "nightly"}, {"night", std::to_string(night)}};
  char started[40];
  std::snprintf(started, sizeof started, "2026-%02d-%02dT02:00:00.000Z", 1 + (night - 1) / 28,
                1 + (night - 1) % 28);
  info.started_at = started_at.empty() ? std::string(started) : started_at;
  const int64_t run = store.begin_run(info);
  results::SuiteRunInfo suite;
  suite.suite = "calibration";
  suite.executable = "gpubench-calibration";
  const int64_t sr = store.add_suite_run(run, suite);
  store.ingest_benchmark_json(sr, fixture_doc(level, rng), "calibration");
  store.finish_run(run, results::RunStatus::complete);
}

// FIXTURE database: `runs` nightly runs; from run `step_at` (1-based) the level is x `step` and
// the driver is 575.51 (570.86 before). Each run's level has 1% run-to-run noise.
inline void make_fixture_db(const std::filesystem::path& db, int runs, int step_at, double step,
                            uint64_t seed) {
  results::Store store = results::Store::open(db, results::OpenMode::read_write_create);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> between(0.0, 0.01);
  for (int i = 1; i <= runs; ++i) {
    const bool after = i >= step_at && step_at > 0;
    const double level = std::exp(between(rng)) * (after ? step : 1.0);
    add_fixture_run(store, i, level, after ? "575.51" : "570.86", rng);
  }
}

}  // namespace gpubench::e2e
