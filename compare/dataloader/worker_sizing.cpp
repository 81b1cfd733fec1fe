#include "compare/dataloader/worker_sizing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "compare/names.hpp"
#include "compare/stats/stats.hpp"
#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {

namespace {

constexpr const char* k_suite = "dataloader";
constexpr const char* k_images_metric = "images_per_s";
constexpr const char* k_samples_metric = "samples_per_s";
// Most workers GPUBENCH_DATALOADER_WORKERS accepts (suites/dataloader/README.md).
constexpr int k_max_workers = 1024;

// The row's usable values: ok samples not under a thermal or hardware slowdown (an h2d case's
// GPU), positive.
std::vector<double> usable_values(const results::ResultRow& r) {
  std::vector<double> out;
  if (r.status != results::BenchmarkStatus::ok) return out;
  for (std::size_t i = 0; i < r.values.size(); ++i) {
    if (i < r.throttled.size() && r.throttled[i] == 1) continue;
    if (std::isfinite(r.values[i]) && r.values[i] > 0) out.push_back(r.values[i]);
  }
  return out;
}

// The row's idle fractions: ok samples in [0, 1] (0 is a busy GPU, a value), not throttled.
std::vector<double> idle_values(const results::ResultRow& r) {
  std::vector<double> out;
  if (r.status != results::BenchmarkStatus::ok) return out;
  for (std::size_t i = 0; i < r.values.size(); ++i) {
    if (i < r.throttled.size() && r.throttled[i] == 1) continue;
    if (std::isfinite(r.values[i]) && r.values[i] >= 0 && r.values[i] <= 1) {
      out.push_back(r.values[i]);
    }
  }
  return out;
}

std::string rate_text(double per_s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f", per_s);
  return text;
}

std::string percent_text(double fraction) {
  return std::to_string(static_cast<int>(std::lround(100 * fraction))) + "%";
}

// 1.0x, 2.5x, 0.12x: one decimal from 1 up, two below (a fraction of the cores).
std::string multiple_text(double m) {
  char buf[32];
  std::snprintf(buf, sizeof buf, m >= 1 ? "%.1f" : "%.2f", m);
  return buf;
}

std::string workers_text(int w) {
  return std::to_string(w) + (w == 1 ? " worker" : " workers");
}

// The worker counts to ask for next: those measured, then doublings of the largest up to 4x the
// usable cores (2x is the advice; beyond it shows where it stops paying), at most k_max_workers.
std::string more_workers(const PipelineSizing& p, std::optional<int> cores) {
  std::vector<int> counts;
  for (const WorkerPoint& w : p.points) counts.push_back(w.workers);
  const int largest = counts.empty() ? 1 : counts.back();
  const int target = std::min(k_max_workers, cores ? 4 * *cores : 4 * largest);
  for (int w = largest * 2; w <= target; w *= 2) counts.push_back(w);
  if (counts.back() == largest && largest < k_max_workers) counts.push_back(largest * 2);
  std::string out;
  for (int w : counts) out += (out.empty() ? "" : ",") + std::to_string(w);
  return out;
}

enum class Advice { fewer, about, more, unchecked, none };

Advice advice_of(const PipelineSizing& p, const WorkerSizing& s) {
  if (!p.enough_points || !s.usable_cores) return Advice::none;
  const double m = static_cast<double>(p.answer_workers) / *s.usable_cores;
  // With the best at the largest count, more workers can only raise the count that reaches 95%
  // of a higher best: the multiple is a lower bound, which decides only "more than 2x".
  if (p.best_at_largest) return m > k_advice_high ? Advice::more : Advice::unchecked;
  if (m < k_advice_low) return Advice::fewer;
  if (m <= k_advice_high) return Advice::about;
  return Advice::more;
}

}  // namespace

std::vector<PipelineSizing> size_pipelines(const std::vector<results::ResultRow>& rows) {
  struct Pooled {
    std::map<std::string, std::pair<std::string, std::map<int, std::vector<double>>>> by_metric;
    std::map<int, std::vector<double>> idle;  // gpu_idle_fraction by worker count
    bool emulated = false;                    // a step labelled consumer=emulated
  };
  std::map<std::string, Pooled> pipelines;
  for (const results::ResultRow& r : rows) {
    if (r.suite != k_suite) continue;
    const bool idle = r.metric == k_gpu_idle_metric;
    if (!idle && r.metric != k_samples_metric && r.metric != k_images_metric) continue;
    std::optional<int> workers;
    std::string name = r.suite + "/" + r.case_name;
    for (const results::Param& p : r.params) {
      if (p.key == "workers") {
        if (p.number && *p.number >= 1 && *p.number <= k_max_workers) {
          workers = static_cast<int>(*p.number);
        }
        continue;
      }
      if (is_run_control_param(p.key)) continue;
      name += "/" + p.key + (p.text.empty() ? "" : ":" + p.text);
    }
    if (!workers) continue;
    if (idle) {
      Pooled& pooled = pipelines[name];
      const std::vector<double> v = idle_values(r);
      auto& values = pooled.idle[*workers];
      values.insert(values.end(), v.begin(), v.end());
      if (r.label.find("consumer=emulated") != std::string::npos) pooled.emulated = true;
      continue;
    }
    const std::vector<double> v = usable_values(r);
    auto& [unit, points] = pipelines[name].by_metric[r.metric];
    unit = r.unit;
    auto& values = points[*workers];  // an entry even without values: the count was asked for
    values.insert(values.end(), v.begin(), v.end());
  }
  std::vector<PipelineSizing> out;
  for (auto& [name, pooled] : pipelines) {
    // images_per_s where the pipeline reports it (image cases), else samples_per_s.
    auto it = pooled.by_metric.find(k_images_metric);
    if (it == pooled.by_metric.end()) it = pooled.by_metric.find(k_samples_metric);
    if (it == pooled.by_metric.end()) continue;  // an idle fraction without a throughput
    PipelineSizing p;
    p.pipeline = name;
    p.metric = it->first;
    p.unit = it->second.first;
    for (auto& [w, values] : it->second.second) {
      if (values.empty()) continue;  // skipped or failed at this count: no figure
      WorkerPoint point;
      point.workers = w;
      point.values = std::move(values);
      point.median = median(point.values);
      if (auto idle = pooled.idle.find(w); idle != pooled.idle.end() && !idle->second.empty()) {
        point.gpu_idle_fraction = median(idle->second);
      }
      p.points.push_back(std::move(point));
    }
    if (p.points.empty()) continue;  // nothing measured (an h2d case without a GPU)
    p.enough_points = p.points.size() >= 2;
    const auto best = std::max_element(
        p.points.begin(), p.points.end(),
        [](const WorkerPoint& a, const WorkerPoint& b) { return a.median < b.median; });
    p.best_workers = best->workers;
    p.best_at_largest = p.enough_points && best->workers == p.points.back().workers;
    p.intervals =
        p.enough_points && std::all_of(p.points.begin(), p.points.end(), [](const WorkerPoint& w) {
          return w.values.size() >= k_sizing_min_repetitions;
        });
    LogRatioOptions options;
    options.confidence = k_sizing_confidence;
    for (WorkerPoint& w : p.points) {
      w.ratio_to_best = w.median / best->median;
      if (!p.intervals) continue;
      const LogRatioEstimate e = log_ratio_estimate(best->values, w.values, options);
      if (e.valid) {
        w.ci_low = e.ci_low;
        w.ci_high = e.ci_high;
      }
    }
    // The answer: the smallest count whose median reaches 95% of the best (the best itself
    // always does).
    for (const WorkerPoint& w : p.points) {
      if (w.ratio_to_best >= k_sizing_fraction) {
        p.answer_workers = w.workers;
        break;
      }
    }
    p.answer_low = p.answer_high = p.answer_workers;
    std::vector<BusyPoint> busy;
    for (const WorkerPoint& w : p.points) {
      if (w.gpu_idle_fraction) busy.push_back({w.workers, w.median, *w.gpu_idle_fraction});
    }
    if (!busy.empty()) {
      p.knee = find_gpu_busy_knee(std::move(busy));
      p.knee->emulated = pooled.emulated;
    }
    if (p.intervals) {
      // Low end: the smallest count whose interval reaches 95% (it may be there); high end: the
      // smallest whose interval lies at or above 95% (it is there), the best when none does.
      for (const WorkerPoint& w : p.points) {
        if (w.workers == p.best_workers || (w.ci_high && *w.ci_high >= k_sizing_fraction)) {
          p.answer_low = std::min(p.answer_low, w.workers);
          break;
        }
      }
      for (const WorkerPoint& w : p.points) {
        if (w.workers == p.best_workers || (w.ci_low && *w.ci_low >= k_sizing_fraction)) {
          p.answer_high = std::max(p.answer_high, w.workers);
          break;
        }
      }
    }
    out.push_back(std::move(p));
  }
  return out;
}

WorkerSizing worker_sizing(results::Store& store, const results::RunDetail& run,
                           const std::vector<results::ResultRow>& rows) {
  WorkerSizing s;
  const int64_t run_id = run.run.id;
  s.run_id = run_id;
  s.host = run.info.host.hostname;
  s.started_at = run.run.started_at;
  s.pipelines = size_pipelines(rows);
  // The newest dataloader execution's own count: it sized its worker sweep with it.
  results::Statement st = store.database().prepare(
      "SELECT CASE WHEN json_valid(context) THEN json_extract(context, '$.\"" +
      std::string(k_usable_cpus_context_key) +
      "\"') END FROM suite_runs WHERE run_id = ?1 AND suite = ?2 ORDER BY id DESC");
  st.bind(1, run_id).bind(2, k_suite);
  while (st.step() && !s.usable_cores) {
    if (st.is_null(0)) continue;
    const std::string text = st.column_text(0);
    const std::optional<long long> n = parse_int(text);
    if (n && *n >= 1 && *n <= 1 << 20) {
      s.usable_cores = static_cast<int>(*n);
      s.cores_recorded = true;
    }
  }
  if (!s.usable_cores && run.info.host.threads && *run.info.host.threads >= 1) {
    s.usable_cores = run.info.host.threads;  // all logical CPUs: an upper bound of the usable
  }
  return s;
}

std::optional<int64_t> newest_dataloader_run(results::Store& store, const std::string& host) {
  // One query, newest first: finished runs with a dataloader suite run that stored samples. The
  // host is compared here, by the one rule peers/ uses too (compare/names.hpp short_host).
  results::Statement st = store.database().prepare(
      "SELECT r.id, h.hostname FROM runs r JOIN hosts h ON h.id = r.host_id "
      "WHERE r.status <> 'running' AND EXISTS (SELECT 1 FROM suite_runs sr WHERE sr.run_id = r.id "
      "AND sr.suite = ?1 AND EXISTS (SELECT 1 FROM samples s WHERE s.suite_run_id = sr.id)) "
      "ORDER BY r.started_at DESC, r.id DESC");
  st.bind(1, k_suite);
  const std::string wanted = short_host(host);
  while (st.step()) {
    if (short_host(st.column_text(1)) == wanted) return st.column_int64(0);
  }
  return std::nullopt;
}

GpuBusyKnee find_gpu_busy_knee(std::vector<BusyPoint> points) {
  if (points.empty()) {
    throw bad_input("no measurements to find where the GPU starts waiting",
                    "the knee needs the step cases of one pipeline at one or more worker counts",
                    "run the dataloader suite's train cases with a worker sweep");
  }
  std::sort(points.begin(), points.end(),
            [](const BusyPoint& a, const BusyPoint& b) { return a.workers < b.workers; });
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].workers < 1 || (i > 0 && points[i].workers == points[i - 1].workers)) {
      throw bad_input(
          "worker count " + std::to_string(points[i].workers) + " is invalid or measured twice",
          "the knee takes one point per worker count, each at least 1");
    }
  }
  // From the most workers down, while the GPU stays busy: a busy point below a waiting one (noise)
  // does not count as fed, since adding workers must not make the GPU wait again.
  std::size_t first_fed = points.size();
  while (first_fed > 0 && points[first_fed - 1].gpu_idle_fraction <= k_gpu_waiting_idle_fraction)
    --first_fed;
  GpuBusyKnee knee;
  if (first_fed < points.size()) {
    knee.fed = true;
    knee.fed_workers = points[first_fed].workers;
    knee.fed_samples_per_s = points[first_fed].samples_per_s;
  }
  if (first_fed > 0) {
    const BusyPoint& w = points[first_fed - 1];
    knee.waits = true;
    knee.waiting_workers = w.workers;
    knee.waiting_samples_per_s = w.samples_per_s;
    knee.waiting_idle_fraction = w.gpu_idle_fraction;
  }
  if (!knee.fed) {
    for (const BusyPoint& b : points) {
      if (b.gpu_idle_fraction <= k_gpu_waiting_idle_fraction) {
        knee.busy_at_fewer_workers = b.workers;
        knee.busy_at_fewer_samples_per_s = b.samples_per_s;
        knee.busy_at_fewer_idle_fraction = b.gpu_idle_fraction;
        break;
      }
    }
  }
  return knee;
}

std::string describe_knee(const GpuBusyKnee& knee, const std::string& unit) {
  const std::string gpu = knee.emulated ? "the emulated step (no GPU)" : "the GPU";
  const std::string waiting = knee.waits
                                  ? workers_text(knee.waiting_workers) + ": " +
                                        rate_text(knee.waiting_samples_per_s) + " " + unit + ", " +
                                        percent_text(knee.waiting_idle_fraction) + " idle"
                                  : "";
  if (!knee.fed && knee.busy_at_fewer_workers > 0) {
    return gpu + " is busy at " + workers_text(knee.busy_at_fewer_workers) + " (" +
           rate_text(knee.busy_at_fewer_samples_per_s) + " " + unit + ", " +
           percent_text(knee.busy_at_fewer_idle_fraction) + " idle) but waits again at more (" +
           waiting + ")";
  }
  if (!knee.fed) {
    return gpu + " waits at every worker count measured (up to " + waiting +
           "): the input pipeline is the bottleneck";
  }
  const std::string fed = "busy from " + workers_text(knee.fed_workers) + " (" +
                          rate_text(knee.fed_samples_per_s) + " " + unit + ")";
  if (!knee.waits) return gpu + " is " + fed + ", the fewest measured: it never waits";
  return gpu + " waits below " + workers_text(knee.fed_workers) + " (" + waiting + "); " + fed;
}

std::string sizing_verdict(const PipelineSizing& p, const WorkerSizing& s) {
  if (!p.enough_points) {
    // No hint to ask for more: the profiles run most formats and orders at one worker count on
    // purpose (suites/dataloader/README.md), whatever GPUBENCH_DATALOADER_WORKERS says.
    return "not enough points (1 worker count measured: " + std::to_string(p.points[0].workers) +
           ")";
  }
  std::string v = "95% of best at " + workers_text(p.answer_workers);
  if (p.intervals && p.answer_low != p.answer_high) {
    v += " (" + std::to_string(p.answer_low) + " to " + std::to_string(p.answer_high) +
         " within 99% intervals)";
  }
  if (s.usable_cores) {
    const double m = static_cast<double>(p.answer_workers) / *s.usable_cores;
    v += " = " + multiple_text(m) + "x the " + std::to_string(*s.usable_cores) +
         (s.cores_recorded ? " usable cores" : " logical CPUs");
  } else {
    v += " (usable cores unknown: no multiple)";
  }
  switch (advice_of(p, s)) {
    case Advice::fewer:
      v += ": fewer than the 2x advice";
      break;
    case Advice::about:
      v += ": about the 2x advice";
      break;
    case Advice::more:
      v += ": more than the 2x advice";
      break;
    case Advice::unchecked:
      v += ": the 2x advice not checked";
      break;
    case Advice::none:
      break;
  }
  if (p.best_at_largest) {
    v += "; best at the largest count measured (" + std::to_string(p.best_workers) +
         "): may rise with more workers: ask with GPUBENCH_DATALOADER_WORKERS=" +
         more_workers(p, s.usable_cores);
  }
  if (!p.intervals) {
    std::size_t fewest = p.points.front().values.size();
    for (const WorkerPoint& w : p.points) fewest = std::min(fewest, w.values.size());
    v += "; medians only (" + std::to_string(fewest) + (fewest == 1 ? " value" : " values") +
         " at a count, fewer than the " + std::to_string(k_sizing_min_repetitions) +
         " an interval needs)";
  }
  return v;
}

std::string advice_summary(const WorkerSizing& s) {
  std::map<Advice, std::vector<double>> by;  // advice -> multiples
  std::size_t thin = 0;
  for (const PipelineSizing& p : s.pipelines) {
    if (!p.enough_points) {
      ++thin;
      continue;
    }
    const Advice a = advice_of(p, s);
    by[a].push_back(s.usable_cores ? static_cast<double>(p.answer_workers) / *s.usable_cores : 0);
  }
  auto part = [&](Advice a, const std::string& what) -> std::string {
    auto it = by.find(a);
    if (it == by.end()) return {};
    const auto [lo, hi] = std::minmax_element(it->second.begin(), it->second.end());
    std::string t = std::to_string(it->second.size()) + " " + what;
    if (a != Advice::none) {
      t += " (" + multiple_text(*lo) + "x" + (*lo == *hi ? "" : " to " + multiple_text(*hi) + "x") +
           ")";
    }
    return t;
  };
  std::vector<std::string> parts;
  for (const auto& [a, what] :
       {std::pair{Advice::fewer, "need fewer"}, std::pair{Advice::about, "need about 2x"},
        std::pair{Advice::more, "need more"},
        std::pair{Advice::unchecked, "not checked (best at the largest count measured)"},
        std::pair{Advice::none, "without a multiple (usable cores unknown)"}}) {
    if (std::string t = part(a, what); !t.empty()) parts.push_back(t);
  }
  if (thin > 0) {
    parts.push_back(std::to_string(thin) +
                    " with not enough points (measured at one worker count)");
  }
  std::size_t total = s.pipelines.size();
  return "against the 'about 2x cores' advice, of " + std::to_string(total) +
         (total == 1 ? " pipeline: " : " pipelines: ") + join(parts, "; ");
}

std::string worker_sizing_heading(const WorkerSizing& s) {
  const std::string cores =
      !s.usable_cores ? std::string("usable cores unknown")
      : s.cores_recorded
          ? std::to_string(*s.usable_cores) + " usable cores"
          : std::to_string(*s.usable_cores) + " logical CPUs (the run recorded no usable count)";
  return "Loader workers (run " + std::to_string(s.run_id) + ", " + cores +
         "): the smallest worker count at 95% of each pipeline's best throughput (median of its "
         "repetitions)";
}

std::string points_text(const PipelineSizing& p) {
  std::string pts;
  for (const WorkerPoint& w : p.points) {
    pts += (pts.empty() ? "" : ", ") + std::to_string(w.workers) + ": " +
           format_significant(w.median, 3) + " (" + format_significant(w.ratio_to_best * 100, 3) +
           "%)";
  }
  return p.metric + " by workers: " + pts;
}

std::string knee_text(const PipelineSizing& p) {
  if (!p.knee) return {};
  std::string idle;
  for (const WorkerPoint& w : p.points) {
    if (!w.gpu_idle_fraction) continue;
    idle += (idle.empty() ? "" : ", ") + std::to_string(w.workers) + ": " +
            percent_text(*w.gpu_idle_fraction);
  }
  return (p.knee->emulated ? "step idle by workers: " : "GPU idle by workers: ") + idle + ": " +
         describe_knee(*p.knee, p.unit);
}

std::vector<std::string> worker_sizing_lines(const WorkerSizing& s) {
  if (s.pipelines.empty()) return {};
  std::vector<std::string> lines = {worker_sizing_heading(s)};
  for (const PipelineSizing& p : s.pipelines) {
    if (!p.enough_points) continue;  // counted in the summary; the JSON lists them
    lines.push_back("  " + p.pipeline);
    lines.push_back("    " + points_text(p));
    lines.push_back("    " + sizing_verdict(p, s));
    if (p.knee) lines.push_back("    " + knee_text(p));
  }
  lines.push_back("  " + advice_summary(s));
  return lines;
}

nlohmann::json worker_sizing_json(const WorkerSizing& s) {
  using nlohmann::json;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(); };
  json pipelines = json::array();
  for (const PipelineSizing& p : s.pipelines) {
    json points = json::array();
    for (const WorkerPoint& w : p.points) {
      points.push_back({{"workers", w.workers},
                        {"n", w.values.size()},
                        {"median", w.median},
                        {"ratio_to_best", w.ratio_to_best},
                        {"ci_low", opt(w.ci_low)},
                        {"ci_high", opt(w.ci_high)},
                        {"gpu_idle_fraction", opt(w.gpu_idle_fraction)}});
    }
    const bool multiple = s.usable_cores && p.enough_points;
    json busy;  // null without gpu_idle_fraction
    if (p.knee) {
      const GpuBusyKnee& k = *p.knee;
      busy = {{"fed", k.fed},
              {"fed_workers", k.fed ? json(k.fed_workers) : json()},
              {"fed_per_s", k.fed ? json(k.fed_samples_per_s) : json()},
              {"waits", k.waits},
              {"waiting_workers", k.waits ? json(k.waiting_workers) : json()},
              {"waiting_per_s", k.waits ? json(k.waiting_samples_per_s) : json()},
              {"waiting_idle_fraction", k.waits ? json(k.waiting_idle_fraction) : json()},
              {"busy_at_fewer_workers",
               k.busy_at_fewer_workers > 0 ? json(k.busy_at_fewer_workers) : json()},
              {"idle_threshold", k_gpu_waiting_idle_fraction},
              {"emulated", k.emulated},
              {"text", knee_text(p)}};
    }
    pipelines.push_back(
        {{"pipeline", p.pipeline},
         {"metric", p.metric},
         {"unit", p.unit},
         {"points", points},
         {"enough_points", p.enough_points},
         {"best_workers", p.best_workers},
         {"answer_workers", p.enough_points ? json(p.answer_workers) : json()},
         {"answer_low", p.enough_points ? json(p.answer_low) : json()},
         {"answer_high", p.enough_points ? json(p.answer_high) : json()},
         {"multiple",
          multiple ? json(static_cast<double>(p.answer_workers) / *s.usable_cores) : json()},
         {"intervals", p.intervals},
         {"best_at_largest", p.best_at_largest},
         {"verdict", sizing_verdict(p, s)},
         {"gpu_busy", busy}});
  }
  return {{"schema", "gpubench.loader_workers/1"},
          {"run", s.run_id},
          {"host", s.host},
          {"usable_cores", s.usable_cores ? json(*s.usable_cores) : json()},
          {"cores_recorded", s.cores_recorded},
          {"fraction", k_sizing_fraction},
          {"confidence", k_sizing_confidence},
          {"pipelines", pipelines},
          {"summary", s.pipelines.empty() ? json() : json(advice_summary(s))}};
}

}  // namespace gpubench::compare
