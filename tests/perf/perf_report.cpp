// Speed and size of the reports of a fleet-size comparison (issue 16): 200,000 entries rendered
// as HTML and Markdown, to stdout (unchanged entries in a collapsed block / not listed) and to a
// file (unchanged entries in a CSV beside it). Counters: output_MB (the report), sidecar_MB (the
// CSV). Targets: HTML under 20 MB (and under 5 s to open in Chromium: tests/perf/chromium_load.py).
//
// Inputs are the synthetic fixture of tests/compare/large_fixture.hpp (seeded; not measurements):
// the arguments are the percentages of inconclusive entries (33; 93 is what perf_fleet.py's
// 4-repetition fleet runs give) and of regressions (100: a change that slows everything).
// GPUBENCH_PERF_SCALE (default 1) shrinks the entry count; the ctest smoke test runs it at 0.03
// (6,000 entries: still the large layout).
//
//   build/bin/perf_report                      # figures
//   GPUBENCH_PERF_REPORT_DIR=DIR build/bin/perf_report --benchmark_filter=Html
//   python3 tests/perf/chromium_load.py DIR/*.html   # Chromium's load time of those files
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "../compare/large_fixture.hpp"
#include "compare/render/render.hpp"
#include "compare/render/render_large.hpp"
#include "compare/report/report.hpp"
#include "util/fs.hpp"

namespace {

namespace cmp = gpubench::compare;
namespace fs = std::filesystem;

std::size_t entry_count() {
  const char* s = std::getenv("GPUBENCH_PERF_SCALE");
  double v = s != nullptr ? std::atof(s) : 1.0;
  if (!(v > 0)) v = 1.0;
  return std::max<std::size_t>(100, static_cast<std::size_t>(200000 * v));
}

const cmp::Comparison& fixture(std::size_t inconclusive_percent, std::size_t regression_percent) {
  static std::map<std::pair<std::size_t, std::size_t>, cmp::Comparison> cache;
  const auto key = std::make_pair(inconclusive_percent, regression_percent);
  auto it = cache.find(key);
  if (it == cache.end()) {
    it = cache
             .emplace(key, cmp::testing::large_comparison(entry_count(), inconclusive_percent,
                                                          regression_percent))
             .first;
  }
  return it->second;
}

void render(benchmark::State& state, cmp::Format format, bool to_file) {
  const cmp::Comparison& c = fixture(static_cast<std::size_t>(state.range(0)),
                                     static_cast<std::size_t>(state.range(1)));
  gpubench::TempDir dir("gpubench-perf-report");
  const std::string csv = to_file ? (dir.path() / "cmp.unchanged.csv").string() : "";
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::ostringstream out;
    cmp::render_comparison(c, format, out, false, csv);
    bytes = out.str().size();
    benchmark::DoNotOptimize(bytes);
  }
  // GPUBENCH_PERF_REPORT_DIR=DIR keeps the last output there (for tests/perf/chromium_load.py).
  if (const char* keep = std::getenv("GPUBENCH_PERF_REPORT_DIR"); keep != nullptr) {
    std::ostringstream out;
    const fs::path dir_out(keep);
    const std::string stem = std::string(format == cmp::Format::html ? "html" : "md") +
                             (to_file ? "_file_" : "_stdout_") + std::to_string(state.range(0)) + "_" +
                             std::to_string(state.range(1));
    cmp::render_comparison(
        c, format, out, false,
        to_file ? (dir_out / (stem + ".unchanged.csv")).string() : std::string());
    gpubench::write_file_atomic(dir_out / (stem + (format == cmp::Format::html ? ".html" : ".md")),
                                out.str());
  }
  state.counters["entries"] = static_cast<double>(c.entries.size());
  state.counters["output_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["sidecar_MB"] =
      to_file ? static_cast<double>(std::filesystem::file_size(csv)) / 1e6 : 0.0;
}

void BM_RenderHtmlToStdout(benchmark::State& s) {
  render(s, cmp::Format::html, false);
}
void BM_RenderHtmlToFile(benchmark::State& s) {
  render(s, cmp::Format::html, true);
}
void BM_RenderMarkdownToStdout(benchmark::State& s) {
  render(s, cmp::Format::md, false);
}
void BM_RenderMarkdownToFile(benchmark::State& s) {
  render(s, cmp::Format::md, true);
}

// A run report of as many rows (all ok), to stdout: the ok rows in the collapsed block.
void BM_RenderRunReportHtml(benchmark::State& state) {
  cmp::RunReport r;
  r.run.run.id = 1;
  const cmp::Comparison& c = fixture(0, 0);
  for (const cmp::Entry& e : c.entries) {
    cmp::ReportRow row;
    row.key = e.key;
    row.unit = e.unit;
    row.stats = e.base;
    row.stats.cv = 0.01;
    r.rows.push_back(row);
  }
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::ostringstream out;
    cmp::render_report(r, cmp::Format::html, out);
    bytes = out.str().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["rows"] = static_cast<double>(r.rows.size());
  state.counters["output_MB"] = static_cast<double>(bytes) / 1e6;
}

BENCHMARK(BM_RenderHtmlToStdout)->Args({33, 0})->Args({93, 0})->Args({0, 100})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RenderHtmlToFile)->Args({33, 0})->Args({93, 0})->Args({0, 100})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RenderMarkdownToStdout)->Args({33, 0})->Args({93, 0})->Args({0, 100})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RenderMarkdownToFile)->Args({33, 0})->Args({93, 0})->Args({0, 100})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RenderRunReportHtml)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
