// Acceptance of a run, per GPU and benchmark: against a reference run or against spec rules
// (spec files are read in accept_spec.cpp; the checks of GPUs as such are in accept_gpus.cpp).
#include "compare/accept/accept.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "compare/accept/accept_detail.hpp"
#include "compare/gpu_pairing.hpp"
#include "compare/hardware.hpp"
#include "compare/run_noise.hpp"
#include "compare/run_problems.hpp"
#include "compare/stats/stats.hpp"
#include "compare/stats/thresholds.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/suggest.hpp"

namespace gpubench::compare {

bool accept_counts(const results::ResultRow& row) {
  return row.metric != "cpu_time" && row.role != results::MetricRole::parameter;
}

const char* to_string(CheckOutcome outcome) {
  switch (outcome) {
    case CheckOutcome::pass:
      return "PASS";
    case CheckOutcome::marginal:
      return "MARGINAL";
    case CheckOutcome::fail:
      return "FAIL";
  }
  return "FAIL";
}

namespace {

using accept_detail::fill_device;
using accept_detail::Pooled;
using accept_detail::remap_failure_checks;
using accept_detail::sibling_check;

// The suite runs that are one execution of several of their suite in their run (issue 35: a run
// measures each suite in several processes, each its own suite run).
std::set<int64_t> execution_suite_runs(const Side& side) {
  std::set<int64_t> out;
  for (const results::RunDetail& run : side.runs) {
    std::map<std::string, std::size_t> executions;
    for (const results::SuiteRunInfo& s : run.suites) ++executions[s.suite];
    for (std::size_t i = 0; i < run.suites.size() && i < run.suite_run_ids.size(); ++i) {
      if (executions[run.suites[i].suite] > 1) out.insert(run.suite_run_ids[i]);
    }
  }
  return out;
}

// A series' values over the side's rows. Where the run measured the suite in several executions,
// each execution is one value, the median of its own: repetitions in one process share its clock
// state and placement, so they are no independent samples of what another process sees.
std::map<Key, Pooled> pool(const Side& side) {
  const std::set<int64_t> executions = execution_suite_runs(side);
  std::map<Key, Pooled> out;
  for (const results::ResultRow& row : side.results) {
    if (!accept_counts(row)) continue;
    Pooled& p = out[{row.suite, row.benchmark, row.metric, device_label(row.device_index)}];
    if (!p.first) p.first = &row;
    if (executions.count(row.suite_run_id)) {
      p.per_execution = true;
      if (!row.values.empty()) p.values.push_back(median(row.values));
    } else {
      p.values.insert(p.values.end(), row.values.begin(), row.values.end());
    }
    for (int t : row.throttled) p.throttled += t == 1 ? 1 : 0;
    if (row.status == results::BenchmarkStatus::error) p.error = true;
    if (row.status == results::BenchmarkStatus::skipped) p.skipped = true;
    if (!row.message.empty()) p.message = row.message;
  }
  return out;
}

std::string strip_skipped(const std::string& message) {
  return message.rfind("skipped: ", 0) == 0 ? message.substr(9) : message;
}

// Returns false (outcome and reason set) when the series cannot be judged from an interval:
// FAIL for failed, skipped or throttled series, MARGINAL with too few samples.
bool usable(AcceptCheck& c, const Pooled& p) {
  c.low = c.high = std::nan("");
  if (p.error) {
    c.reason = "failed: " + p.message;
  } else if (p.skipped) {
    c.skipped = true;
    c.reason = "skipped: " + strip_skipped(p.message);
  } else if (p.throttled > 0) {
    c.reason = std::to_string(p.throttled) + " sample(s) ran throttled";
  } else if (p.values.size() < 2) {
    // Not confidently below anything: undecided, like any interval that straddles the bound.
    c.outcome = CheckOutcome::marginal;
    c.repetitions_needed = 5;
    c.reason = std::string(p.per_execution ? "too few executions" : "too few samples") +
               " for an interval (" + std::to_string(p.values.size()) + "; need at least 2): " +
               (p.per_execution ? "rerun with --executions 5" : "rerun with --repetitions 5");
    return false;
  } else {
    return true;
  }
  c.outcome = CheckOutcome::fail;
  return false;
}

// Classifies an interval [low, high] of a value that is better when higher (oriented by the
// caller) against `required`; for MARGINAL, the repetitions a side that would shrink the interval
// (half-width in log units `half_log`, from n samples a side) to clear the requirement.
void classify(AcceptCheck& c, double low, double high, double point, double required,
              double half_log, std::size_t n) {
  if (low >= required) {
    c.outcome = CheckOutcome::pass;
  } else if (high < required) {
    c.outcome = CheckOutcome::fail;
  } else {
    c.outcome = CheckOutcome::marginal;
    double gap = std::fabs(std::log(point / required));
    if (gap > 1e-9 && half_log > 0) {
      double need = static_cast<double>(n) * (half_log / gap) * (half_log / gap);
      c.repetitions_needed = static_cast<std::size_t>(std::ceil(std::min(need, 1e6)));
    }
  }
}

std::string pct(double fraction) {
  return format_significant(fraction * 100.0, 3) + "%";
}

// "+4.1%" / "-2.0%": a signed change.
std::string signed_pct(double fraction) {
  return (fraction >= 0 ? "+" : "") + format_significant(fraction * 100.0, 3) + "%";
}

// The series' run-to-run noise: the exact series of the reference's history, else the largest of
// the same benchmark and metric on another device of the class (the reference is pooled over its
// GPUs, so any of them may be the one this GPU is held to). Null without usable history.
const SeriesNoise* series_noise(const HistoryNoise* history, const Key& key) {
  if (!history) return nullptr;
  auto usable_noise = [](const SeriesNoise& n) {
    return n.usable && std::isfinite(n.log_sd) && n.log_sd > 0;
  };
  auto exact = history->find(key);
  if (exact != history->end() && usable_noise(exact->second)) return &exact->second;
  const SeriesNoise* best = nullptr;
  for (auto it = history->lower_bound(Key{key.suite, key.benchmark, key.metric, ""});
       it != history->end() && it->first.suite == key.suite &&
       it->first.benchmark == key.benchmark && it->first.metric == key.metric;
       ++it) {
    if (usable_noise(it->second) && (!best || it->second.log_sd > best->log_sd)) best = &it->second;
  }
  return best;
}

// Where a series' history starts and what it left out: " since the change point at run 12, 1
// outlying run left out".
std::string history_span(const SeriesNoise& n) {
  std::string out;
  if (n.since_run > 0) out += " since the change point at run " + std::to_string(n.since_run);
  if (n.outliers > 0) {
    out += ", " + std::to_string(n.outliers) + " outlying run" + (n.outliers == 1 ? "" : "s") +
           " left out";
  }
  return out;
}

// What the interval holds, for the reason: the history it learned run-to-run noise from, the
// spread between the runs' executions (issue 35), or why it holds within-run noise only.
std::string noise_note(const AcceptOptions& options, const Key& key, const SeriesNoise* noise,
                       bool per_execution, bool same_run) {
  if (same_run && options.history && options.history_window > 0) {  // history not added
    return "; interval holds within-run noise only (the run is its own reference: no run-to-run "
           "noise between them)";
  }
  if (noise) {
    return "; interval includes run-to-run noise from " + std::to_string(noise->runs) +
           " runs of history" + history_span(*noise) +
           (noise->gpu_note.empty() ? "" : " (" + noise->gpu_note + ")");
  }
  if (per_execution) return "; interval holds the noise between executions (no history used)";
  if (!options.history || options.history_window == 0) {
    return "; interval holds within-run noise only (--history 0)";
  }
  // The series' own history, too short once change points and outliers are accounted for.
  if (auto own = options.history->find(key); own != options.history->end()) {
    return "; interval holds within-run noise only (" + std::to_string(own->second.runs) +
           " run(s) of history" + history_span(own->second) + ", fewer than the " +
           std::to_string(k_min_history_runs) + " needed for run-to-run noise)";
  }
  auto found = options.history->suite_runs.find(key.suite);
  const std::size_t runs = found == options.history->suite_runs.end() ? 0 : found->second;
  if (runs > 0 && runs < k_min_history_runs) {
    return "; interval holds within-run noise only (" + std::to_string(runs) +
           " run(s) of history, fewer than the " + std::to_string(k_min_history_runs) +
           " needed for run-to-run noise)";
  }
  return "; interval holds within-run noise only (no history of this series)";
}

std::string marginal_advice(const AcceptCheck& c) {
  if (c.outcome != CheckOutcome::marginal) return "";
  if (c.repetitions_needed == 0)
    return "; the median sits on the requirement: more runs cannot settle it";
  return "; about " + std::to_string(c.repetitions_needed) +
         (c.per_execution ? " executions a side (--executions) would decide it"
                          : " repetitions a side (--repetitions) would decide it");
}

}  // namespace

std::size_t AcceptResult::count(CheckOutcome outcome) const {
  return static_cast<std::size_t>(std::count_if(
      checks.begin(), checks.end(), [&](const AcceptCheck& c) { return c.outcome == outcome; }));
}

bool AcceptResult::passed() const {
  if (!outliers.empty() || !missing.empty() || !hardware.empty() || !facts.failed.empty()) {
    return false;
  }
  if (!problems.empty() && !options.allow_failed) return false;
  if (count(CheckOutcome::fail) > 0) return false;
  return !options.strict || count(CheckOutcome::marginal) == 0;
}

namespace {

AcceptResult start(const Side& run, const std::string& reference, const AcceptOptions& options) {
  AcceptResult result;
  result.run_selection = run.selection;
  result.reference = reference;
  result.options = options;
  for (const results::RunDetail& r : run.runs) {
    for (std::string& p : run_problems(r)) result.problems.push_back(std::move(p));
  }
  return result;
}

bool is_primary(const results::ResultRow& row) {
  return row.role == results::MetricRole::primary || row.role == results::MetricRole::unknown;
}

}  // namespace

AcceptResult accept_against_reference(const Side& run, const Side& reference,
                                      const AcceptOptions& options) {
  AcceptResult result = start(run, reference.selection, options);
  // A run accepted against itself: both medians are the same run's, so no run-to-run noise lies
  // between them; history's would only widen an interval around an exact 1 until it straddled
  // the tolerance (issue 38: "0% better, between -22.1% and +28.3%", FAIL under --strict).
  std::set<int64_t> run_ids, reference_ids;
  for (const results::RunDetail& r : run.runs) run_ids.insert(r.run.id);
  for (const results::RunDetail& r : reference.runs) reference_ids.insert(r.run.id);
  const bool same_run = !run_ids.empty() && run_ids == reference_ids;
  std::map<Key, Pooled> mine = pool(run);
  // A GPU's series are held to the same GPU's in the reference when both know the UUIDs
  // (compare/gpu_pairing.hpp): the run's name of a series is mapped to the reference's name of it
  // (GPU-...4 ran as device:3 after GPU 3 was lost; the reference named it device:4).
  const GpuPairing pairing = pair_gpus(reference, run);
  const auto reference_name = [&](const Key& key, const Pooled& p) -> PairedName {
    const results::ResultRow& row = *p.first;
    if (!pairing.by_uuid || !row.device_index || !pairing.base_index.count(row.gpu_uuid)) {
      // By index: also a GPU the reference does not have (a replaced one), held to the
      // reference's GPU of its number.
      return {key.benchmark, key.device};
    }
    const int index = pairing.base_index.at(row.gpu_uuid);
    return {with_device_index(key.benchmark, index), device_label(index)};
  };
  // Reference values pooled over its devices: the reference is the class, not a GPU.
  std::map<Key, Pooled> ref;
  // GPUs each benchmark was measured on, in the reference and in the run: a GPU fewer in the run
  // is a GPU's results lost, whatever the others measured.
  std::map<Key, std::set<std::string>> ref_gpus, run_gpus;
  for (const auto& [key, p] : mine) {
    if (key.device != "host" && !p.values.empty())
      run_gpus[{key.suite, key.benchmark, key.metric, "gpu"}].insert(key.device);
  }
  for (auto& [key, p] : pool(reference)) {
    Key k = key;
    k.device = key.device == "host" ? "host" : "gpu";
    if (key.device != "host" && !p.values.empty()) ref_gpus[k].insert(key.device);
    Pooled& dst = ref[k];
    if (!dst.first) {
      dst = p;
    } else {
      dst.values.insert(dst.values.end(), p.values.begin(), p.values.end());
      dst.skipped = dst.skipped && p.skipped;
      dst.per_execution = dst.per_execution || p.per_execution;
    }
  }
  std::set<Key> seen;
  // Benchmarks of the run without samples (skipped or failed), by (benchmark, device class).
  std::map<std::pair<std::string, std::string>, std::pair<Key, const Pooled*>> no_samples;
  for (const auto& [key, p] : mine) {
    if (key.metric.empty()) {
      no_samples[{reference_name(key, p).benchmark, key.device == "host" ? "host" : "gpu"}] = {key,
                                                                                               &p};
    }
  }
  for (const auto& [key, p] : mine) {
    const PairedName named = reference_name(key, p);
    Key rk = key;
    rk.benchmark = named.benchmark;
    rk.device = key.device == "host" ? "host" : "gpu";
    auto it = ref.find(rk);
    if (it == ref.end()) continue;  // not in the reference: nothing to accept against
    seen.insert(rk);
    const Pooled& rp = it->second;
    if (rp.values.empty()) continue;      // skipped or failed in the reference: nothing to hold to
    if (!is_primary(*p.first)) continue;  // one verdict per benchmark: its primary metric(s)
    results::Direction dir = p.first->direction;
    if (dir == results::Direction::unknown) continue;
    AcceptCheck c;
    c.key = key;
    c.unit = p.first->unit;
    c.direction = dir;
    c.n = p.values.size();
    c.per_execution = p.per_execution;
    fill_device(c, run, *p.first);
    if (!p.first->unit.empty() && p.first->unit != rp.first->unit) {
      throw bad_input("cannot accept " + key.benchmark + " " + key.metric,
                      "the unit is '" + p.first->unit + "' in the run and '" + rp.first->unit +
                          "' in the reference",
                      "accept against a run of the same suite version");
    }
    c.median = p.values.empty() ? std::nan("") : median(p.values);
    c.reference = median(rp.values);
    const bool higher = dir == results::Direction::higher;
    c.required =
        higher ? c.reference * (1.0 - options.tolerance) : c.reference / (1.0 - options.tolerance);
    if (usable(c, p)) {
      // Run-to-run noise: the run and the reference are one run each, so the history's variance
      // of one run's median counts once a side (as compare's estimate()).
      // History is the reference's: its series of this GPU are named as the reference named them.
      const Key noise_key{key.suite, named.benchmark, key.metric, named.device};
      const SeriesNoise* noise = same_run ? nullptr : series_noise(options.history, noise_key);
      const double extra = noise ? 2.0 * noise->log_sd * noise->log_sd : 0.0;
      RatioEstimate r = ratio_of_medians(
          rp.values, p.values, options.confidence, extra,
          noise ? static_cast<double>(noise->runs) - 1.0 : std::numeric_limits<double>::infinity());
      if (!r.valid) {
        c.outcome = CheckOutcome::fail;
        c.reason = "no interval (the reference has < 2 samples or values are not positive)";
      } else {
        c.low = c.reference * r.ci_low;
        c.high = c.reference * r.ci_high;
        // Oriented so that higher is better: speed-up g = ratio (or 1/ratio), against 1 - tol.
        double g = higher ? r.ratio : 1.0 / r.ratio;
        double g_low = higher ? r.ci_low : 1.0 / r.ci_high;
        double g_high = higher ? r.ci_high : 1.0 / r.ci_low;
        double half_log = 0.5 * std::log(r.ci_high / r.ci_low);
        classify(c, g_low, g_high, g, 1.0 - options.tolerance, half_log,
                 std::min(rp.values.size(), p.values.size()));
        c.reason = pct(std::fabs(g - 1.0)) + (g < 1.0 ? " worse" : " better") +
                   " than the reference, between " + signed_pct(g_low - 1.0) + " and " +
                   signed_pct(g_high - 1.0) + " with " +
                   format_significant(options.confidence * 100.0, 2) + "%" +
                   " confidence; required: no worse than -" + pct(options.tolerance) +
                   marginal_advice(c) + noise_note(options, key, noise, c.per_execution, same_run);
        if (named.benchmark != key.benchmark) {
          c.reason += "; the reference measured this GPU as " + named.device + " (paired by UUID)";
        }
      }
    }
    result.checks.push_back(std::move(c));
  }
  // GPUs of the run (recorded, or named by a row): a reference GPU not among them is lost, and
  // its series are said once, under the GPU, not once per benchmark (issue 38).
  std::set<std::string> run_uuids;
  for (const results::RunDetail& r : run.runs) {
    for (const results::GpuInfo& g : r.info.gpus) run_uuids.insert(g.uuid);
  }
  for (const results::ResultRow& row : run.results) {
    if (knows_gpu(row)) run_uuids.insert(row.gpu_uuid);
  }
  struct LostGpu {
    Key first;
    int index = -1;
    std::vector<std::string> benchmarks;
  };
  std::map<std::string, LostGpu> lost;  // by UUID
  for (const auto& [key, p] : ref) {
    if (seen.count(key) || p.values.empty() || !is_primary(*p.first)) continue;
    if (pairing.by_uuid && p.first->device_index && knows_gpu(*p.first) &&
        !run_uuids.count(p.first->gpu_uuid)) {
      LostGpu& l = lost[p.first->gpu_uuid];
      if (l.benchmarks.empty()) {
        l.first = key;
        l.index = *p.first->device_index;
      }
      l.benchmarks.push_back(key.benchmark + " " + key.metric);
      continue;
    }
    auto gone = no_samples.find({key.benchmark, key.device});
    if (gone == no_samples.end()) {
      result.missing.push_back({key, "in the reference, never measured in the run"});
      continue;
    }
    AcceptCheck c;  // measured in the reference, skipped or failed in the run: FAIL with why
    c.key = gone->second.first;
    c.key.metric = key.metric;
    c.unit = p.first->unit;
    c.direction = p.first->direction;
    c.reference = median(p.values);
    c.median = std::nan("");
    fill_device(c, run, *gone->second.second->first);
    usable(c, *gone->second.second);
    result.checks.push_back(std::move(c));
  }
  for (const auto& [uuid, l] : lost) {
    std::string bus;
    for (const results::RunDetail& r : reference.runs) {
      for (const results::GpuInfo& g : r.info.gpus) {
        if (g.uuid == uuid && g.pci_bus_id != results::k_unknown) bus = g.pci_bus_id;
      }
    }
    std::vector<std::string> shown(
        l.benchmarks.begin(), l.benchmarks.begin() + std::min<std::size_t>(3, l.benchmarks.size()));
    result.missing.push_back(
        {l.first, "lost with its GPU: " + uuid + " (device:" + std::to_string(l.index) +
                      " in the reference" + (bus.empty() ? "" : ", bus " + bus) +
                      ") is not in the run; it measured " + std::to_string(l.benchmarks.size()) +
                      " series in the reference: " + join(shown, ", ") +
                      (l.benchmarks.size() > shown.size() ? ", ..." : "")});
  }
  for (const auto& [key, devices] : ref_gpus) {
    auto it = run_gpus.find(key);
    const std::size_t here = it == run_gpus.end() ? 0 : it->second.size();
    const std::size_t wanted =
        options.expect_gpus
            ? std::min(devices.size(), static_cast<std::size_t>(*options.expect_gpus))
            : devices.size();
    if (here == 0 || here >= wanted || !is_primary(*ref[key].first)) continue;
    result.missing.push_back({key, "measured on " + std::to_string(devices.size()) +
                                       " GPUs in the reference, on " + std::to_string(here) +
                                       " in the run"});
  }
  sibling_check(run, mine, options, result);
  remap_failure_checks(run, result);
  return result;
}

namespace {

// The metric a spec line checks: its own, or pct_of_peak for "N% of peak".
std::string checked_metric(const SpecRule& rule) {
  return rule.of_peak ? std::string("pct_of_peak") : rule.metric;
}

// "did you mean 'TFLOP_per_s'?" for a metric as people write it: a typo (util/suggest.hpp), or the
// same letters without the underscores and "per" that metric names spell units with ("TFLOPs",
// "GB/s"). "" when nothing is near.
std::string metric_suggestion(const std::string& written, const std::vector<std::string>& known) {
  if (std::string near = did_you_mean(written, known); !near.empty()) return near;
  auto squash = [](const std::string& name) {
    std::string out;
    for (std::size_t i = 0; i < name.size(); ++i) {
      if (name.compare(i, 5, "_per_") == 0)
        i += 4;  // "_per_" reads as "/", dropped
      else if (std::isalnum(static_cast<unsigned char>(name[i])))
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
    }
    return out;
  };
  std::vector<std::string> squashed;
  for (const std::string& k : known) squashed.push_back(squash(k));
  for (std::size_t i = 0; i < known.size(); ++i) {
    if (squashed[i] == squash(written)) return "did you mean '" + known[i] + "'?";
  }
  return "";
}

// One series held to the line that decides it (accept_against_spec).
void spec_check(const Side& run, const Key& key, const Pooled& p, const SpecRule& rule,
                const AcceptOptions& options, AcceptResult& result) {
  const bool no_samples = key.metric.empty();
  if (!no_samples && !rule.of_peak && rule.unit != p.first->unit) {
    throw bad_input("spec line " + std::to_string(rule.line) + " does not fit " + key.benchmark,
                    "the rule's unit is '" + rule.unit + "' but " + key.metric + " is in '" +
                        p.first->unit + "'",
                    "write the limit in " + p.first->unit);
  }
  AcceptCheck c;
  c.key = key;
  if (no_samples) c.key.metric = rule.of_peak ? "pct_of_peak" : rule.metric;
  c.unit = no_samples ? rule.unit : p.first->unit;
  c.direction = p.first->direction;
  c.n = p.values.size();
  c.per_execution = p.per_execution;
  c.reference = rule.limit;
  c.required = rule.limit;
  fill_device(c, run, *p.first);
  c.median = p.values.empty() ? std::nan("") : median(p.values);
  const std::string where = " (spec line " + std::to_string(rule.line) + ")";
  if (usable(c, p)) {
    bool positive = std::all_of(p.values.begin(), p.values.end(), [](double v) { return v > 0; });
    if (!positive) {
      c.outcome = CheckOutcome::fail;
      c.reason = "values are not all positive; no interval";
    } else {
      std::vector<double> logs;
      for (double v : p.values) logs.push_back(std::log(v));
      // Tied samples hold the spread at the data's resolution (log_resolution), never 0.
      const double resolution = log_resolution(p.values, {});
      const double variance = std::max(std::pow(stddev(logs), 2), resolution * resolution / 12);
      double se = std::sqrt(variance / static_cast<double>(logs.size()));
      double q = se == 0 ? 0
                         : student_t_quantile(0.5 + options.confidence / 2.0,
                                              static_cast<double>(logs.size() - 1));
      c.low = std::exp(std::log(c.median) - q * se);
      c.high = std::exp(std::log(c.median) + q * se);
      if (rule.at_least) {
        classify(c, c.low, c.high, c.median, rule.limit, q * se, c.n);
      } else {  // a ceiling: orient by taking reciprocals
        classify(c, 1.0 / c.high, 1.0 / c.low, 1.0 / c.median, 1.0 / rule.limit, q * se, c.n);
      }
      c.reason = "median " + format_value(c.median) + " " + c.unit + ", between " +
                 format_value(c.low) + " and " + format_value(c.high) + " with " +
                 format_significant(options.confidence * 100.0, 2) + "%" +
                 " confidence; required " + (rule.at_least ? ">= " : "<= ") +
                 format_value(rule.limit) + " " + c.unit + (rule.of_peak ? " of peak" : "") +
                 where + marginal_advice(c);
    }
  } else {
    c.reason += where;
  }
  result.checks.push_back(std::move(c));
}

}  // namespace

AcceptResult accept_against_spec(const Side& run, const std::vector<SpecRule>& spec,
                                 const std::string& spec_name, const AcceptOptions& options) {
  AcceptResult result = start(run, "spec " + spec_name, options);
  std::map<Key, Pooled> mine = pool(run);
  std::vector<bool> used(spec.size(), false);
  for (const auto& [key, p] : mine) {
    const bool no_samples = key.metric.empty();  // skipped or failed before any sample
    // The lines that decide this series (k_spec_example): per metric, the last line whose glob
    // matches. A benchmark skipped or failed before any sample has no metric of its own, so each
    // metric a matching line names gets its check, counted under that line.
    std::vector<const SpecRule*> deciding;
    std::set<std::string> decided;
    for (std::size_t i = spec.size(); i-- > 0;) {
      const std::string want = checked_metric(spec[i]);
      if ((!no_samples && want != key.metric) || !glob_match(spec[i].glob, key.benchmark)) continue;
      if (!decided.insert(want).second) continue;  // a later line decides this metric
      deciding.push_back(&spec[i]);
      used[i] = true;
    }
    for (const SpecRule* rule : deciding) spec_check(run, key, p, *rule, options, result);
  }
  for (std::size_t i = 0; i < spec.size(); ++i) {
    // A line whose glob matches benchmarks with samples and that names a metric none of them
    // records is a typo ("TFLOPs"), not a benchmark gone: refused, with the near name.
    std::set<std::string> metrics, run_metrics;
    for (const auto& [key, p] : mine) {
      if (key.metric.empty()) continue;
      run_metrics.insert(key.metric);
      if (glob_match(spec[i].glob, key.benchmark)) metrics.insert(key.metric);
    }
    const std::string where =
        "spec line " + std::to_string(spec[i].line) + " ('" + spec[i].text + "')";
    for (const std::string& want : {spec[i].metric, checked_metric(spec[i])}) {
      if (metrics.empty() || metrics.count(want)) continue;
      const std::vector<std::string> known(metrics.begin(), metrics.end());
      const std::string near = metric_suggestion(want, known);
      throw bad_input(
          where + " names metric '" + want + "'",
          "none of the benchmarks its glob matches records it (they record " + join(known, ", ") +
              ")" + (near.empty() ? "" : "; " + near),
          want == "pct_of_peak"
              ? "their suite computes no peak for them: write '>= <pct>% of <peak figure> <unit>'"
              : "write one of their metrics (`gpubench show RUN` lists them)");
    }
    if (used[i] || !metrics.empty()) continue;  // metrics: overridden by later lines everywhere
    std::string reason =
        "spec line " + std::to_string(spec[i].line) + " matched no benchmark of the run";
    if (!run_metrics.count(spec[i].metric)) {
      const std::string near =
          metric_suggestion(spec[i].metric, {run_metrics.begin(), run_metrics.end()});
      if (!near.empty()) {
        reason += " (no benchmark of the run records '" + spec[i].metric + "'; " + near + ")";
      }
    }
    result.missing.push_back({{"", spec[i].glob, checked_metric(spec[i]), ""}, reason});
  }
  sibling_check(run, mine, options, result);
  remap_failure_checks(run, result);
  return result;
}

}  // namespace gpubench::compare
