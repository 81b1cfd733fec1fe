// perf_site (issue 25): `gpubench site` of a 10,000-series database. FIXTURE data: 10,000
// benchmarks x 30 nightly runs x 3 repetitions (seeded, 1% run-to-run noise, a -10% step at run
// 21 in every 100th series), written through the store; then load_history (change points of
// every series) and write_site are timed. GPUBENCH_PERF_SCALE scales the series count (the ctest
// smoke runs 1%). Prints the figures; the issue asks for the site in under 60 s.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "compare/series_history.hpp"
#include "compare/site.hpp"
#include "results/store.hpp"
#include "util/fs.hpp"

int main() {
  using namespace gpubench;
  using clock = std::chrono::steady_clock;
  const char* scale_env = std::getenv("GPUBENCH_PERF_SCALE");
  const double scale = scale_env ? std::atof(scale_env) : 1.0;
  const int series = std::max(1, static_cast<int>(10000 * scale));
  constexpr int runs = 30;
  TempDir dir("gpubench-perf-site");
  const auto t0 = clock::now();
  {
    results::Store store =
        results::Store::open(dir.path() / "site.db", results::OpenMode::read_write_create);
    std::mt19937_64 rng(42);
    std::normal_distribution<double> noise(0.0, 0.01);
    std::normal_distribution<double> within(0.0, 0.002);
    std::vector<double> level(static_cast<std::size_t>(series), 1.0);
    for (int r = 1; r <= runs; ++r) {
      results::RunInfo info;
      info.host.hostname = "perf-node";
      info.host.cpu_model = "Fixture CPU";
      info.software.driver_version = r >= 21 ? "575.51" : "570.86";
      char started[40];
      std::snprintf(started, sizeof started, "2026-01-%02dT02:00:00.000Z", r);
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
          list.push_back({{"name", name},
                          {"run_name", name},
                          {"run_type", "iteration"},
                          {"repetitions", 3},
                          {"repetition_index", rep},
                          {"threads", 1},
                          {"iterations", 10},
                          {"real_time", v},
                          {"cpu_time", v},
                          {"time_unit", "ns"}});
        }
      }
      store.ingest_benchmark_json(sr, {{"benchmarks", list}}, "fleet");
      store.finish_run(run, results::RunStatus::complete);
    }
  }
  const auto t1 = clock::now();
  results::Store store = results::Store::open(dir.path() / "site.db", results::OpenMode::read_only);
  compare::HistoryOptions options;
  options.selector = "all";
  const compare::History h = compare::load_history(store, options);
  const auto t2 = clock::now();
  const compare::SiteSummary first = compare::write_site(dir.path() / "site", h, store.list_runs());
  const auto t3 = clock::now();
  const compare::SiteSummary again = compare::write_site(dir.path() / "site", h, store.list_runs());
  const auto t4 = clock::now();
  std::size_t changes = 0;
  for (const auto& s : h.series) changes += s.changes.size();
  auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
  std::printf(
      "perf_site: %d series x %d runs: fixture db %.1f s; history (change points) %.2f s, "
      "site %.2f s (%zu pages), total %.2f s; again %.2f s (%zu written, %zu unchanged); %zu "
      "change points (expected %d)\n",
      series, runs, secs(t0, t1), secs(t1, t2), secs(t2, t3), first.pages_written, secs(t1, t3),
      secs(t3, t4), again.pages_written, again.pages_unchanged, changes, (series + 99) / 100);
  return secs(t1, t3) < 60.0 ? 0 : 1;
}
