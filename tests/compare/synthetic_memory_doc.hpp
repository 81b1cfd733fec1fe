// FIXTURE, not a measurement: a Google Benchmark document shaped like the memory suite's output
// (triad over sizes and thread counts, GB_per_s per repetition), with seeded noise and a chosen
// slow-down per benchmark. Shared by the large-report end-to-end test and perf_compare.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "tests/e2e/gbench_fixture.hpp"

namespace gpubench::testing {

// Benchmark b's name: memory/triad/bytes:<1024 * (b / 4 + 1)>/threads:<1 + b % 4>.
inline std::string synthetic_memory_name(int b) {
  return "memory/triad/bytes:" + std::to_string(1024 * (b / 4 + 1)) +
         "/threads:" + std::to_string(1 + b % 4);
}

// `benchmarks` benchmarks x `repetitions` iteration entries: real time 1000 ns x slowdown(b) x
// normal(1, noise_sd) noise drawn in entry order from `seed`; GB_per_s = 12e3 / time.
inline nlohmann::json synthetic_memory_doc(int benchmarks, int repetitions, double noise_sd,
                                           unsigned seed,
                                           const std::function<double(int b)>& slowdown) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> noise(1.0, noise_sd);
  nlohmann::json doc;
  doc["context"] = {
      {"gpubench.suite", "memory"},
      {"gpubench.metrics", R"([{"name":"GB_per_s","unit":"GB/s","direction":"higher"}])"}};
  nlohmann::json& list = doc["benchmarks"] = nlohmann::json::array();
  for (int b = 0; b < benchmarks; ++b) {
    const std::string name = synthetic_memory_name(b);
    const double factor = slowdown(b);
    for (int r = 0; r < repetitions; ++r) {
      const double t = 1000.0 * factor * noise(gen);
      list.push_back(iteration_entry({.name = name,
                                      .repetition = r,
                                      .repetitions = repetitions,
                                      .iterations = 100,
                                      .real_time = t,
                                      .cpu_time = t,
                                      .with_threads = true},
                                     {{"GB_per_s", 12e3 / t}}));
    }
  }
  return doc;
}

}  // namespace gpubench::testing
