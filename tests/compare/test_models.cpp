// Issue 24: the pure parts of `gpubench models` and `gpubench fleet` (compare/models/models.hpp,
// compare/models/fleet.hpp): pooled figures and their intervals, log-scale sums, the prices and
// weights files, robust-z outliers. FIXTURE numbers only; reference values from scipy where quoted.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "compare/models/fleet.hpp"
#include "compare/models/models.hpp"
#include "results/store.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::compare {
namespace {

TEST(Models, PooledEstimateIsTheGeometricMeanWithAtIntervalOnTheLogs) {
  const std::vector<double> units = {100, 110, 121};
  const LogEstimate e = pooled_estimate(units);
  EXPECT_NEAR(e.value(), 110, 1e-9);  // geometric mean of 100, 110, 121
  EXPECT_EQ(e.n, 3u);
  EXPECT_DOUBLE_EQ(e.df, 2);
  // logs step by log(1.1): sd = log(1.1), se = log(1.1)/sqrt(3); t_{0.995,2} = 9.924843
  // (scipy.stats.t.ppf(0.995, 2)).
  const double half = 9.924843 * std::log(1.1) / std::sqrt(3.0);
  EXPECT_NEAR(e.low(0.99), 110 * std::exp(-half), 1e-3);
  EXPECT_NEAR(e.high(0.99), 110 * std::exp(half), 1e-3);
  EXPECT_FALSE(e.within_run_only);
}

TEST(Models, OneUnitTakesItsRepetitionsAndSaysSo) {
  const LogEstimate e = pooled_estimate({200}, {198, 200, 202});
  EXPECT_NEAR(e.value(), 200, 1e-9);
  EXPECT_TRUE(e.within_run_only);
  EXPECT_LT(e.low(0.99), 200);
  EXPECT_GT(e.high(0.99), 200);
  EXPECT_TRUE(std::isnan(pooled_estimate({200}).low(0.99))) << "no spread: no interval";
  // Tied units: the resolution floor keeps the interval from collapsing.
  const LogEstimate tied = pooled_estimate({20, 20, 20, 20});
  EXPECT_GT(tied.high(0.99), tied.low(0.99));
}

TEST(Models, WeightedSumAddsMeansAndVariances) {
  const LogEstimate a = pooled_estimate({100, 110, 121});
  const LogEstimate b = pooled_estimate({50, 55, 60, 65});
  const LogEstimate s = weighted_sum({{0.7, a}, {0.3, b}});
  EXPECT_NEAR(s.mean_log, 0.7 * a.mean_log + 0.3 * b.mean_log, 1e-12);
  EXPECT_NEAR(s.var, 0.49 * a.var + 0.09 * b.var, 1e-15);
  EXPECT_GT(s.df, std::min(a.df, b.df));  // Welch-Satterthwaite lies between min and sum
  EXPECT_LT(s.df, a.df + b.df);
  const LogEstimate ratio = weighted_sum({{1, a}, {-1, a}});
  EXPECT_NEAR(ratio.value(), 1, 1e-12);
  EXPECT_FALSE(weighted_sum({{1, a}, {1, LogEstimate{}}}).valid()) << "an unknown term";
}

TEST(Models, RatioWordingIsNeutral) {
  LogEstimate r;
  r.mean_log = std::log(1.2);
  r.var = 0.0001;
  r.df = 10;
  EXPECT_EQ(ratio_wording(r, 0.99), "1.20x faster");
  r.mean_log = std::log(0.8);
  EXPECT_EQ(ratio_wording(r, 0.99), "0.80x (slower)");
  r.mean_log = 0;
  EXPECT_EQ(ratio_wording(r, 0.99), "1.00x (no clear difference)");
}

TEST(Models, PricesFile) {
  const auto prices = parse_prices(
      "# FIXTURE\nmodel,price,currency,power_w\nH100,25000,USD\nH100 NVL, 28000 ,USD,400\n",
      "p.csv");
  ASSERT_EQ(prices.size(), 2u);
  EXPECT_EQ(prices[1].line, 4);
  EXPECT_EQ(prices[1].power_w, 400);
  EXPECT_EQ(find_price(prices, "NVIDIA H100 NVL")->model, "H100 NVL") << "the longest match";
  EXPECT_EQ(find_price(prices, "NVIDIA H100 80GB HBM3")->price, 25000);
  EXPECT_EQ(find_price(prices, "NVIDIA A100"), nullptr);
  for (const char* bad : {"H100,25000\n", "H100,-1,USD\n", "H100,1,\n", "H100,1,USD,hot\n",
                          "H100,1,USD\nh100,2,USD\n", "# nothing\n"}) {
    try {
      parse_prices(bad, "p.csv");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::bad_input);
      EXPECT_NE(std::string(e.what()).find("p.csv"), std::string::npos) << e.what();
    }
  }
}

// Issue 39: the purchase answer's clause names the leader; the reference leads below 1, its
// lead 1/ratio - 1 with the interval inverted; an interval holding 1 is no clear difference.
TEST(Models, AdvantageTextNamesTheLeaderWithItsInterval) {
  LogEstimate r;
  r.mean_log = std::log(1.06);
  r.var = 0.0001;
  r.df = 10;
  const double lo = r.low(0.99), hi = r.high(0.99);
  char want[160];
  std::snprintf(want, sizeof want, "H200 6.0%% faster [%.1f%%, %.1f%%]", 100 * (lo - 1),
                100 * (hi - 1));
  EXPECT_EQ(advantage_text(r, 0.99, "H200", "H100", "faster", "in speed"), want);
  r.mean_log = std::log(1 / 1.21);
  std::snprintf(want, sizeof want, "H100 21.0%% more per USD [%.1f%%, %.1f%%]",
                100 * (1 / r.high(0.99) - 1), 100 * (1 / r.low(0.99) - 1));
  EXPECT_EQ(advantage_text(r, 0.99, "H200", "H100", "more per USD", "per USD"), want);
  r.mean_log = std::log(1.01);
  r.var = 0.01;
  EXPECT_EQ(advantage_text(r, 0.99, "H200", "H100", "more per W", "per W")
                .rfind("no clear difference per W (H200 +1.0% [-", 0),
            0u)
      << advantage_text(r, 0.99, "H200", "H100", "more per W", "per W");
}

// Issue 39: prices in several currencies are refused unless converted; a rate converts and is
// recorded; currencies compare without case.
TEST(Models, PricesInOneCurrencyOrConverted) {
  auto prices = parse_prices("H100,25000,usd\nH200,30000,EUR\nB200,40000,USD\n", "p.csv");
  EXPECT_EQ(prices[0].currency, "USD");
  try {
    convert_prices(prices, "", {}, "p.csv");
    ADD_FAILURE() << "mixed currencies accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find("--currency USD --rate EUR=RATE"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(convert_prices(prices, "USD", {}, "p.csv"), Error) << "EUR has no rate";
  convert_prices(prices, "usd", {parse_rate("eur=1.08")}, "p.csv");
  EXPECT_EQ(prices[1].currency, "USD");
  EXPECT_NEAR(prices[1].price, 32400, 1e-9);
  EXPECT_EQ(prices[1].written_currency, "EUR");
  EXPECT_EQ(*prices[1].written_price, 30000);
  EXPECT_FALSE(prices[0].written_price) << "already in USD";
  auto same = parse_prices("H100,25000,USD\nH200,30000,usd\n", "p.csv");
  EXPECT_NO_THROW(convert_prices(same, "", {}, "p.csv"));
  for (const char* bad : {"EUR", "=1.1", "EUR=0", "EUR=x"}) {
    EXPECT_THROW(parse_rate(bad), Error) << bad;
  }
}

TEST(Models, WeightsFileIsNormalised) {
  const auto w =
      parse_weights("gemm/*/dtype:bf16/m:8192/* 70\nallreduce 20 # nodes\nmemory 10\n", "w.txt");
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].pattern, "gemm/*/dtype:bf16/m:8192/*");
  EXPECT_NEAR(w[0].weight, 0.7, 1e-12);
  EXPECT_NEAR(w[2].weight, 0.1, 1e-12);
  EXPECT_THROW(parse_weights("gemm\n", "w.txt"), Error);
  EXPECT_THROW(parse_weights("gemm 0\n", "w.txt"), Error);
}

Observation gpu_row(const std::string& uuid, double value) {
  Observation o;
  o.run_id = 1;
  o.host = "FIXTURE";
  o.gpu_model = "GPU-MODEL-FIXTURE";
  o.gpu_uuid = uuid;
  o.suite = "memory";
  o.benchmark = "memory/device_triad/array_bytes:1024";
  o.metric = "GB_per_s";
  o.direction = results::Direction::higher;
  o.values = {value};
  o.median = value;
  return o;
}

TEST(Fleet, RobustZNamesTheSlowGpuOnly) {
  Observations obs;
  for (int g = 0; g < 8; ++g) {
    obs.rows.push_back(gpu_row("GPU-" + std::to_string(g), g == 5 ? 850 : 1000 + g));
    GpuFacts f;
    f.info.uuid = "GPU-" + std::to_string(g);
    f.info.name = "GPU-MODEL-FIXTURE";
    f.info.pcie_width = g == 5 ? 8 : 16;
    f.info.pcie_gen = 5;
    f.driver = "560.35.03";
    obs.gpus.push_back(f);
  }
  const Fleet fleet = fleet_scores(obs);
  ASSERT_EQ(fleet.series.size(), 1u);
  EXPECT_DOUBLE_EQ(fleet.series[0].median, 1002.5);
  ASSERT_EQ(fleet.outliers.size(), 1u);
  EXPECT_EQ(fleet.outliers[0].uuid, "GPU-5");
  EXPECT_NEAR(fleet.outliers[0].deviation, 850 / 1002.5 - 1, 1e-12);
  ASSERT_EQ(fleet.outliers[0].differences.size(), 1u);
  EXPECT_EQ(fleet.outliers[0].differences[0],
            "PCIe link Gen5 x8 (most GPUs of the model: Gen5 x16)");
  // A GPU faster than the rest is not an outlier; nor one slower by less than min_effect.
  obs.rows[5] = gpu_row("GPU-5", 1200);
  EXPECT_TRUE(fleet_scores(obs).outliers.empty());
  obs.rows[5] = gpu_row("GPU-5", 970);
  EXPECT_TRUE(fleet_scores(obs).outliers.empty()) << "3% slower: within the 5% floor";
  OutlierRule strict;
  strict.min_effect = 0.02;
  EXPECT_EQ(fleet_scores(obs, strict).outliers.size(), 1u);
  // Fewer than 3 GPUs: no series.
  obs.rows.resize(2);
  EXPECT_TRUE(fleet_scores(obs).series.empty());
}

// Issue 35: a run measures each suite in several executions, each its own suite run with rows of
// its own. Fixtures through the real Store on a SQLite file: GPUs "GPU-FIXTURE-<g>" of one model.
class ModelsStore : public ::testing::Test {
 protected:
  // A complete run that measured memory once per entry of `executions`: executions[e][g] is GPU
  // g's device_triad GB/s in execution e (one repetition). Returns the run id.
  int64_t add_run(const std::vector<std::vector<double>>& executions) {
    results::RunInfo info;
    info.host.hostname = "fixture-host";
    const std::size_t gpus = executions.at(0).size();
    nlohmann::json devices = nlohmann::json::array();
    for (std::size_t g = 0; g < gpus; ++g) {
      results::GpuInfo gpu;
      gpu.nvml_index = static_cast<int>(g);
      gpu.uuid = "GPU-FIXTURE-" + std::to_string(g);
      gpu.name = "GPU-MODEL-FIXTURE";
      info.gpus.push_back(gpu);
      devices.push_back({{"index", g}, {"uuid", gpu.uuid}});
    }
    const int64_t run = m_store.begin_run(info);
    for (const std::vector<double>& per_gpu : executions) {
      nlohmann::json doc;
      doc["context"] = {{"gpubench.metrics",
                         nlohmann::json::array(
                             {{{"name", "GB_per_s"}, {"unit", "GB/s"}, {"direction", "higher"}}})
                             .dump()},
                        {"gpubench.devices", devices.dump()}};
      doc["benchmarks"] = nlohmann::json::array();
      for (std::size_t g = 0; g < per_gpu.size(); ++g) {
        const std::string name = "memory/device_triad/array_bytes:1024/device:" + std::to_string(g);
        doc["benchmarks"].push_back({{"name", name},
                                     {"run_name", name},
                                     {"run_type", "iteration"},
                                     {"iterations", 10},
                                     {"real_time", 1000.0},
                                     {"cpu_time", 1000.0},
                                     {"time_unit", "ns"},
                                     {"GB_per_s", per_gpu[g]}});
      }
      results::SuiteRunInfo suite;
      suite.suite = "memory";
      suite.executable = "gpubench-memory";
      m_store.ingest_benchmark_json(m_store.add_suite_run(run, suite), doc, "memory");
    }
    m_store.finish_run(run, results::RunStatus::complete);
    return run;
  }

  TempDir m_dir{"gpubench-test-models"};
  results::Store m_store =
      results::Store::open(m_dir.path() / "m.db", results::OpenMode::read_write_create);
};

// Three executions of one run on one GPU are one unit (n = 1, within the run only), not three
// independent runs.
TEST_F(ModelsStore, ExecutionsOfARunOnAGpuAreOneUnit) {
  const int64_t run = add_run({{100}, {120}, {110}});
  const Observations obs = load_observations(m_store, {run});
  std::vector<const Observation*> bandwidth;
  for (const Observation& o : obs.rows) {
    if (o.metric == "GB_per_s") bandwidth.push_back(&o);
  }
  ASSERT_EQ(bandwidth.size(), 1u);
  EXPECT_EQ(bandwidth[0]->executions, 3u);
  EXPECT_DOUBLE_EQ(bandwidth[0]->median, 110);
  EXPECT_EQ(bandwidth[0]->values, (std::vector<double>{100, 120, 110}));
  const ModelsTable table = build_models(obs, {});
  ASSERT_EQ(table.rows.size(), 1u);
  const HeadlineFigure* memory = nullptr;
  for (const HeadlineFigure& h : table.rows[0].headline) {
    if (h.key == "memory_GB_per_s") memory = &h;
  }
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(memory->value.estimate.n, 1u);
  EXPECT_TRUE(memory->value.estimate.within_run_only);
  EXPECT_NEAR(memory->value.estimate.value(), 110, 1e-9);
  // The executions are the within-run spread: an interval around 110.
  EXPECT_LT(memory->value.estimate.low(0.99), 110);
  EXPECT_GT(memory->value.estimate.high(0.99), 110);
  ASSERT_EQ(table.rows[0].suites.size(), 1u);
  EXPECT_EQ(table.rows[0].suites[0].geomean.estimate.n, 1u);
  EXPECT_TRUE(table.rows[0].suites[0].geomean.estimate.within_run_only);
}

// A GPU's fleet value is the median over its runs, one value a run: three executions of one run do
// not outvote a second run.
TEST_F(ModelsStore, FleetTakesOneValuePerRunAndGpu) {
  const int64_t first = add_run({{100, 100, 100}, {100, 100, 100}, {100, 100, 100}});
  const int64_t second = add_run({{200, 100, 100}});
  const Fleet fleet =
      fleet_scores(load_observations(m_store, {first, second}), {}, "memory", "GB_per_s");
  ASSERT_EQ(fleet.series.size(), 1u);
  ASSERT_EQ(fleet.series[0].gpus.size(), 3u);
  EXPECT_EQ(fleet.series[0].gpus[0].uuid, "GPU-FIXTURE-0");
  // median(100 of the first run, 200 of the second) = 150; the executions as runs: 100.
  EXPECT_DOUBLE_EQ(fleet.series[0].gpus[0].value, 150);
}

}  // namespace
}  // namespace gpubench::compare
