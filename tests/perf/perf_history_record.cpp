// perf_history_record (issue 25): `history --record` of a 10,000-series database, in full and
// incrementally after one new run. FIXTURE data (perf_history_fixture.hpp): 10,000 benchmarks x 30
// nightly runs x 3 repetitions, every 100th series with a -10% step at run 21. Timed: the first
// record (every series in full), the record after run 31 (series with a stored change point only
// from it), a record with no new run (nothing detected), and a full recomputation after run 31,
// whose change points the incremental ones are checked against. GPUBENCH_PERF_SCALE scales the
// series count (the ctest smoke runs 1%). Exit 1 when the incremental record misses a change
// point the full detection finds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compare/history/series_history.hpp"
#include "perf_history_fixture.hpp"
#include "results/store.hpp"
#include "util/fs.hpp"

namespace {

using namespace gpubench;

struct Timed {
  compare::History history;
  double seconds = 0;
};

Timed record(const std::filesystem::path& db, bool incremental, bool write) {
  const auto t0 = std::chrono::steady_clock::now();
  results::Store store = results::Store::open(db, results::OpenMode::read_write);
  compare::HistoryOptions options;
  options.selector = "all";
  options.incremental = incremental;
  Timed t{compare::load_history(store, options), 0};
  if (write) compare::record_change_points(store, t.history);
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return t;
}

// (series index, run id) of every change point.
std::vector<std::pair<std::size_t, int64_t>> changes(const compare::History& h) {
  std::vector<std::pair<std::size_t, int64_t>> out;
  for (std::size_t s = 0; s < h.series.size(); ++s) {
    for (const auto& c : h.series[s].changes) {
      out.emplace_back(s, h.runs[h.series[s].points[c.point].run].id);
    }
  }
  return out;
}

void print(const char* what, const Timed& t) {
  const compare::ScanCounts c = compare::scan_counts(t.history);
  std::printf("  %-34s %7.2f s  (full %zu, tail %zu of %zu runs, reused %zu; %zu change points)\n",
              what, t.seconds, c.full, c.tail, c.tail_points, c.reused, changes(t.history).size());
}

}  // namespace

int main() {
  const char* scale_env = std::getenv("GPUBENCH_PERF_SCALE");
  const double scale = scale_env ? std::atof(scale_env) : 1.0;
  const int series = std::max(1, static_cast<int>(10000 * scale));
  TempDir dir("gpubench-perf-record");
  const auto db = dir.path() / "history.db";
  perf::write_history_fixture(db, series, 1, 30);
  std::printf("perf_history_record: %d series x 30 runs, then run 31\n", series);
  print("record, first (in full)", record(db, true, true));
  const Timed unchanged = record(db, true, true);
  print("record, no new run", unchanged);
  // With no new run every series is reused: anything detected again is a failure.
  const bool all_reused =
      compare::scan_counts(unchanged.history).reused == unchanged.history.series.size();
  if (!all_reused) std::printf("  FAILED: a record with no new run detected series again\n");
  perf::write_history_fixture(db, series, 31, 31, 43);
  const Timed full = record(db, false, false);
  const Timed incremental = record(db, true, true);
  print("record after run 31, incremental", incremental);
  print("history after run 31, in full", full);
  // Incremental recording keeps a change point once found; a full detection over more runs can
  // drop one whose p was near the limit. Every change the full detection finds must be there.
  const auto in_full = changes(full.history);
  const auto in_incremental = changes(incremental.history);
  std::size_t missing = 0, kept = 0;
  for (const auto& c : in_full) {
    if (std::find(in_incremental.begin(), in_incremental.end(), c) == in_incremental.end()) {
      ++missing;
      std::printf("  MISSING from the incremental record: series %zu, run %lld\n", c.first,
                  static_cast<long long>(c.second));
    }
  }
  for (const auto& c : in_incremental) {
    if (std::find(in_full.begin(), in_full.end(), c) == in_full.end()) {
      ++kept;
      const auto& s = incremental.history.series[c.first];
      std::printf("  kept from an earlier record, not found in full now: %s at run %lld\n",
                  s.key.benchmark.c_str(), static_cast<long long>(c.second));
    }
  }
  std::printf("  incremental vs full: %zu missing, %zu kept from earlier records\n", missing, kept);
  return missing == 0 && all_reused ? 0 : 1;
}
