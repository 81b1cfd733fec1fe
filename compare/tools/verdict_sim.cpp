// verdict_sim: coverage and power of candidate estimators for `gpubench compare`, on seeded
// simulated data (compare/tools/simulate.hpp). Prints the Markdown tables of compare/README.md
// "Method". Usage: verdict_sim [--sims N] [--seed S]   (default 2000 simulations per cell, seed 1)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

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

}  // namespace

int main(int argc, char** argv) {
  int sims = 2000;
  std::uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--sims") == 0) sims = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--seed") == 0) seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  if (sims <= 0) {
    std::fprintf(stderr, "verdict_sim: --sims must be positive\n");
    return 2;
  }
  std::printf("verdict_sim --sims %d --seed %llu\n", sims, static_cast<unsigned long long>(seed));
  for (sim::Shape shape :
       {sim::Shape::lognormal, sim::Shape::heavy_tailed, sim::Shape::contaminated}) {
    shape_table(shape, sims, seed);
  }
  history_table(sims, seed);
  return 0;
}
