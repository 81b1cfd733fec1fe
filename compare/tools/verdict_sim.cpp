// verdict_sim: coverage and power of candidate estimators for `gpubench compare`, on seeded
// simulated data (compare/tools/simulate.hpp). Prints the Markdown tables of compare/README.md
// "Method" and "Executions". Usage: verdict_sim [--sims N] [--seed S] [--executions-only]
// [--reps R] (repetitions inside each simulated execution, default 1 as the profiles run)
// [--executions E] (executions a side, default 3 as the quick profile)
// (default 2000 simulations per cell, seed 1)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "compare/stats/executions.hpp"
#include "compare/stats/stats.hpp"
#include "compare/tools/simulate.hpp"

namespace gc = gpubench::compare;
namespace sim = gpubench::compare::sim;

namespace {

struct Interval {
  double low = 0;
  double high = 0;
  bool valid = false;
};

struct Estimator {
  const char* name;
  Interval (*estimate)(const std::vector<double>&, const std::vector<double>&, double extra_var);
};

Interval from(const gc::LogRatioEstimate& r) {
  return {r.ci_low, r.ci_high, r.valid};
}

gc::LogRatioOptions opts(double trim, std::size_t min_n, double extra) {
  gc::LogRatioOptions o;
  o.trim = trim;
  o.min_n_to_trim = min_n;
  o.extra_variance = extra;
  o.extra_df = 9;  // 10 history runs
  return o;
}

const Estimator k_estimators[] = {
    {"median + Welch se (v1)",
     [](const std::vector<double>& b, const std::vector<double>& c, double) {
       gc::RatioEstimate r = gc::ratio_of_medians(b, c, 0.99);
       return Interval{r.ci_low, r.ci_high, r.valid};
     }},
    {"Welch on logs",
     [](const std::vector<double>& b, const std::vector<double>& c, double extra) {
       return from(gc::log_ratio_estimate(b, c, opts(0.0, 0, extra)));
     }},
    {"Yuen 20% always",
     [](const std::vector<double>& b, const std::vector<double>& c, double extra) {
       return from(gc::log_ratio_estimate(b, c, opts(0.2, 0, extra)));
     }},
    {"Yuen 20% from n>=8 (chosen)",
     [](const std::vector<double>& b, const std::vector<double>& c, double extra) {
       return from(gc::log_ratio_estimate(b, c, opts(0.2, 8, extra)));
     }},
};
constexpr std::size_t k_count = sizeof(k_estimators) / sizeof(k_estimators[0]);

std::string pct(double part, double whole) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", 100.0 * part / whole);
  return buf;
}

void shape_table(sim::Shape shape, int sims, std::uint64_t seed) {
  std::printf("\n#### %s: 99%% coverage on null data / power at +10%% (%% of %d simulations)\n\n",
              sim::to_string(shape), sims);
  std::printf("| n | CV |");
  for (const Estimator& e : k_estimators) std::printf(" %s |", e.name);
  std::printf("\n|---:|---:|");
  for (std::size_t i = 0; i < k_count; ++i) std::printf("---|");
  std::printf("\n");
  for (std::size_t n : {3, 5, 10, 20, 30}) {
    for (double cv : {0.005, 0.02, 0.05, 0.2}) {
      sim::Generator gen(seed + n * 1000 + static_cast<std::uint64_t>(cv * 1e4));
      double covered[k_count] = {};
      double power[k_count] = {};
      for (int s = 0; s < sims; ++s) {
        std::vector<double> b = gen.run(1.0, cv, n, shape);
        std::vector<double> a = gen.run(1.0, cv, n, shape);
        std::vector<double> c = gen.run(1.1, cv, n, shape);
        for (std::size_t i = 0; i < k_count; ++i) {
          Interval null = k_estimators[i].estimate(b, a, 0);
          covered[i] += null.valid && null.low <= 1.0 && null.high >= 1.0;
          Interval eff = k_estimators[i].estimate(b, c, 0);
          power[i] += eff.valid && eff.low > 1.0;
        }
      }
      std::printf("| %zu | %.1f%% |", n, cv * 100);
      for (std::size_t i = 0; i < k_count; ++i) {
        std::printf(" %s / %s |", pct(covered[i], sims).c_str(), pct(power[i], sims).c_str());
      }
      std::printf("\n");
    }
  }
}

// One run a side plus 10 history runs of the same process: within-run CV 1%, run-to-run sd
// `run_sd`. The interval with the history variance added must cover; without it, it cannot.
void history_table(int sims, std::uint64_t seed) {
  std::printf(
      "\n#### Run-to-run noise: one run a side, n = 10, within-run CV 1%%, 10 history runs "
      "(%% of %d simulations)\n\n",
      sims);
  std::printf(
      "| run-to-run sd | coverage, within-run only | coverage, with history | +10%% flagged, "
      "with history | +10%% interval inside +-2%%, with history |\n|---:|---:|---:|---:|---:|\n");
  for (double run_sd : {0.0, 0.01, 0.03, 0.05}) {
    sim::Generator gen(seed + static_cast<std::uint64_t>(run_sd * 1e4) + 77);
    double cov_within = 0, cov_hist = 0, flagged = 0, unchanged = 0;
    for (int s = 0; s < sims; ++s) {
      std::vector<double> medians;
      for (int k = 0; k < 10; ++k) {
        medians.push_back(
            std::log(gc::median(gen.run(1.0, 0.01, 10, sim::Shape::lognormal, run_sd))));
      }
      double var_run = std::pow(gc::stddev(medians), 2);
      std::vector<double> b = gen.run(1.0, 0.01, 10, sim::Shape::lognormal, run_sd);
      std::vector<double> a = gen.run(1.0, 0.01, 10, sim::Shape::lognormal, run_sd);
      std::vector<double> c = gen.run(1.1, 0.01, 10, sim::Shape::lognormal, run_sd);
      gc::LogRatioEstimate w = gc::log_ratio_estimate(b, a, opts(0.2, 8, 0));
      gc::LogRatioEstimate h = gc::log_ratio_estimate(b, a, opts(0.2, 8, 2 * var_run));
      gc::LogRatioEstimate e = gc::log_ratio_estimate(b, c, opts(0.2, 8, 2 * var_run));
      cov_within += w.ci_low <= 1 && w.ci_high >= 1;
      cov_hist += h.ci_low <= 1 && h.ci_high >= 1;
      flagged += e.ci_low > 1 && e.ratio > 1.02;
      unchanged += e.ci_low >= 0.98 && e.ci_high <= 1.02;
    }
    std::printf("| %.0f%% | %s | %s | %s | %s |\n", run_sd * 100, pct(cov_within, sims).c_str(),
                pct(cov_hist, sims).c_str(), pct(flagged, sims).c_str(),
                pct(unchanged, sims).c_str());
  }
}

// ---- Executions (issue 35): samples within executions within runs ----------------------------
//
// A suite of k_series series is measured in `executions` processes a side, `reps` repetitions
// each. log value = log level + run effect (one per run, shared by the suite's series) + execution
// effect (per execution: a part shared by the suite's series, `shared` of its variance, and a part
// of each series, scaled per series by exp(N(0, 0.5^2)) so some series are noisier than others)
// + within-execution noise of coefficient of variation `cv` (sim::Shape).
constexpr std::size_t k_series = 20;
// Repetitions inside each execution (--reps; the profiles' default spreads their repetitions over
// their executions: one each).
std::size_t g_reps = 1;
// Executions a side (--executions; quick's 3 by default, standard 5, full 10).
std::size_t g_executions = 3;

struct Cell {
  double exec_sd = 0;  // sd of the execution effect on the log scale
  double run_sd = 0;   // sd of the run effect on the log scale
  double cv = 0.02;    // within-execution CV
  double shared = 0.7;
  std::size_t executions = g_executions;
  std::size_t reps = g_reps;
  sim::Shape shape = sim::Shape::lognormal;
};

// values[series][execution] = that execution's repetitions.
using SuiteRun = std::vector<std::vector<std::vector<double>>>;

SuiteRun suite_run(sim::Generator& gen, const Cell& c, const std::vector<double>& levels,
                   const std::vector<double>& noisiness) {
  std::normal_distribution<double> normal(0.0, 1.0);
  auto& eng = gen.engine();
  const double run_effect = c.run_sd * normal(eng);
  SuiteRun out(levels.size(), std::vector<std::vector<double>>(c.executions));
  for (std::size_t e = 0; e < c.executions; ++e) {
    const double shared = c.exec_sd * std::sqrt(c.shared) * normal(eng);
    for (std::size_t s = 0; s < levels.size(); ++s) {
      const double own = c.exec_sd * noisiness[s] * std::sqrt(1.0 - c.shared) * normal(eng);
      out[s][e] = gen.run(levels[s] * std::exp(run_effect + shared + own), c.cv, c.reps, c.shape);
    }
  }
  return out;
}

std::vector<double> execution_means(const std::vector<std::vector<double>>& executions) {
  std::vector<double> out;
  for (const auto& values : executions) out.push_back(gc::execution_log_mean(values));
  return out;
}

std::vector<double> flattened(const std::vector<std::vector<double>>& executions) {
  std::vector<double> out;
  for (const auto& values : executions) out.insert(out.end(), values.begin(), values.end());
  return out;
}

constexpr const char* k_exec_estimators[] = {
    "all samples pooled (today)", "executions, own variance", "executions, whole variance "
    "moderated", "executions, shared + own moderated (chosen)"};
constexpr std::size_t k_exec_count = 4;

struct Tally {
  double covered[k_exec_count] = {};
  double alarms[k_exec_count] = {};  // interval excludes 1 and the point is beyond +-2%
  // As compare decides: Benjamini-Hochberg over the comparison's series (here the suite's 20),
  // q < 1% and the point beyond +-2%.
  double alarms_bh[k_exec_count] = {};
  double series = 0;
};

// One comparison of base against candidate (and, with history, `history` runs of the base side's
// machine before it), scored for each estimator. `truth` is the true log ratio.
void score(const SuiteRun& base, const SuiteRun& candidate, const std::vector<SuiteRun>& history,
           double truth, Tally& t) {
  const std::size_t n = base.size();
  std::vector<std::vector<double>> bm(n), cm(n);
  std::vector<gc::ExecutionVariance> own(n);
  for (std::size_t s = 0; s < n; ++s) {
    bm[s] = execution_means(base[s]);
    cm[s] = execution_means(candidate[s]);
    own[s] = gc::pooled_execution_variance(bm[s], cm[s]);
  }
  const gc::ExecutionPrior prior = gc::estimate_execution_prior(own);
  gc::SuiteExecutionMeans suite{bm, cm};
  const std::vector<gc::SeriesExecutionNoise> noise = gc::execution_noise(suite);
  std::vector<double> p_values[k_exec_count];
  std::vector<double> ratios[k_exec_count];
  for (std::size_t s = 0; s < n; ++s) {
    const gc::ModeratedVariance whole = gc::moderate(own[s], prior, 0.01);
    const double variances[3][2] = {{own[s].variance, own[s].df},
                                     {whole.variance, whole.df},
                                     {noise[s].variance, noise[s].df}};
    gc::LogRatioEstimate estimates[k_exec_count];
    // History: the sd of per-run means over the history runs holds run and execution noise;
    // the run part is what is left after the execution part (v / E) is taken out.
    double hist_var = 0;
    std::vector<double> run_means, run_medians;
    for (const SuiteRun& h : history) {
      run_means.push_back(gc::mean(execution_means(h[s])));
      run_medians.push_back(std::log(gc::median(flattened(h[s]))));
    }
    if (run_means.size() >= 3) hist_var = std::pow(gc::stddev(run_means), 2);
    const double hist_var_pooled =
        run_medians.size() >= 3 ? std::pow(gc::stddev(run_medians), 2) : 0.0;
    const double e = static_cast<double>(bm[s].size());
    estimates[0] = gc::log_ratio_estimate(flattened(base[s]), flattened(candidate[s]),
                                          opts(0.2, 8, 2 * hist_var_pooled));
    for (std::size_t i = 0; i < 3; ++i) {
      gc::LogRatioOptions o;
      const gc::RunNoise run = gc::run_noise_from_history(
          hist_var, static_cast<double>(run_means.size()), variances[i][0], variances[i][1], e);
      o.extra_variance = 2 * run.variance;
      o.extra_df = run.df;
      estimates[i + 1] = gc::two_level_estimate(bm[s], cm[s], variances[i][0], variances[i][1], o);
    }
    for (std::size_t i = 0; i < k_exec_count; ++i) {
      const gc::LogRatioEstimate& r = estimates[i];
      const double lo = std::log(r.ci_low), hi = std::log(r.ci_high);
      t.covered[i] += r.valid && lo <= truth && hi >= truth;
      t.alarms[i] += r.valid && (r.ci_low > 1.0 || r.ci_high < 1.0) &&
                     std::fabs(r.ratio - 1.0) > 0.02;
      p_values[i].push_back(r.valid ? r.p_value : 1.0);
      ratios[i].push_back(r.valid ? r.ratio : 1.0);
    }
    t.series += 1;
  }
  for (std::size_t i = 0; i < k_exec_count; ++i) {
    const std::vector<double> q = gc::benjamini_hochberg(p_values[i]);
    for (std::size_t s = 0; s < q.size(); ++s) {
      t.alarms_bh[i] += q[s] < 0.01 && std::fabs(ratios[i][s] - 1.0) > 0.02;
    }
  }
}

// Coverage and A/A false alarms with execution effects (no history, no run effect), and with run
// effects and 10 runs of history; then power for a 10% change.
void executions_tables(int sims, std::uint64_t seed) {
  std::printf("\n### Executions: %zu series a suite, %zu executions a side of %zu repetition(s), "
              "%d simulations a cell (%zu series each)\n",
              k_series, g_executions, g_reps, sims, k_series);
  for (sim::Shape shape :
       {sim::Shape::lognormal, sim::Shape::heavy_tailed, sim::Shape::contaminated}) {
    std::printf("\n#### %s, within-execution CV 2%%: 99%% coverage / A/A false alarms per series "
                "(interval alone / after Benjamini-Hochberg over the suite, as compare decides) "
                "(%%)\n\n| execution sd | run sd | history runs |",
                sim::to_string(shape));
    for (const char* name : k_exec_estimators) std::printf(" %s |", name);
    std::printf("\n|---:|---:|---:|");
    for (std::size_t i = 0; i < k_exec_count; ++i) std::printf("---|");
    std::printf("\n");
    struct Row {
      double exec_sd, run_sd;
      int history;
    };
    for (Row row : {Row{0.0, 0.0, 0}, Row{0.01, 0.0, 0}, Row{0.02, 0.0, 0}, Row{0.05, 0.0, 0},
                    Row{0.02, 0.02, 0}, Row{0.01, 0.02, 10}, Row{0.02, 0.05, 10},
                    Row{0.05, 0.05, 10}}) {
      Cell c;
      c.exec_sd = row.exec_sd;
      c.run_sd = row.run_sd;
      c.shape = shape;
      sim::Generator gen(seed + static_cast<std::uint64_t>(row.exec_sd * 1e4) * 131 +
                         static_cast<std::uint64_t>(row.run_sd * 1e4) * 7 +
                         static_cast<std::uint64_t>(shape) * 100003);
      Tally t;
      std::normal_distribution<double> normal(0.0, 0.5);
      for (int s = 0; s < sims; ++s) {
        std::vector<double> levels(k_series), noisiness(k_series);
        for (std::size_t i = 0; i < k_series; ++i) {
          levels[i] = 1.0 + static_cast<double>(i);
          noisiness[i] = std::exp(normal(gen.engine()));
        }
        std::vector<SuiteRun> history;
        for (int h = 0; h < row.history; ++h) history.push_back(suite_run(gen, c, levels, noisiness));
        SuiteRun base = suite_run(gen, c, levels, noisiness);
        SuiteRun candidate = suite_run(gen, c, levels, noisiness);
        score(base, candidate, history, 0.0, t);
      }
      std::printf("| %.0f%% | %.0f%% | %d |", row.exec_sd * 100, row.run_sd * 100, row.history);
      for (std::size_t i = 0; i < k_exec_count; ++i) {
        std::printf(" %s / %s / %s |", pct(t.covered[i], t.series).c_str(),
                    pct(t.alarms[i], t.series).c_str(), pct(t.alarms_bh[i], t.series).c_str());
      }
      std::printf("\n");
    }
  }
  std::printf("\n#### Power: every series 10%% slower, within-execution CV 5%%, execution sd 2%%, "
              "no history (%% of series flagged: interval alone / after Benjamini-Hochberg)\n\n"
              "| shape |");
  for (const char* name : k_exec_estimators) std::printf(" %s |", name);
  std::printf("\n|---|");
  for (std::size_t i = 0; i < k_exec_count; ++i) std::printf("---:|");
  std::printf("\n");
  for (sim::Shape shape :
       {sim::Shape::lognormal, sim::Shape::heavy_tailed, sim::Shape::contaminated}) {
    Cell c;
    c.exec_sd = 0.02;
    c.cv = 0.05;
    c.shape = shape;
    sim::Generator gen(seed + 999 + static_cast<std::uint64_t>(shape));
    Tally t;
    std::normal_distribution<double> normal(0.0, 0.5);
    for (int s = 0; s < sims; ++s) {
      std::vector<double> levels(k_series), slower(k_series), noisiness(k_series);
      for (std::size_t i = 0; i < k_series; ++i) {
        levels[i] = 1.0 + static_cast<double>(i);
        slower[i] = levels[i] * 1.1;
        noisiness[i] = std::exp(normal(gen.engine()));
      }
      SuiteRun base = suite_run(gen, c, levels, noisiness);
      SuiteRun candidate = suite_run(gen, c, slower, noisiness);
      score(base, candidate, {}, std::log(1.1), t);
    }
    std::printf("| %s |", sim::to_string(shape));
    for (std::size_t i = 0; i < k_exec_count; ++i) {
      std::printf(" %s / %s |", pct(t.alarms[i], t.series).c_str(),
                  pct(t.alarms_bh[i], t.series).c_str());
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  int sims = 2000;
  std::uint64_t seed = 1;
  bool executions_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--executions-only") == 0) {
      executions_only = true;
    } else if (i + 1 < argc && std::strcmp(argv[i], "--sims") == 0) {
      sims = std::atoi(argv[++i]);
    } else if (i + 1 < argc && std::strcmp(argv[i], "--executions") == 0) {
      g_executions = static_cast<std::size_t>(std::max(2, std::atoi(argv[++i])));
    } else if (i + 1 < argc && std::strcmp(argv[i], "--reps") == 0) {
      g_reps = static_cast<std::size_t>(std::max(1, std::atoi(argv[++i])));
    } else if (i + 1 < argc && std::strcmp(argv[i], "--seed") == 0) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    }
  }
  if (sims <= 0) {
    std::fprintf(stderr, "verdict_sim: --sims must be positive\n");
    return 2;
  }
  std::printf("verdict_sim --sims %d --seed %llu\n", sims, static_cast<unsigned long long>(seed));
  if (!executions_only) {
    for (sim::Shape shape :
         {sim::Shape::lognormal, sim::Shape::heavy_tailed, sim::Shape::contaminated}) {
      shape_table(shape, sims, seed);
    }
    history_table(sims, seed);
  }
  executions_tables(sims, seed);
  return 0;
}
