// Series noise from the store's history: how much per-run medians of a series differ between
// runs of identical work. compare adds this run-to-run variance to the standard error of each side
// whose samples are repetitions of one or two runs (DESIGN.md "Statistics": noise goes into the
// interval, never into the threshold), with runs - 1 degrees of freedom.
//
// A series is benchmark + metric + device on one hardware class and configuration. The history of
// a comparison is drawn from the base side only: per suite, the newest `window` complete runs that
//   - have the same host CPU model, GPU model list (in device order) and configuration (profile,
//     recorded environment variables, clock locking) as one of the base side's runs,
//   - contain an `ok` run of that suite,
//   - started no later than the newest candidate run (so a comparison gives the same answer when
//     repeated later, and runs made after the change, which carry it, stay out),
//   - are not candidate runs, and do not match the candidate's selector (tag:/host:/gpu:) unless
//     they match the base's too: with `compare tag:side=a tag:side=b --last 2` the older side-b
//     runs carry the change, and counting them as noise would hide it,
//   - are not excluded from history (`gpubench history exclude RUN`,
//     results/history_exclusions.hpp).
// The base side's own runs count. A GPU series follows the GPU's UUID (issue 38): when every GPU
// row of the base names its UUID, the base's series of device:N (GPU U) has as history the series
// of U in each run, whatever its CUDA index there (a run after a GPU was lost names GPU-...4
// device:3), and history runs then need the same GPU models, not the same list in device order;
// a run whose suite recorded no UUIDs falls back to the CUDA index (its device list must then
// match), and SeriesNoise::gpu_note says so. Host series need the same GPU list. Per series,
// history then describes the server, not its accidents (issue 38):
//   - it starts at the series' last change point: recorded (`history --record`) at one of these
//     runs, or detected in them (detect_change_points, t-test, min segment 3, delta 2%); the
//     level before a step is another server state, not noise;
//   - runs further than k_outlier_robust_sds robust sds (1.4826 x MAD of the log medians, at least
//     k_outlier_floor) from the median are left out as outlying (a run with a throttled GPU, a
//     busy machine): one such run among healthy ones would otherwise be the noise;
//   - the sd of the runs left needs >= k_min_history_runs of them (df >= 5); with fewer, the
//     series' interval holds within-run noise only, and the reason says how many runs there were.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "results/store.hpp"

namespace gpubench::compare {

constexpr int k_default_history_window = 10;  // runs per suite
// Fewest runs (after outliers are left out) for a series sd: 6, df 5. With 3 (df 2) the interval
// of a healthy server against itself spanned -22% to +28% at 99% (issue 38): too wide to accept
// anything, while one bad run among 3 to 4 still set the noise. Below it: within-run noise only.
constexpr std::size_t k_min_history_runs = 6;
// A run whose log median lies further than this many robust sds from the series' median is
// outlying; deviations under k_outlier_floor (log units, ~1%) never are (a series whose runs
// mostly tie has a MAD of 0).
constexpr double k_outlier_robust_sds = 3.5;
constexpr double k_outlier_floor = 0.01;

// --history N: 0 (off) or at least k_min_history_runs. Fewer would silently mean no history, so
// they are refused like negative numbers (Error(bad_input) naming the value).
void check_history_window(int window);

// The noise of one series from its log per-run medians, oldest first, of which the first `first`
// precede its last change point: sd of those from `first` on that are not outlying (see above).
// `since_run` is copied into the result. Pure: no database.
SeriesNoise robust_series_noise(std::span<const double> logs, std::size_t first,
                                int64_t since_run = 0);

// The GPU UUID of each CUDA ordinal of the given suite runs, as their suites listed them (context
// gpubench.devices, by which ingest ties samples to GPUs): suite run id -> ordinal -> UUID.
// Ordinals without a UUID (none, "" or "unknown") are absent.
std::map<int64_t, std::map<int64_t, std::string>> suite_run_gpu_uuids(
    results::Database& db, const std::vector<int64_t>& suite_runs);

// Two queries for the runs plus two for the samples, whatever the number of series. Per-run
// medians are Google Benchmark's `median` aggregates where the suite run recorded them, else the
// median of the run's unthrottled repetitions. `window` 0 returns an empty map. `metric`: as
// Options::metric (only that metric; default all but cpu_time). `same_host`: history runs also
// share the base side's host (accept: the reference machine's own run-to-run noise, not the
// spread between the servers of a merged fleet database).
HistoryNoise load_history_noise(results::Store& store, const Side& base, const Side& candidate,
                                int window = k_default_history_window,
                                const std::optional<std::string>& metric = std::nullopt,
                                bool same_host = false);

}  // namespace gpubench::compare
