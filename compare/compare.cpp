#include "compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "compare/accept.hpp"
#include "compare/stats.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

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
  }
  return "unknown";
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
  return static_cast<std::size_t>(std::count_if(
      entries.begin(), entries.end(),
      [&](const Entry& e) { return e.primary && e.verdict == verdict; }));
}

int Comparison::exit_code(FailOn fail_on) const {
  switch (fail_on) {
    case FailOn::never:
      return 0;
    case FailOn::regression:
      return count(Verdict::regression) > 0 ? 1 : 0;
    case FailOn::inconclusive:
      return count(Verdict::regression) + count(Verdict::inconclusive) + count(Verdict::invalid) > 0
                 ? 1
                 : 0;
  }
  return 0;
}

void summarize(SideStats& s) {
  s.n = s.values.size();
  if (s.n > 0) {
    s.median = median(s.values);
    s.cv = coefficient_of_variation(s.values);
    auto [lo, hi] = std::minmax_element(s.values.begin(), s.values.end());
    s.min = *lo;
    s.max = *hi;
  }
}

namespace {

// Rows of one identity on one side, pooled over runs.
struct Pool {
  const results::ResultRow* first = nullptr;
  std::vector<const results::ResultRow*> rows;
};

std::map<Key, Pool> pool_side(const Side& side, const Options& options) {
  std::map<Key, Pool> out;
  for (const results::ResultRow& row : side.results) {
    if (options.metric) {
      if (row.metric != *options.metric) continue;
    } else if (row.metric == "cpu_time") {
      continue;  // host CPU time of a GPU benchmark says little; real_time is compared
    }
    if (row.role == results::MetricRole::parameter) continue;  // describes the case
    Key key{row.suite, row.benchmark, row.metric, device_label(row.device_index)};
    Pool& pool = out[key];
    if (!pool.first) pool.first = &row;
    pool.rows.push_back(&row);
  }
  return out;
}

// Pools a side's rows of one series. With samples from >= 3 runs (--last N), each run becomes
// one sample, its median: runs differ systematically (machine state, load, clocks), so their
// repetitions are not independent draws of one distribution, and treating them as such makes
// p-values far too small. Per-run medians put the run-to-run noise into the variance.
SideStats side_stats(const Pool& pool) {
  SideStats s;
  std::map<int64_t, std::vector<double>> by_run;  // suite run id -> repetitions
  for (const results::ResultRow* row : pool.rows) {
    std::vector<double>& run = by_run[row->suite_run_id];
    run.insert(run.end(), row->values.begin(), row->values.end());
    for (int t : row->throttled) s.throttled += t == 1 ? 1 : 0;
    if (s.gpu_uuid.empty()) s.gpu_uuid = row->gpu_uuid;
  }
  for (auto& [id, values] : by_run) {
    if (!values.empty()) ++s.runs;
  }
  s.per_run = s.runs >= 3;
  for (auto& [id, values] : by_run) {
    if (values.empty()) continue;
    if (s.per_run) {
      s.values.push_back(median(values));
    } else {
      s.values.insert(s.values.end(), values.begin(), values.end());
    }
  }
  summarize(s);
  return s;
}

// First error/skip message among the rows with that status, or nullptr.
const results::ResultRow* find_status(const Pool& pool, results::BenchmarkStatus status) {
  for (const results::ResultRow* row : pool.rows) {
    if (row->status == status) return row;
  }
  return nullptr;
}

std::string pct(double fraction) {
  return format_significant(fraction * 100.0, 3) + "%";
}

// Margin delta = max(threshold, 3 x noise), noise being the larger of the tested samples' robust
// CV and the series' run-to-run CV from history (DESIGN.md "Statistics"): repetitions of one run
// share its machine state, so on their own they understate how much two runs of identical work
// differ, and an A/A pair would be called a regression.
void set_margin(Entry& e, double threshold, const Options& options) {
  if (options.history) {
    auto it = options.history->find(e.key);
    if (it != options.history->end() && it->second.runs > 0 && std::isfinite(it->second.cv)) {
      e.history = it->second;
    }
  }
  // The history CV is that of one run's median; the compared ratio has one median (or a median of
  // per-run medians) on each side, so its run-to-run CV is cv x sqrt(1/runs_b + 1/runs_c):
  // sqrt(2) x cv for one run a side. Without that factor, 3 x cv covers only 2.1 standard
  // deviations of an A/A ratio, and ~3% of A/A pairs of a normal series would exceed it.
  double runs_b = static_cast<double>(std::max<std::size_t>(1, e.base.runs));
  double runs_c = static_cast<double>(std::max<std::size_t>(1, e.candidate.runs));
  double history_cv = e.history ? e.history->cv * std::sqrt(1.0 / runs_b + 1.0 / runs_c) : 0.0;
  double noise = std::max(e.sample_cv, history_cv);
  e.noise_cv = noise;
  e.delta = std::max(threshold, 3.0 * noise);
  if (threshold >= 3.0 * noise) {
    e.noise_source = "threshold";
  } else if (e.history && history_cv >= e.sample_cv) {
    e.noise_source = "history (" + std::to_string(e.history->runs) + " runs)";
  } else {
    e.noise_source =
        e.base.per_run || e.candidate.per_run ? "between runs (per-run medians)" : "within run";
  }
}

std::string margin_text(const Entry& e) {
  return pct(e.delta) + " (" + e.noise_source + ")";
}

void decide(Entry& e, const Options& options) {
  bool significant = e.q_value < options.alpha;
  bool beyond = e.ratio > 1.0 + e.delta || e.ratio < 1.0 - e.delta;
  if (significant && beyond) {
    if (e.mw_p_value && *e.mw_p_value >= options.alpha) {
      e.verdict = Verdict::inconclusive;
      e.reason = "Welch's t (q=" + format_significant(e.q_value, 2) +
                 ") and Mann-Whitney (p=" + format_significant(*e.mw_p_value, 2) + ") disagree";
      return;
    }
    if (e.direction == results::Direction::unknown) {
      e.verdict = Verdict::changed;
      e.reason = "changed by " + pct(e.ratio - 1.0) + "; direction unknown, so no good/bad call";
      return;
    }
    bool worse = (e.direction == results::Direction::higher) == (e.ratio < 1.0);
    e.verdict = worse ? Verdict::regression : Verdict::improvement;
    e.reason = (worse ? "worse by " : "better by ") + pct(std::fabs(e.ratio - 1.0)) +
               " beyond the margin " + margin_text(e) + " (q=" + format_significant(e.q_value, 2) +
               ")";
    return;
  }
  if (e.ci_low >= 1.0 - e.delta && e.ci_high <= 1.0 + e.delta) {
    e.verdict = Verdict::unchanged;
    e.reason = "interval within +-" + margin_text(e);
    return;
  }
  e.verdict = Verdict::inconclusive;
  if (std::isfinite(e.mde) && e.mde > e.delta) {
    e.reason = "too noisy for n=" + std::to_string(e.base.n) + "/" + std::to_string(e.candidate.n) +
               ": smallest detectable change " + pct(e.mde) + "; add repetitions";
  } else {
    e.reason = "interval crosses the margin +-" + margin_text(e);
  }
}

std::string joined_values(const std::vector<results::RunDetail>& runs,
                          const std::function<std::string(const results::RunDetail&)>& get) {
  std::set<std::string> seen;
  std::vector<std::string> ordered;
  for (const results::RunDetail& run : runs) {
    std::string v = get(run);
    if (seen.insert(v).second) ordered.push_back(v);
  }
  return join(ordered, ",");
}

std::string gpu_models(const results::RunDetail& run) {
  std::map<std::string, int> counts;
  for (const results::GpuInfo& gpu : run.info.gpus) counts[gpu.name]++;
  if (counts.empty()) return "none";
  std::vector<std::string> parts;
  for (const auto& [name, n] : counts) parts.push_back(std::to_string(n) + "x " + name);
  return join(parts, "+");
}

}  // namespace

std::vector<EnvDifference> environment_differences(const std::vector<results::RunDetail>& base,
                                                   const std::vector<results::RunDetail>& cand) {
  using Getter = std::function<std::string(const results::RunDetail&)>;
  std::vector<std::pair<std::string, Getter>> fields = {
      {"GPU", gpu_models},
      {"driver", [](const auto& r) { return r.info.software.driver_version; }},
      {"CUDA runtime", [](const auto& r) { return r.info.software.cuda_runtime_version; }},
      {"CUDA driver API", [](const auto& r) { return r.info.software.cuda_driver_version; }},
      {"cuBLAS", [](const auto& r) { return r.info.software.cublas_version; }},
      {"NCCL", [](const auto& r) { return r.info.software.nccl_version; }},
      {"kernel", [](const auto& r) { return r.info.host.kernel; }},
      {"host", [](const auto& r) { return r.info.host.hostname; }},
      {"CPU", [](const auto& r) { return r.info.host.cpu_model; }},
      {"governor", [](const auto& r) { return r.info.host.governor; }},
      {"gpubench version", [](const auto& r) { return r.info.software.gpubench_version; }},
      {"git sha", [](const auto& r) { return r.info.software.git_sha; }},
      {"compiler", [](const auto& r) { return r.info.software.compiler; }},
      {"profile", [](const auto& r) { return r.info.config.profile; }},
      {"clocks locked", [](const auto& r) { return r.info.config.clocks_locked; }},
  };
  std::vector<EnvDifference> out;
  for (const auto& [field, get] : fields) {
    std::string b = joined_values(base, get);
    std::string c = joined_values(cand, get);
    if (b != c) out.push_back({field, b, c});
  }
  std::set<std::string> env_names;
  for (const auto* side : {&base, &cand}) {
    for (const results::RunDetail& run : *side) {
      for (const auto& [k, v] : run.info.config.env) env_names.insert(k);
    }
  }
  for (const std::string& name : env_names) {
    Getter get = [&name](const results::RunDetail& r) {
      auto it = r.info.config.env.find(name);
      return it == r.info.config.env.end() ? std::string("(unset)") : it->second;
    };
    std::string b = joined_values(base, get);
    std::string c = joined_values(cand, get);
    if (b != c) out.push_back({"env " + name, b, c});
  }
  return out;
}

Comparison compare_sides(const Side& base, const Side& candidate, const Options& options) {
  Comparison cmp;
  cmp.base_selection = base.selection;
  cmp.candidate_selection = candidate.selection;
  for (const auto& r : base.runs) cmp.base_runs.push_back(r.run.id);
  for (const auto& r : candidate.runs) cmp.candidate_runs.push_back(r.run.id);
  cmp.options = options;
  cmp.options.thresholds = nullptr;  // not owned past this call
  cmp.env_differences = environment_differences(base.runs, candidate.runs);
  for (const auto& [side, label] : {std::pair{&base, "base "}, std::pair{&candidate, "candidate "}}) {
    for (const results::RunDetail& r : side->runs) {
      for (const std::string& p : run_problems(r)) cmp.problems.push_back(label + p);
    }
  }

  std::map<Key, Pool> b = pool_side(base, options);
  std::map<Key, Pool> c = pool_side(candidate, options);
  for (const auto& [key, pool] : b) {
    if (!c.count(key)) cmp.removed.push_back({key, "only in base"});
  }
  for (const auto& [key, pool] : c) {
    if (!b.count(key)) cmp.added.push_back({key, "only in candidate"});
  }

  for (const auto& [key, bpool] : b) {
    auto it = c.find(key);
    if (it == c.end()) continue;
    const Pool& cpool = it->second;
    if (bpool.first->unit != cpool.first->unit) {
      throw bad_input("cannot compare " + key.benchmark + " " + key.metric,
                      "the unit is '" + bpool.first->unit + "' in base and '" + cpool.first->unit +
                          "' in candidate",
                      "compare runs of the same suite version, or pick one metric with --metric");
    }
    const ThresholdRule* rule =
        options.thresholds ? options.thresholds->match(key.benchmark) : nullptr;
    if (rule && rule->ignore) {
      cmp.skipped.push_back({key, "ignored (thresholds line " + std::to_string(rule->line) + ")"});
      continue;
    }
    const results::ResultRow* skip_b = find_status(bpool, results::BenchmarkStatus::skipped);
    const results::ResultRow* skip_c = find_status(cpool, results::BenchmarkStatus::skipped);
    if (skip_b || skip_c) {
      const results::ResultRow* s = skip_b ? skip_b : skip_c;
      cmp.skipped.push_back(
          {key, std::string(skip_b ? "base" : "candidate") + " skipped: " + s->message});
      continue;
    }
    Entry e;
    e.key = key;
    e.case_name = bpool.first->case_name;
    e.params = bpool.first->params;
    e.unit = bpool.first->unit;
    e.direction = bpool.first->direction;
    e.primary = bpool.first->role != results::MetricRole::secondary;
    e.base = side_stats(bpool);
    e.candidate = side_stats(cpool);
    e.mde = std::nan("");
    double threshold = rule ? rule->threshold : options.threshold;
    // The margin uses the robust CV (MAD based): one outlier repetition must not widen the
    // margin so far that a real change is called unchanged; the interval still sees it.
    double rcv_b = robust_cv(e.base.values);
    double rcv_c = robust_cv(e.candidate.values);
    double cv = std::max(std::isnan(rcv_b) ? 0.0 : rcv_b, std::isnan(rcv_c) ? 0.0 : rcv_c);
    e.sample_cv = cv;
    set_margin(e, threshold, options);
    const results::ResultRow* err_b = find_status(bpool, results::BenchmarkStatus::error);
    const results::ResultRow* err_c = find_status(cpool, results::BenchmarkStatus::error);
    if (e.base.n > 0 && e.candidate.n > 0 && e.base.median != 0) {
      e.ratio = e.candidate.median / e.base.median;
      e.ci_low = e.ci_high = e.ratio;
    }
    if (err_b || err_c) {
      e.verdict = Verdict::invalid;
      e.reason = std::string(err_b ? "base" : "candidate") +
                 " failed: " + (err_b ? err_b : err_c)->message;
    } else if (e.base.throttled + e.candidate.throttled > 0) {
      e.verdict = Verdict::invalid;
      e.reason = std::to_string(e.base.throttled + e.candidate.throttled) +
                 " sample(s) ran throttled or below 75% of the default clock";
    } else if (e.base.n < 3 || e.candidate.n < 3) {
      e.verdict = Verdict::inconclusive;
      e.reason = "too few samples (base " + std::to_string(e.base.n) + ", candidate " +
                 std::to_string(e.candidate.n) +
                 "; need at least 3 a side, 5 or more for small changes)";
    } else {
      RatioEstimate r = ratio_of_medians(e.base.values, e.candidate.values, options.confidence);
      if (!r.valid) {
        e.verdict = Verdict::inconclusive;
        e.reason = "values are not all positive; no ratio interval";
      } else {
        e.ratio = r.ratio;
        e.ci_low = r.ci_low;
        e.ci_high = r.ci_high;
        e.p_value = r.p_value;
        e.mde = minimum_detectable_effect(e.base.n, e.candidate.n, cv, options.alpha);
        if (e.base.n >= 6 && e.candidate.n >= 6) {
          MannWhitneyResult mw = mann_whitney_u(e.base.values, e.candidate.values);
          e.mw_p_value = mw.valid ? mw.p_value : 1.0;
        }
        e.reason = "pending";  // decided after Benjamini-Hochberg below
      }
    }
    cmp.entries.push_back(std::move(e));
  }
  if (cmp.entries.empty() && cmp.skipped.empty()) {
    throw bad_input(
        "nothing to compare between '" + base.selection + "' and '" + candidate.selection + "'",
        "no benchmark" + std::string(options.metric ? " with metric " + *options.metric : "") +
            " is in both (" + std::to_string(b.size()) + " in base, " + std::to_string(c.size()) +
            " in candidate)",
        "compare runs of the same suites; `gpubench show RUN` lists a run's benchmarks");
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
  for (std::size_t k = 0; k < tested.size(); ++k) {
    Entry& e = cmp.entries[tested[k]];
    e.q_value = q[k];
    decide(e, options);
  }

  // Per-suite summaries.
  std::map<std::string, SuiteSummary> suites;
  std::map<std::string, std::vector<const Entry*>> speedups;
  for (const Entry& e : cmp.entries) {
    if (!e.primary) continue;  // one verdict per benchmark: secondary metrics are not counted
    SuiteSummary& s = suites[e.key.suite];
    s.suite = e.key.suite;
    ++s.compared;
    switch (e.verdict) {
      case Verdict::regression:
        ++s.regressions;
        break;
      case Verdict::improvement:
        ++s.improvements;
        break;
      case Verdict::unchanged:
        ++s.unchanged;
        break;
      case Verdict::invalid:
        ++s.invalid;
        break;
      case Verdict::inconclusive:
      case Verdict::changed:
        ++s.inconclusive;
        break;
    }
    if (e.verdict != Verdict::invalid && e.speedup()) speedups[e.key.suite].push_back(&e);
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
    s.geomean = g.value;
    s.geomean_low = g.ci_low;
    s.geomean_high = g.ci_high;
    s.geomean_count = g.count;
    cmp.suites.push_back(s);
  }
  return cmp;
}

}  // namespace gpubench::compare
