// A large synthetic comparison (a labelled fixture, not measurements): `entries` entries built
// directly as compare_sides would leave them, with seeded noise, so renderers can be tested and
// timed at fleet size (issue 16) without a store. Used by test_render_large.cpp and
// tests/perf/perf_report.cpp.
//
// Benchmark i (one primary entry each): a regression (20% worse) every 500th, an improvement
// (20% better) every 700th, `changed` every 4999th, `invalid` every 7001st, `missing` every
// 9001st; of the others, `inconclusive_percent` in 100 inconclusive (i % 100 below it), the rest
// unchanged (within 1%). The 200,000-entry fleet run of tests/perf/perf_fleet.py (4 repetitions a
// side) has 93% inconclusive. `regression_percent` in 100 of the others are regressions too (a
// driver change that slows everything: 100).
// Every 1000th name holds markup and Markdown metacharacters ("<&>|*_"), as a database could.
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "compare/compare.hpp"

namespace gpubench::compare::testing {

inline std::string large_name(std::size_t i) {
  const bool gemm = i % 5 < 2;  // two suites: 40% gemm, 60% memory
  std::string name = gemm ? "gemm/bf16/m:" + std::to_string(256 * (i / 40 + 1)) + "/n:4096"
                          : "memory/triad/bytes:" + std::to_string(1024 * (i / 32 + 1));
  if (i % 1000 == 999) name += "/note:<b>&amp;|*_";
  return name + "/threads:" + std::to_string(1 + i % 4) + "/device:" + std::to_string(i % 8);
}

inline Verdict large_verdict(std::size_t i, std::size_t inconclusive_percent,
                             std::size_t regression_percent) {
  if (i % 500 == 0) return Verdict::regression;
  if (i % 700 == 0) return Verdict::improvement;
  if (i % 4999 == 0) return Verdict::changed;
  if (i % 7001 == 0) return Verdict::invalid;
  if (i % 9001 == 0) return Verdict::missing;
  if (i % 100 < regression_percent) return Verdict::regression;
  if (i % 100 < inconclusive_percent) return Verdict::inconclusive;
  return Verdict::unchanged;
}

inline Comparison large_comparison(std::size_t entries, std::size_t inconclusive_percent,
                                   std::size_t regression_percent = 0, unsigned seed = 16) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> noise(0.0, 0.004);
  Comparison cmp;
  cmp.base_selection = "tag:side=base";
  cmp.candidate_selection = "tag:side=candidate";
  cmp.base_runs = {1};
  cmp.candidate_runs = {2};
  cmp.entries.reserve(entries);
  for (std::size_t i = 0; i < entries; ++i) {
    Entry e;
    std::string name = large_name(i);
    e.key = {name.substr(0, name.find('/')), name, "GB_per_s", "gpu" + std::to_string(i % 8)};
    e.unit = "GB/s";
    e.direction = results::Direction::higher;
    e.delta = 0.02;
    e.verdict = large_verdict(i, inconclusive_percent, regression_percent);
    double ratio = std::exp(noise(gen)), half = 0.012;
    switch (e.verdict) {
      case Verdict::regression:
        ratio = i % 500 == 0 ? 0.8 : 0.9 + noise(gen);  // the every-500th ones are the largest
        break;
      case Verdict::improvement:
        ratio = 1.2;
        break;
      case Verdict::changed:
        ratio = 1.1;
        e.key.metric = "work_units";
        e.unit = "units";
        e.direction = results::Direction::unknown;
        break;
      case Verdict::inconclusive:
        ratio = std::exp(noise(gen) * 4);
        half = 0.05;
        break;
      default:
        break;
    }
    e.base.n = e.candidate.n = 4;
    e.base.median = 100.0 + static_cast<double>(i % 97);
    e.candidate.median = e.base.median * ratio;
    e.ratio = ratio;
    e.ci_low = ratio * (1 - half);
    e.ci_high = ratio * (1 + half);
    e.p_value = e.q_value = e.verdict == Verdict::unchanged ? 0.5 : 1e-6;
    e.reason = "synthetic fixture";
    if (e.verdict == Verdict::invalid) e.reason = "a sample ran under a thermal slowdown";
    if (e.verdict == Verdict::invalid || e.verdict == Verdict::missing) {
      e.ratio = e.ci_low = e.ci_high = e.p_value = NAN;
    }
    if (e.verdict == Verdict::missing) {
      e.candidate.n = 0;
      e.candidate.median = NAN;
      e.reason = "no samples on the candidate side";
    }
    cmp.entries.push_back(std::move(e));
  }
  for (const char* suite : {"gemm", "memory"}) {
    SuiteSummary s;
    s.suite = suite;
    for (const Entry& e : cmp.entries) {
      if (e.key.suite != suite) continue;
      ++s.compared;
      ++s.counts[static_cast<std::size_t>(e.verdict)];
    }
    cmp.suites.push_back(s);
  }
  return cmp;
}

}  // namespace gpubench::compare::testing
