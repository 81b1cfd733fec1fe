// FIXTURE database for the history perf programs (issue 25): `series` benchmarks x nightly runs x
// 3 repetitions (seeded, 1% run-to-run noise, a -10% step from run 21 in every 100th series),
// written through the store. Runs `first`..`last` are appended, so a perf program can add a night.
#pragma once

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "results/store.hpp"
#include "tests/e2e/gbench_fixture.hpp"

namespace gpubench::perf {

inline void write_history_fixture(const std::filesystem::path& db, int series, int first, int last,
                                  uint64_t seed = 42) {
  results::Store store = results::Store::open(db, results::OpenMode::read_write_create);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::normal_distribution<double> within(0.0, 0.002);
  for (int r = first; r <= last; ++r) {
    results::RunInfo info;
    info.host.hostname = "perf-node";
    info.host.cpu_model = "Fixture CPU";
    info.software.driver_version = r >= 21 ? "575.51" : "570.86";
    char started[40];
    std::snprintf(started, sizeof started, "2026-%02d-%02dT02:00:00.000Z", 1 + (r - 1) / 28,
                  1 + (r - 1) % 28);
    info.started_at = started;
    const int64_t run = store.begin_run(info);
    results::SuiteRunInfo suite;
    suite.suite = "fleet";
    suite.executable = "gpubench-fleet";
    const int64_t sr = store.add_suite_run(run, suite);
    nlohmann::json list = nlohmann::json::array();
    for (int s = 0; s < series; ++s) {
      const std::string name = "fleet/case/n:" + std::to_string(s);
      const double run_level = std::exp(noise(rng)) * (r >= 21 && s % 100 == 0 ? 0.9 : 1.0);
      for (int rep = 0; rep < 3; ++rep) {
        const double v = 1000.0 * run_level * (1.0 + within(rng));
        list.push_back(testing::iteration_entry({.name = name,
                                                 .repetition = rep,
                                                 .repetitions = 3,
                                                 .iterations = 10,
                                                 .real_time = v,
                                                 .cpu_time = v,
                                                 .with_threads = true}));
      }
    }
    store.ingest_benchmark_json(sr, {{"benchmarks", list}}, "fleet");
    store.finish_run(run, results::RunStatus::complete);
  }
}

}  // namespace gpubench::perf
