#include "compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "compare/aggregates.hpp"
#include "compare/algorithms.hpp"
#include "compare/gpu_pairing.hpp"
#include "compare/hardware.hpp"
#include "compare/run_problems.hpp"
#include "compare/stats/stats.hpp"
#include "compare/verdict.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"

namespace gpubench::compare {

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::regression:
      return "regression";
    case Verdict::improvement:
      return "improvement";
    case Verdict::unchanged:
      return "unchanged";
    case Verdict::inconclusive:
      return "inconclusive";
    case Verdict::invalid:
      return "invalid";
    case Verdict::changed:
      return "changed";
    case Verdict::missing:
      return "missing";
  }
  return "unknown";
}

const char* to_string(FailOn fail_on) {
  switch (fail_on) {
    case FailOn::regression:
      return "regression";
    case FailOn::changed:
      return "changed";
    case FailOn::inconclusive:
      return "inconclusive";
    case FailOn::never:
      return "never";
  }
  return "regression";
}

std::optional<FailOn> fail_on_from_string(const std::string& text) {
  for (FailOn f : {FailOn::regression, FailOn::changed, FailOn::inconclusive, FailOn::never}) {
    if (text == to_string(f)) return f;
  }
  return std::nullopt;
}

bool fails(Verdict verdict, FailOn fail_on) {
  switch (fail_on) {
    case FailOn::never:
      return false;
    case FailOn::regression:
      return verdict == Verdict::regression;
    case FailOn::changed:
      return verdict == Verdict::regression || verdict == Verdict::changed;
    case FailOn::inconclusive:
      return verdict != Verdict::improvement && verdict != Verdict::unchanged;
  }
  return false;
}

std::string device_label(const std::optional<int>& device_index) {
  return device_index ? "gpu" + std::to_string(*device_index) : "host";
}

std::optional<double> Entry::speedup() const {
  if (!(ratio > 0) || !std::isfinite(ratio)) return std::nullopt;
  switch (direction) {
    case results::Direction::higher:
      return ratio;
    case results::Direction::lower:
      return 1.0 / ratio;
    case results::Direction::unknown:
      return std::nullopt;
  }
  return std::nullopt;
}

std::size_t Comparison::count(Verdict verdict) const {
  return static_cast<std::size_t>(
      std::count_if(entries.begin(), entries.end(),
                    [&](const Entry& e) { return e.primary && e.verdict == verdict; }));
}

std::size_t Comparison::compared() const {
  return static_cast<std::size_t>(
      std::count_if(entries.begin(), entries.end(), [](const Entry& e) { return e.primary; }));
}

std::size_t Comparison::removed_benchmarks() const {
  std::set<std::tuple<std::string, std::string, std::string>> gone;
  for (const Unmatched& u : removed) gone.insert({u.key.suite, u.key.benchmark, u.key.device});
  return gone.size();
}

std::size_t Comparison::failing(FailOn fail_on) const {
  // A benchmark the base measured and the candidate did not run (a suite that stopped running)
  // is no pass: it fails under every --fail-on but never, each counted once.
  return static_cast<std::size_t>(
             std::count_if(entries.begin(), entries.end(),
                           [&](const Entry& e) { return e.primary && entry_fails(e, fail_on); })) +
         (fail_on == FailOn::never ? 0 : removed_benchmarks());
}

bool entry_fails(const Entry& entry, FailOn fail_on) {
  return fails(entry.verdict, fail_on) || (entry.lost_hardware && fail_on != FailOn::never);
}

int Comparison::exit_code(FailOn fail_on) const {
  return failing(fail_on) > 0 ? 1 : 0;
}

void summarize(SideStats& s) {
  s.n = s.values.size();
  if (s.n > 0) {
    s.median = median(s.values);
    s.cv = coefficient_of_variation(s.values);
    auto [lo, hi] = std::minmax_element(s.values.begin(), s.values.end());
    s.min = *lo;
    s.max = *hi;
  } else {
    s.median = s.cv = s.min = s.max = std::nan("");
  }
}

namespace {

// A row of a side with its key's parts, viewed (not copied) from the row: the device label is
// short enough for std::string's inline buffer, so building these allocates nothing per row.
struct KeyedRow {
  std::string_view suite, benchmark, metric;
  std::string device;
  const results::ResultRow* row = nullptr;
};

// The same order as Key's operator<=> (member by member, strings by bytes).
int compare_keys(const KeyedRow& a, const KeyedRow& b) {
  if (int c = a.suite.compare(b.suite)) return c;
  if (int c = a.benchmark.compare(b.benchmark)) return c;
  if (int c = a.metric.compare(b.metric)) return c;
  return std::string_view(a.device).compare(b.device);
}

// Rows of one identity on one side, pooled over runs: a run of equal keys in a side's sorted rows.
struct Pool {
  const results::ResultRow* first = nullptr;
  std::span<const KeyedRow> rows;
};

}  // namespace

bool compared_metric(std::string_view metric, const std::optional<std::string>& only) {
  return only ? metric == *only : metric != "cpu_time";
}

namespace {

// The rows compare looks at, sorted by key; rows of one key stay in side order (stable), so a
// pool's first row is the one the side listed first. A GPU row is keyed by the name `pairing`
// gives it (compare/gpu_pairing.hpp); names that differ from the row's own are kept in `renamed`
// (a deque: its strings never move, so the views stay valid).
std::vector<KeyedRow> keyed_rows(const Side& side, const Options& options,
                                 const GpuPairing& pairing, std::deque<std::string>& renamed) {
  std::vector<KeyedRow> out;
  out.reserve(side.results.size());
  for (const results::ResultRow& row : side.results) {
    if (!compared_metric(row.metric, options.metric)) continue;
    if (row.role == results::MetricRole::parameter) continue;  // describes the case
    if (pairing.by_uuid && row.device_index) {
      PairedName name = paired_name(pairing, row);
      std::string_view benchmark = row.benchmark;
      if (name.benchmark != row.benchmark)
        benchmark = renamed.emplace_back(std::move(name.benchmark));
      out.push_back({row.suite, benchmark, row.metric, std::move(name.device), &row});
      continue;
    }
    out.push_back({row.suite, row.benchmark, row.metric, device_label(row.device_index), &row});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const KeyedRow& a, const KeyedRow& b) { return compare_keys(a, b) < 0; });
  return out;
}

// Splits sorted rows into pools, one per key, in key order.
std::vector<Pool> pools_of(const std::vector<KeyedRow>& rows) {
  std::vector<Pool> out;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i + 1;
    while (j < rows.size() && compare_keys(rows[i], rows[j]) == 0) ++j;
    out.push_back({rows[i].row, std::span<const KeyedRow>(rows.data() + i, j - i)});
    i = j;
  }
  return out;
}

Key key_of(const Pool& pool) {
  const KeyedRow& k = pool.rows.front();
  return Key{std::string(k.suite), std::string(k.benchmark), std::string(k.metric), k.device};
}

// suite run id -> run id, for the rows of a side (RunDetail::suite_run_ids). A row whose suite
// run is not listed (sides built by hand) counts as a run of its own.
using RunOfExecution = std::unordered_map<int64_t, int64_t>;

RunOfExecution run_of_execution(const Side& side) {
  RunOfExecution out;
  for (const results::RunDetail& r : side.runs) {
    for (int64_t id : r.suite_run_ids) out.emplace(id, r.run.id);
  }
  return out;
}

// Pools a side's rows of one series. Each suite run is one execution (one process of the
// suite); executions belong to runs. With samples from >= 3 runs (--last N), each run becomes
// one sample, its median: runs differ systematically (machine state, load, clocks), so their
// repetitions are not independent draws of one distribution. Otherwise the side keeps every
// sample (for people) and each execution's log mean (for the two-level interval).
SideStats side_stats(const Pool& pool, const RunOfExecution& run_of) {
  SideStats s;
  std::vector<const results::ResultRow*> rows;
  rows.reserve(pool.rows.size());
  for (const KeyedRow& k : pool.rows) rows.push_back(k.row);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto* a, const auto* b) { return a->suite_run_id < b->suite_run_id; });
  // Per execution (suite run id, ascending): its values and its run.
  struct Execution {
    int64_t id = 0;
    int64_t run = 0;
    std::vector<double> values;
  };
  std::vector<Execution> executions;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i == 0 || rows[i]->suite_run_id != rows[i - 1]->suite_run_id) {
      const auto found = run_of.find(rows[i]->suite_run_id);
      executions.push_back({rows[i]->suite_run_id,
                            found == run_of.end() ? -rows[i]->suite_run_id : found->second,
                            {}});
    }
    std::vector<double>& values = executions.back().values;
    values.insert(values.end(), rows[i]->values.begin(), rows[i]->values.end());
    for (int t : rows[i]->throttled) s.throttled += t == 1 ? 1 : 0;
    if (s.gpu_uuid.empty()) s.gpu_uuid = rows[i]->gpu_uuid;
    if (!s.device_index) s.device_index = rows[i]->device_index;
  }
  // Runs in the order of their first execution.
  std::vector<int64_t> runs;
  for (const Execution& x : executions) {
    if (x.values.empty()) continue;
    ++s.executions;
    s.execution_ids.push_back(x.id);
    s.execution_means.push_back(execution_log_mean(x.values));
    if (std::find(runs.begin(), runs.end(), x.run) == runs.end()) runs.push_back(x.run);
  }
  s.runs = runs.size();
  s.per_run = s.runs >= 3;
  if (s.per_run) {
    for (int64_t run : runs) {
      std::vector<double> values;
      for (const Execution& x : executions) {
        if (x.run == run) values.insert(values.end(), x.values.begin(), x.values.end());
      }
      s.values.push_back(median(values));
    }
  } else {
    for (Execution& x : executions) s.values.insert(s.values.end(), x.values.begin(), x.values.end());
  }
  summarize(s);
  return s;
}

// First error/skip message among the rows with that status, or nullptr.
const results::ResultRow* find_status(const Pool& pool, results::BenchmarkStatus status) {
  for (const KeyedRow& k : pool.rows) {
    if (k.row->status == status) return k.row;
  }
  return nullptr;
}

// Aggregates only on a side (compare/aggregates.hpp); found without allocating for usual series.
std::optional<AggregateReading> aggregates_of(const Pool& b, const Pool& c) {
  auto bare = [](const KeyedRow& k) { return k.row->values.empty() && !k.row->aggregates.empty(); };
  if (std::none_of(b.rows.begin(), b.rows.end(), bare) &&
      std::none_of(c.rows.begin(), c.rows.end(), bare)) {
    return std::nullopt;
  }
  std::vector<const results::ResultRow*> rb, rc;
  for (const KeyedRow& k : b.rows) rb.push_back(k.row);
  for (const KeyedRow& k : c.rows) rc.push_back(k.row);
  return read_aggregates(rb, rc);
}

// The note when the two sides' labels name different cuBLASLt algorithms (compare/algorithms.hpp),
// else empty.
std::string algorithm_change(const Pool& b, const Pool& c) {
  auto of = [](const Pool& p) {
    std::vector<std::string> out;
    for (const KeyedRow& k : p.rows) {
      if (!k.row->label.empty()) out.push_back(cublaslt_algorithm(k.row->label));
    }
    return out;
  };
  return algorithm_difference(of(b), of(c));
}

// What one matched pair of pools gives: an entry, or a skipped series.
struct Judged {
  std::vector<Entry> entries;
  std::vector<Unmatched> skipped;
};

// Judges one series present on both sides (appends to `out`). Throws Error(bad_input) when the
// units differ.
void judge(const Pool& bpool, const Pool& cpool, const RunOfExecution& brun,
           const RunOfExecution& crun, const Options& options, Judged& out) {
  const Key key = key_of(bpool);
  if (bpool.first->unit != cpool.first->unit) {
    throw bad_input("cannot compare " + key.benchmark + " " + key.metric,
                    "the unit is '" + bpool.first->unit + "' in base and '" + cpool.first->unit +
                        "' in candidate",
                    "compare runs of the same suite version, or pick one metric with --metric");
  }
  const ThresholdRule* rule =
      options.thresholds ? options.thresholds->match(key.benchmark) : nullptr;
  if (rule && rule->ignore) {
    out.skipped.push_back({key, "ignored (thresholds line " + std::to_string(rule->line) + ")"});
    return;
  }
  const results::ResultRow* skip_b = find_status(bpool, results::BenchmarkStatus::skipped);
  const results::ResultRow* skip_c = find_status(cpool, results::BenchmarkStatus::skipped);
  if (skip_b || skip_c) {
    const results::ResultRow* s = skip_b ? skip_b : skip_c;
    out.skipped.push_back(
        {key, std::string(skip_b ? "base" : "candidate") + " skipped: " + s->message});
    return;
  }
  const std::optional<AggregateReading> aggregates = aggregates_of(bpool, cpool);
  if (aggregates && aggregates->complexity_fit) {
    out.skipped.push_back({key, aggregates->reason});
    return;
  }
  Entry e;
  e.key = key;
  e.case_name = bpool.first->case_name;
  e.params = bpool.first->params;
  e.unit = bpool.first->unit;
  e.direction = bpool.first->direction;
  e.primary = bpool.first->role != results::MetricRole::secondary;
  e.algorithm_change = algorithm_change(bpool, cpool);
  e.base = side_stats(bpool, brun);
  e.candidate = side_stats(cpool, crun);
  // Built from executions when a side measured its suite in more than one process a run and
  // neither side is per-run medians (compare/stats/executions.hpp).
  e.by_execution = !e.base.per_run && !e.candidate.per_run &&
                   (e.base.executions > e.base.runs || e.candidate.executions > e.candidate.runs);
  e.delta = rule ? rule->threshold : options.threshold;
  // Unknown until estimated: null in JSON, "—" in text, never a made-up 1.0.
  e.ratio = e.ci_low = e.ci_high = e.p_value = e.q_value = e.mde = std::nan("");
  double rcv_b = robust_cv(e.base.values);
  double rcv_c = robust_cv(e.candidate.values);
  e.sample_cv = std::max(std::isnan(rcv_b) ? 0.0 : rcv_b, std::isnan(rcv_c) ? 0.0 : rcv_c);
  if (options.history) {
    auto h = options.history->find(e.key);
    if (h != options.history->end() && h->second.usable && std::isfinite(h->second.log_sd)) {
      e.history = h->second;
    }
    auto found = options.history->suite_runs.find(e.key.suite);
    if (found != options.history->suite_runs.end()) e.history_runs_found = found->second;
    // The series' own count when it has too few (since its change point, outliers left out).
    if (h != options.history->end() && !h->second.usable) e.history_runs_found = h->second.runs;
  }
  const results::ResultRow* err_b = find_status(bpool, results::BenchmarkStatus::error);
  const results::ResultRow* err_c = find_status(cpool, results::BenchmarkStatus::error);
  if (err_b || err_c) {
    e.verdict = Verdict::invalid;
    e.reason =
        std::string(err_b ? "base" : "candidate") + " failed: " + (err_b ? err_b : err_c)->message;
  } else if (e.base.throttled + e.candidate.throttled > 0) {
    e.verdict = Verdict::invalid;
    e.reason = std::to_string(e.base.throttled + e.candidate.throttled) +
               " sample(s) ran under a thermal or hardware slowdown (NVML)";
  } else if (aggregates) {
    e.ratio = aggregates->ratio;
    e.verdict = Verdict::inconclusive;
    e.reason = aggregates->reason;
  } else if (e.base.n == 0 || e.candidate.n == 0) {
    e.verdict = Verdict::missing;
    e.reason = std::string(e.base.n == 0 && e.candidate.n == 0 ? "both sides have"
                           : e.base.n == 0                     ? "base has"
                                                               : "candidate has") +
               " no samples of this series";
  } else if (e.by_execution) {
    e.reason = detail::k_pending_executions;  // estimated per suite, after every series is judged
  } else if (e.base.n < 3 || e.candidate.n < 3) {
    // The point is shown (ratio of medians, for people); no interval can be honest with 1-2.
    if (e.base.median > 0 && e.candidate.median > 0) e.ratio = e.candidate.median / e.base.median;
    e.verdict = Verdict::inconclusive;
    e.reason = "too few samples (base " + std::to_string(e.base.n) + ", candidate " +
               std::to_string(e.candidate.n) +
               "): no interval; at least 3 a side, 10 or more for small changes";
  } else if (detail::estimate(e, options)) {
    e.reason = "pending";  // decided after Benjamini-Hochberg below
  }
  out.entries.push_back(std::move(e));
}

// Judges every matched series, the two halves on two threads (entries are independent until
// Benjamini-Hochberg), in key order. The first error in key order is the one thrown.
Judged judge_all(const std::vector<std::pair<const Pool*, const Pool*>>& matched,
                 const RunOfExecution& brun, const RunOfExecution& crun, const Options& options) {
  const std::size_t half = matched.size() < 2048 ? matched.size() : matched.size() / 2;
  Judged first, second;
  first.entries.reserve(half);
  second.entries.reserve(matched.size() - half);
  run_both(
      [&] {
        for (std::size_t i = 0; i < half; ++i) {
          judge(*matched[i].first, *matched[i].second, brun, crun, options, first);
        }
      },
      [&] {
        for (std::size_t i = half; i < matched.size(); ++i) {
          judge(*matched[i].first, *matched[i].second, brun, crun, options, second);
        }
      },
      half < matched.size());
  first.entries.insert(first.entries.end(), std::make_move_iterator(second.entries.begin()),
                       std::make_move_iterator(second.entries.end()));
  first.skipped.insert(first.skipped.end(), std::make_move_iterator(second.skipped.begin()),
                       std::make_move_iterator(second.skipped.end()));
  return first;
}

}  // namespace

Comparison compare_sides(const Side& base, const Side& candidate, const Options& options) {
  Comparison cmp;
  cmp.base_selection = base.selection;
  cmp.candidate_selection = candidate.selection;
  for (const auto& r : base.runs) cmp.base_runs.push_back(r.run.id);
  for (const auto& r : candidate.runs) cmp.candidate_runs.push_back(r.run.id);
  for (const auto& [side, headers] :
       {std::pair{&base, &cmp.base_headers}, std::pair{&candidate, &cmp.candidate_headers}}) {
    for (const results::RunDetail& r : side->runs) {
      headers->push_back({r.run.id, r.run.started_at, r.info.host.hostname, r.info.software.git_sha,
                          r.annotations, r.run.uuid});
    }
  }
  cmp.options = options;
  cmp.options.thresholds = nullptr;  // not owned past this call
  cmp.env_differences = environment_differences(base.runs, candidate.runs);
  for (const auto& [side, label] :
       {std::pair{&base, "base "}, std::pair{&candidate, "candidate "}}) {
    for (const results::RunDetail& r : side->runs) {
      for (const std::string& p : run_problems(r)) cmp.problems.push_back(label + p);
    }
  }

  // Both sides sorted by key and merged: pools in key order, as the entries are kept.
  // The two sides are sorted at once, one on a second thread.
  // GPU series are paired by UUID when both sides know them (compare/gpu_pairing.hpp).
  const GpuPairing pairing = pair_gpus(base, candidate);
  cmp.gpu_pairing = pairing.note;
  std::vector<KeyedRow> b_rows, c_rows;
  std::deque<std::string> b_names, c_names;
  run_both([&] { b_rows = keyed_rows(base, options, pairing, b_names); },
           [&] { c_rows = keyed_rows(candidate, options, pairing, c_names); });
  const std::vector<Pool> b = pools_of(b_rows);
  const std::vector<Pool> c = pools_of(c_rows);
  std::vector<std::pair<const Pool*, const Pool*>> matched;
  matched.reserve(std::min(b.size(), c.size()));
  for (std::size_t i = 0, j = 0; i < b.size() || j < c.size();) {
    const int order = i == b.size()   ? 1
                      : j == c.size() ? -1
                                      : compare_keys(b[i].rows.front(), c[j].rows.front());
    if (order < 0) {
      cmp.removed.push_back({key_of(b[i++]), "only in base"});
    } else if (order > 0) {
      cmp.added.push_back({key_of(c[j++]), "only in candidate"});
    } else {
      matched.emplace_back(&b[i++], &c[j++]);
    }
  }

  Judged judged = judge_all(matched, run_of_execution(base), run_of_execution(candidate), options);
  cmp.entries = std::move(judged.entries);
  detail::estimate_by_execution(cmp.entries, options);
  cmp.skipped = std::move(judged.skipped);
  count_lost_hardware(base, candidate, cmp);  // a GPU's series lost with it: missing, not removed
  for (std::string& p : missing_suite_problems(cmp)) cmp.problems.push_back(std::move(p));
  if (cmp.entries.empty() && cmp.skipped.empty()) {
    // Runs of different suites (a gpubench run and another tool's imported output, nccl-tests,
    // nvbandwidth, ...) name their benchmarks differently: `peers` is what lines them up.
    std::set<std::string> base_suites, shared;
    for (const results::RunDetail& r : base.runs) {
      for (const auto& s : r.suites) base_suites.insert(s.suite);
    }
    for (const results::RunDetail& r : candidate.runs) {
      for (const auto& s : r.suites) {
        if (base_suites.count(s.suite)) shared.insert(s.suite);
      }
    }
    throw bad_input(
        "nothing to compare between '" + base.selection + "' and '" + candidate.selection + "'",
        "no benchmark" + std::string(options.metric ? " with metric " + *options.metric : "") +
            " is in both (" + std::to_string(b.size()) + " in base, " + std::to_string(c.size()) +
            " in candidate)" + (shared.empty() ? "; they hold no suite in common" : ""),
        shared.empty()
            ? "compare runs of the same suites; to set gpubench's figures beside another tool's "
              "imported output of the same host (nccl-tests, nvbandwidth, bandwidthTest, "
              "PyTorch), run `gpubench peers RUN` on the gpubench run"
            : "compare runs of the same suites; `gpubench show RUN` lists a run's benchmarks");
  }

  // Benjamini-Hochberg over every entry that got a test.
  std::vector<std::size_t> tested;
  std::vector<double> p;
  for (std::size_t i = 0; i < cmp.entries.size(); ++i) {
    if (cmp.entries[i].reason == "pending") {
      tested.push_back(i);
      p.push_back(cmp.entries[i].p_value);
    }
  }
  std::vector<double> q = benjamini_hochberg(p);
  // Each verdict depends on its own entry and the number tested only: two halves, two threads.
  auto decide_range = [&](std::size_t from, std::size_t to) {
    for (std::size_t k = from; k < to; ++k) {
      Entry& e = cmp.entries[tested[k]];
      e.q_value = q[k];
      detail::decide(e, options, tested.size());
    }
  };
  const std::size_t half = tested.size() < 2048 ? tested.size() : tested.size() / 2;
  run_both([&] { decide_range(0, half); }, [&] { decide_range(half, tested.size()); },
           half < tested.size());
  // Whatever the verdict, a row whose sides ran different cuBLASLt algorithms says so: its change
  // may be the kernel's, not the machine's.
  for (Entry& e : cmp.entries) {
    if (!e.algorithm_change.empty()) {
      e.reason += (e.reason.empty() ? "" : "; ") + e.algorithm_change;
    }
  }

  // Per-suite summaries: counts by verdict (the same Verdict values as Comparison::count) and
  // the geometric mean over entries that have an interval and a known direction.
  std::map<std::string, SuiteSummary> suites;
  std::map<std::string, std::vector<const Entry*>> speedups;
  for (const Entry& e : cmp.entries) {
    if (!e.primary) continue;  // one verdict per benchmark: secondary metrics are not counted
    SuiteSummary& s = suites[e.key.suite];
    s.suite = e.key.suite;
    ++s.compared;
    ++s.counts[static_cast<std::size_t>(e.verdict)];
    bool has_interval = std::isfinite(e.ci_low) && std::isfinite(e.ci_high);
    if (has_interval && e.verdict != Verdict::invalid && e.verdict != Verdict::missing &&
        e.speedup()) {
      speedups[e.key.suite].push_back(&e);
    }
  }
  for (auto& [name, s] : suites) {
    std::vector<double> values;
    double lo = 0;
    double hi = 0;
    for (const Entry* e : speedups[name]) {
      values.push_back(*e->speedup());
      bool lower = e->direction == results::Direction::lower;
      lo = lower ? 1.0 / e->ci_high : e->ci_low;
      hi = lower ? 1.0 / e->ci_low : e->ci_high;
    }
    GeoMean g = geometric_mean_ratio(values, options.confidence, lo, hi);
    s.geomean_count = g.count;
    s.geomean = g.count ? g.value : std::nan("");
    s.geomean_low = g.count ? g.ci_low : std::nan("");
    s.geomean_high = g.count ? g.ci_high : std::nan("");
    cmp.suites.push_back(s);
  }
  return cmp;
}

}  // namespace gpubench::compare
