// FIXTURE builder for the tests: one Google Benchmark "iteration" entry (one repetition of a
// benchmark, as a suite's --benchmark_format=json output holds it), so a test spells out only the
// values it is about. Shared by the end-to-end tests (through e2e_support.hpp), the compare tests
// and the perf fixtures.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace gpubench::testing {

struct IterationEntry {
  std::string name;  // also its run_name
  std::int64_t repetition = 0;
  std::int64_t repetitions = 1;
  std::int64_t iterations = 1;
  double real_time = 0;
  double cpu_time = 0;
  std::string time_unit = "ns";
  bool with_threads = false;  // "threads": 1, as Google Benchmark 1.8+ writes it
};

// The entry, with `counters` (metric name -> value) added as Google Benchmark adds user counters.
inline nlohmann::json iteration_entry(const IterationEntry& e,
                                      const nlohmann::json& counters = nlohmann::json::object()) {
  nlohmann::json out = {{"name", e.name},
                        {"run_name", e.name},
                        {"run_type", "iteration"},
                        {"repetitions", e.repetitions},
                        {"repetition_index", e.repetition},
                        {"iterations", e.iterations},
                        {"real_time", e.real_time},
                        {"cpu_time", e.cpu_time},
                        {"time_unit", e.time_unit}};
  if (e.with_threads) out["threads"] = 1;
  for (const auto& [key, value] : counters.items()) out[key] = value;
  return out;
}

}  // namespace gpubench::testing
