// Fixtures for compare tests: synthetic sides built in memory (labelled fixtures, not
// measurements). Samples are drawn from a seeded normal distribution so tests are repeatable.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "compare/compare.hpp"

namespace gpubench::compare::testing {

inline std::vector<double> normal_samples(double mean, double cv, int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> dist(mean, mean * cv);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(dist(gen));
  return out;
}

inline results::ResultRow row(const std::string& benchmark, const std::string& metric,
                              const std::string& unit, results::Direction direction,
                              std::vector<double> values, std::optional<int> device = 0) {
  results::ResultRow r;
  r.benchmark = benchmark;
  r.suite = benchmark.substr(0, benchmark.find('/'));
  r.metric = metric;
  r.unit = unit;
  r.direction = direction;
  r.device_index = device;
  r.values = std::move(values);
  r.throttled.assign(r.values.size(), 0);
  // Parse "suite/case/k:v/..." the way the store does, enough for sweeps.
  std::size_t pos = benchmark.find('/');
  std::string rest = benchmark.substr(pos + 1);
  std::size_t slash = rest.find('/');
  r.case_name = rest.substr(0, slash);
  while (slash != std::string::npos) {
    rest = rest.substr(slash + 1);
    slash = rest.find('/');
    std::string part = rest.substr(0, slash);
    std::size_t colon = part.find(':');
    results::Param p;
    p.key = part.substr(0, colon);
    p.text = colon == std::string::npos ? "" : part.substr(colon + 1);
    try {
      p.number = std::stod(p.text);
    } catch (...) {
    }
    r.params.push_back(p);
  }
  return r;
}

inline results::RunDetail run_detail(int64_t id, const std::string& driver) {
  results::RunDetail d;
  d.run.id = id;
  d.run.status = results::RunStatus::complete;  // a finished run: no "problems" in the output
  d.info.software.driver_version = driver;
  results::GpuInfo gpu;
  gpu.name = "NVIDIA H200";
  d.info.gpus.push_back(gpu);
  return d;
}

}  // namespace gpubench::compare::testing
