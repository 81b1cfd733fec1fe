// Issue 24 end to end through the real CLI: `gpubench models` and `gpubench fleet` on FIXTURE
// runs of two made-up 8-GPU servers ("NVIDIA H100 (FIXTURE)" one run, "NVIDIA H200 (FIXTURE)"
// two runs), written as `gpubench export --format json` documents (environment with each GPU's
// memory, power limit and clocks, gemm/memory/allreduce rows, NVML power telemetry) and imported
// into one database. H200 GPU 3 delivers 85% of its siblings and runs at a lower application
// clock. Every number is invented by the generator below, never a measurement; the expected
// figures are recomputed here from the same generator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>

#include "chromium_labels.hpp"
#include "e2e_support.hpp"
#include "tests/compare/html_check.hpp"
#include "util/strings.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

struct FixtureModel {
  std::string name;
  std::string host;
  double bf16 = 0;     // TFLOP/s of GPU 0 at m:8192
  double triad = 0;    // GB/s
  double busbw = 0;    // allreduce ranks:8
  double power_w = 0;  // telemetry, GPU 0
  double limit_w = 0;  // enforced power limit
  int64_t memory_bytes = 0;
  int slow_gpu = -1;  // delivers 85%
};

const FixtureModel k_h100{
    "NVIDIA H100 (FIXTURE)", "h100-node-FIXTURE", 700, 3000, 360, 650, 700, 80'000'000'000, -1};
const FixtureModel k_h200{
    "NVIDIA H200 (FIXTURE)", "h200-node-FIXTURE", 760, 4300, 370, 680, 700, 141'000'000'000, 3};

std::string uuid(const FixtureModel& m, int gpu) {
  return "GPU-" + m.host.substr(0, 4) + "-FIXTURE-" + std::to_string(gpu);
}
double scale(const FixtureModel& m, int gpu) {
  return gpu == m.slow_gpu ? 0.85 : 1.0;
}
// The per-GPU spread and the repetitions: small, deterministic.
double bf16_of(const FixtureModel& m, int gpu, int rep, int run) {
  return (m.bf16 + 1.5 * gpu + 0.5 * rep + 2.0 * run) * scale(m, gpu);
}
double triad_of(const FixtureModel& m, int gpu, int rep, int run) {
  return (m.triad + 3.0 * gpu + 1.0 * rep + 4.0 * run) * scale(m, gpu);
}
double power_of(const FixtureModel& m, int gpu, int sample) {
  return m.power_w + 2.0 * gpu + sample;
}

// A fixed UUID per host and run: an export's run UUID must be one (issue 43).
std::string run_uuid(const std::string& host, int run) {
  char text[40];
  std::snprintf(text, sizeof text, "%08x-0000-4000-8000-%012x",
                static_cast<unsigned>(std::hash<std::string>{}(host)), static_cast<unsigned>(run));
  return text;
}

json export_doc(const FixtureModel& m, int run) {
  json gpus = json::array();
  for (int g = 0; g < 8; ++g) {
    gpus.push_back({{"nvml_index", g},
                    {"uuid", uuid(m, g)},
                    {"name", m.name},
                    {"pci_bus_id", "0000:" + std::to_string(18 + g) + ":00.0"},
                    {"memory_bytes", m.memory_bytes},
                    {"sm_count", 132},
                    {"compute_capability", "9.0"},
                    {"max_sm_clock_mhz", 1980},
                    {"app_sm_clock_mhz", g == m.slow_gpu ? 1500 : 1980},
                    {"power_limit_w", m.limit_w},
                    {"ecc", "on"},
                    {"pcie_gen", 5},
                    {"pcie_width", 16}});
  }
  json suites = json::array({{{"id", 1}, {"suite", "gemm"}, {"status", "ok"}},
                             {{"id", 2}, {"suite", "memory"}, {"status", "ok"}},
                             {{"id", 3}, {"suite", "allreduce"}, {"status", "ok"}}});
  json results = json::array();
  json telemetry = json::array();
  for (int g = 0; g < 8; ++g) {
    const std::string dev = "/device:" + std::to_string(g);
    json bf16 = json::array(), small = json::array(), pct = json::array(), triad = json::array();
    for (int rep = 0; rep < 5; ++rep) {
      bf16.push_back(bf16_of(m, g, rep, run));
      small.push_back(bf16_of(m, g, rep, run) / 3);
      pct.push_back(bf16_of(m, g, rep, run) / 9.89);
      triad.push_back(triad_of(m, g, rep, run));
    }
    const std::string big = "gemm/lt/dtype:bf16/m:8192/n:8192/k:8192/layout:tn/cache:cold";
    const std::string little = "gemm/lt/dtype:bf16/m:1024/n:1024/k:1024/layout:tn/cache:cold";
    for (const auto& [name, metric, unit, role, values] :
         {std::tuple{big, "TFLOP_per_s", "TFLOP/s", "primary", bf16},
          std::tuple{big, "pct_of_peak", "%", "secondary", pct},
          std::tuple{little, "TFLOP_per_s", "TFLOP/s", "primary", small}}) {
      results.push_back({{"suite", "gemm"},
                         {"suite_run", 1},
                         {"benchmark", name + dev},
                         {"metric", metric},
                         {"unit", unit},
                         {"direction", "higher"},
                         {"role", role},
                         {"device_index", g},
                         {"values", values}});
    }
    results.push_back({{"suite", "memory"},
                       {"suite_run", 2},
                       {"benchmark", "memory/device_triad/array_bytes:1073741824" + dev},
                       {"metric", "GB_per_s"},
                       {"unit", "GB/s"},
                       {"direction", "higher"},
                       {"role", "primary"},
                       {"device_index", g},
                       {"values", triad}});
    for (int sr = 1; sr <= 2; ++sr) {
      for (int s = 0; s < 3; ++s) {
        telemetry.push_back({{"suite_run", sr},
                             {"nvml_index", g},
                             {"t_s", 10.0 * sr + s},
                             {"power_w", power_of(m, g, s)}});
      }
    }
  }
  json busbw = json::array();
  for (int rep = 0; rep < 5; ++rep) busbw.push_back(m.busbw + rep + 3.0 * run);
  results.push_back({{"suite", "allreduce"},
                     {"suite_run", 3},
                     {"benchmark",
                      "allreduce/allreduce/dtype:bf16/mode:out_of_place/"
                      "bytes:1073741824/ranks:8"},
                     {"metric", "busbw_GB_per_s"},
                     {"unit", "GB/s"},
                     {"direction", "higher"},
                     {"role", "primary"},
                     {"values", busbw}});
  return {{"run",
           {{"uuid", run_uuid(m.host, run)},
            {"started_at", "2026-12-0" + std::to_string(1 + run) + "T07:00:00Z"},
            {"finished_at", "2026-12-0" + std::to_string(1 + run) + "T08:00:00Z"},
            {"status", "complete"},
            {"tags", m.slow_gpu < 0 ? json{{"interconnect", "NVLink-FIXTURE"}} : json::object()}}},
          {"environment",
           {{"host", {{"hostname", m.host}}},
            {"gpus", gpus},
            {"software", {{"driver_version", "560.35.03"}}}}},
          {"suites", suites},
          {"results", results},
          {"telemetry", telemetry}};
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}
double median5(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

class E2eModels : public ::testing::Test {
 protected:
  void SetUp() override {
    import(export_doc(k_h100, 0), "h100.json");
    import(export_doc(k_h200, 0), "h200_a.json");
    import(export_doc(k_h200, 1), "h200_b.json");
    write_file_atomic(prices(),
                      "# FIXTURE prices\nmodel,price,currency,power_w\nH100,25000,USD\n"
                      "H200,32000,USD\n");
  }
  // GPUBENCH_FIXTURE_OUT=DIR keeps a copy of each fixture file there (the README's example
  // imports them).
  void import(const json& doc, const std::string& file) {
    const fs::path path = m_ws.root() / file;
    write_file_atomic(path, doc.dump());
    if (const char* keep = std::getenv("GPUBENCH_FIXTURE_OUT")) {
      write_file_atomic(fs::path(keep) / file, doc.dump(1));
    }
    const CliResult r = m_ws.run({"import", path.string(), m_ws.db_arg()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  fs::path prices() const { return m_ws.root() / "p.csv"; }
  CliResult gb(std::vector<std::string> args) {
    args.push_back(m_ws.db_arg());
    return m_ws.run(args);
  }
  static const json& model(const json& doc, const std::string& name) {
    for (const json& m : doc.at("models")) {
      if (m.at("gpu_model") == name) return m;
    }
    throw std::runtime_error("no model " + name + " in " + doc.dump());
  }
  static const json& headline(const json& m, const std::string& key) {
    for (const json& h : m.at("headline")) {
      if (h.at("key") == key) return h;
    }
    throw std::runtime_error("no figure " + key);
  }
  Workspace m_ws;
};

// bf16 at m:8192 of `m` pooled as models does: per GPU x run the median of its repetitions.
std::vector<double> bf16_units(const FixtureModel& m, int runs, bool per_watt) {
  std::vector<double> units;
  for (int run = 0; run < runs; ++run) {
    for (int g = 0; g < 8; ++g) {
      if (g == m.slow_gpu) continue;
      std::vector<double> reps;
      for (int rep = 0; rep < 5; ++rep) reps.push_back(bf16_of(m, g, rep, run));
      units.push_back(median5(reps) / (per_watt ? power_of(m, g, 1) : 1.0));
    }
  }
  return units;
}

TEST_F(E2eModels, OneRowPerModelWithPerWattPerPriceAndTheSlowGpuExcludedAndNamed) {
  const CliResult r =
      gb({"models", "--prices", prices().string(), "--reference", "H100", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc.at("models").size(), 2u) << r.out;
  const json& h100 = model(doc, k_h100.name);
  const json& h200 = model(doc, k_h200.name);
  EXPECT_EQ(h100.at("gpus_pooled"), 8);
  EXPECT_EQ(h100.at("interconnect"), "NVLink-FIXTURE") << "from the run's tag";
  EXPECT_EQ(h200.at("interconnect"), "unknown");
  EXPECT_TRUE(h100.at("excluded").empty());
  EXPECT_EQ(h200.at("gpus_pooled"), 7) << "the 85% GPU is left out";
  ASSERT_EQ(h200.at("excluded").size(), 1u) << h200.dump(1);
  const json& out = h200.at("excluded")[0];
  EXPECT_EQ(out.at("uuid"), uuid(k_h200, 3));
  EXPECT_EQ(out.at("host"), k_h200.host);
  EXPECT_EQ(out.at("pci_bus_id"), "0000:21:00.0");
  EXPECT_NEAR(out.at("deviation").get<double>(), -0.15, 0.01);
  EXPECT_EQ(h200.at("runs").size(), 2u);
  EXPECT_EQ(h200.at("gpus_per_node"), 8);

  const json& bf16 = headline(h200, "bf16_tflops");
  const double expected = geomean(bf16_units(k_h200, 2, false));
  const json& fig = bf16.at("figure");
  EXPECT_NEAR(fig.at("value").get<double>(), expected, 1e-9 * expected);
  EXPECT_EQ(fig.at("n"), 14);
  EXPECT_LT(fig.at("low").get<double>(), expected);
  EXPECT_GT(fig.at("high").get<double>(), expected);
  EXPECT_EQ(fig.at("benchmark"), "gemm/lt/dtype:bf16/m:8192/n:8192/k:8192/layout:tn/cache:cold")
      << "the best case of the model's bf16 GEMMs";
  const double per_watt = geomean(bf16_units(k_h200, 2, true));
  EXPECT_NEAR(bf16.at("per_watt").at("value").get<double>(), per_watt, 1e-9 * per_watt);
  EXPECT_LT(bf16.at("per_watt").at("low").get<double>(), per_watt);
  EXPECT_NEAR(bf16.at("per_price").at("value").get<double>(), expected / 32000,
              1e-9 * expected / 32000);
  EXPECT_EQ(bf16.at("per_price").at("unit"), "TFLOP/s/USD");
  EXPECT_NEAR(h200.at("memory_GB").get<double>(), 141, 1e-9);
  EXPECT_NEAR(h200.at("memory_GB_per_price").get<double>(), 141.0 / 32000, 1e-12);
  EXPECT_EQ(h200.at("price").at("currency"), "USD");

  // Against the reference: the ratio of the two pooled figures, with an interval, neutral words.
  const double h100_bf16 = geomean(bf16_units(k_h100, 1, false));
  const json& ratio = bf16.at("ratio");
  EXPECT_NEAR(ratio.at("value").get<double>(), expected / h100_bf16, 1e-9);
  EXPECT_LT(ratio.at("low").get<double>(), ratio.at("value").get<double>());
  EXPECT_GT(ratio.at("high").get<double>(), ratio.at("value").get<double>());
  EXPECT_TRUE(contains(ratio.at("wording").get<std::string>(), "faster")) << ratio;
  EXPECT_TRUE(model(doc, k_h100.name).at("reference").get<bool>());
  EXPECT_NEAR(headline(h100, "bf16_tflops").at("ratio").at("value").get<double>(), 1.0, 1e-12);
  EXPECT_EQ(headline(h100, "bf16_tflops").at("ratio").at("wording"), "reference");
  // Whole-node figure: allreduce busbw at 8 GPUs, no per-watt or per-price.
  const json& busbw = headline(h200, "allreduce_busbw_8");
  EXPECT_FALSE(busbw.at("per_gpu").get<bool>());
  EXPECT_TRUE(busbw.at("per_price").at("value").is_null());
  // Suites: gemm's geomean over its two primary benchmarks, % of peak from pct_of_peak.
  bool gemm = false;
  for (const json& s : h200.at("suites")) {
    if (s.at("suite") != "gemm") continue;
    gemm = true;
    EXPECT_EQ(s.at("benchmarks"), 2);
    EXPECT_NEAR(s.at("pct_of_peak").at("value").get<double>(), expected / 9.89, 1e-6);
    EXPECT_FALSE(s.at("ratio").is_null());
  }
  EXPECT_TRUE(gemm) << h200.dump(1);

  // The text names the excluded GPU too, and never speaks of regressions.
  const CliResult text = gb({"models", "--prices", prices().string(), "--reference", "H100"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "excluded outlier GPU " + uuid(k_h200, 3))) << text.out;
  EXPECT_FALSE(contains(to_lower(text.out), "regression")) << text.out;
}

TEST_F(E2eModels, TdpPowerUsesThePowerLimitOrThePricesFile) {
  const CliResult r = gb({"models", "--power", "tdp", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json h100 = model(json::parse(r.out), k_h100.name);
  const double value = headline(h100, "bf16_tflops").at("figure").at("value").get<double>();
  EXPECT_NEAR(headline(h100, "bf16_tflops").at("per_watt").at("value").get<double>(),
              value / k_h100.limit_w, 1e-9);
  EXPECT_TRUE(headline(h100, "bf16_tflops").at("per_price").at("value").is_null());
  write_file_atomic(prices(), "H100,25000,USD,350\n");
  const CliResult p =
      gb({"models", "--power", "tdp", "--prices", prices().string(), "--format", "json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json with = model(json::parse(p.out), k_h100.name);
  EXPECT_NEAR(headline(with, "bf16_tflops").at("per_watt").at("value").get<double>(), value / 350,
              1e-9);
}

TEST_F(E2eModels, BadInputNamesTheFileAndLine) {
  write_file_atomic(prices(), "model,price,currency\nH100,25000,USD\nH200,lots,USD\n");
  CliResult r = gb({"models", "--prices", prices().string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "p.csv:3")) << r.err;
  EXPECT_TRUE(contains(r.err, "'lots' is not a number")) << r.err;
  write_file_atomic(prices(), "H100,25000\n");
  r = gb({"models", "--prices", prices().string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "p.csv:1")) << r.err;
  r = gb({"models", "--reference", "A100"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "matches no model")) << r.err;
  r = gb({"models", "--reference", "FIXTURE"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "matches several models")) << r.err;
  r = gb({"models", "--power", "peak"});
  EXPECT_EQ(r.exit_code, 2);
  const fs::path weights = m_ws.root() / "w.txt";
  write_file_atomic(weights, "gemm 70\nallreduce -1\n");
  r = gb({"models", "--weights", weights.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "w.txt:2")) << r.err;
}

TEST_F(E2eModels, WeightsGiveOneCompositeWithItsInterval) {
  const fs::path weights = m_ws.root() / "w.txt";
  write_file_atomic(weights,
                    "# FIXTURE workload\ngemm/*/dtype:bf16/m:8192/* 70\nallreduce 20\n"
                    "memory 10\n");
  const CliResult r =
      gb({"models", "--weights", weights.string(), "--reference", "H100", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  for (const FixtureModel* m : {&k_h100, &k_h200}) {
    const json& row = model(doc, m->name);
    const json& c = row.at("composite");
    const double bf16 = headline(row, "bf16_tflops").at("figure").at("value").get<double>();
    const double busbw = headline(row, "allreduce_busbw_8").at("figure").at("value").get<double>();
    const double triad = headline(row, "memory_GB_per_s").at("figure").at("value").get<double>();
    const double expected =
        std::exp(0.7 * std::log(bf16) + 0.2 * std::log(busbw) + 0.1 * std::log(triad));
    EXPECT_NEAR(c.at("value").get<double>(), expected, 1e-9 * expected) << m->name;
    EXPECT_LT(c.at("low").get<double>(), expected);
    EXPECT_GT(c.at("high").get<double>(), expected);
  }
  const json& ratio = model(doc, k_h200.name).at("composite_ratio");
  EXPECT_GT(ratio.at("value").get<double>(), 1.0);
  EXPECT_LT(ratio.at("low").get<double>(), ratio.at("value").get<double>());
}

TEST_F(E2eModels, FleetNamesTheSlowGpuAndExitsOne) {
  const CliResult r = gb({"fleet"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(
      contains(r.out, "OUTLIER " + uuid(k_h200, 3) + " host " + k_h200.host + " bus 0000:21:00.0"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "application SM clock MHz 1500 (most GPUs of the model: 1980)"))
      << r.out;
  const CliResult j = gb({"fleet", "--format", "json", "--suite", "memory"});
  EXPECT_EQ(j.exit_code, 1);
  const json doc = json::parse(j.out);
  ASSERT_EQ(doc.at("outliers").size(), 1u) << j.out;
  EXPECT_EQ(doc.at("outliers")[0].at("uuid"), uuid(k_h200, 3));
  EXPECT_EQ(doc.at("outliers")[0].at("nvml_index"), 3);
  EXPECT_NEAR(doc.at("outliers")[0].at("deviation").get<double>(), -0.15, 0.01);
  for (const json& s : doc.at("series")) EXPECT_EQ(s.at("suite"), "memory");
  // The healthy server alone: no outlier, exit 0.
  const CliResult healthy = gb({"fleet", "host:" + k_h100.host});
  EXPECT_EQ(healthy.exit_code, 0) << healthy.out << healthy.err;
  EXPECT_TRUE(contains(healthy.out, "no outlier GPU")) << healthy.out;
  EXPECT_EQ(gb({"fleet", "--suite", "nonesuch"}).exit_code, 2);
}

// Issue 26: text fits the terminal. models, fleet and history at COLUMNS=120.
TEST_F(E2eModels, TextFitsColumns120) {
  const std::vector<std::pair<std::string, std::string>> columns = {{"COLUMNS", "120"}};
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"models", "--prices", prices().string(), "--reference", "H100"},
           {"fleet"},
           {"history", "all"}}) {
    SCOPED_TRACE(args[0]);
    args.push_back(m_ws.db_arg());
    const CliResult r = m_ws.run(args, columns);
    EXPECT_LE(r.exit_code, 1) << r.err;
    EXPECT_FALSE(r.out.empty());
    EXPECT_LE(longest_line(r.out), 120u) << r.out;
  }
}

TEST_F(E2eModels, ShowListsEachGpusMemoryPowerLimitAndClocks) {
  const CliResult r = gb({"show", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "gpu 3: " + k_h200.name + " " + uuid(k_h200, 3) +
                                  ", memory 131.32 GiB, 132 SMs, cc 9.0, SM clock max 1980 MHz / "
                                  "application 1500 MHz / default unknown, memory clock max "
                                  "unknown, power limit 700 W"))
      << r.out;
}

// Issue 39: Markdown has the models as columns of one table; HTML a real table the same way and,
// per headline figure, one chart for throughput, per W and per price, each interval a whisker
// with caps, all within a 1400 px page (laid out in headless Chromium).
TEST_F(E2eModels, MarkdownCsvAndHtmlCarryTheFigures) {
  const CliResult md =
      gb({"models", "--format", "md", "--reference", "H100", "--prices", prices().string()});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(contains(md.out,
                       "| figure \\[99% interval\\] | H100 (FIXTURE) (ref) | H200 "
                       "(FIXTURE) |\n|---|---:|---:|\n"))
      << "models as columns: " << md.out;
  EXPECT_TRUE(contains(md.out, "| dense BF16 TFLOP/s | ")) << md.out;
  EXPECT_TRUE(contains(md.out, "| memory per GPU | 74.51 GiB | 131.32 GiB |")) << md.out;
  EXPECT_TRUE(contains(md.out, "- **BF16**: H100 (FIXTURE) ")) << md.out;
  const CliResult csv = gb({"models", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_TRUE(contains(csv.out, "NVIDIA H200 (FIXTURE),8,unknown,bf16_tflops,")) << csv.out;
  const CliResult html =
      gb({"models", "--format", "html", "--reference", "H100", "--prices", prices().string()});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_EQ(compare::testing::check_markup(html.out, true), "");
  EXPECT_TRUE(contains(html.out,
                       "<table class=\"models\">\n<tr><th class=\"lab\">figure [99% "
                       "interval]</th><th class=\"num\">H100 (FIXTURE) (ref)</th><th "
                       "class=\"num\">H200 (FIXTURE)</th></tr>"))
      << html.out;
  EXPECT_TRUE(contains(html.out, "<h2>Purchase answer</h2>")) << html.out;
  // Per headline figure measured: bf16 and memory throughput, per W, per USD; allreduce (a
  // whole-node figure) throughput only. Both models in each, every interval with its caps.
  std::vector<std::string> titles;
  for (std::size_t at = html.out.find("<svg"); at != std::string::npos;
       at = html.out.find("<svg", at + 1)) {
    const std::string chart = html.out.substr(at, html.out.find("</svg>", at) - at);
    const std::size_t t = chart.find("<title>") + 7;
    titles.push_back(chart.substr(t, chart.find(',', t) - t));
    EXPECT_TRUE(contains(chart, "NVIDIA H100 (FIXTURE) x8")) << chart;
    EXPECT_TRUE(contains(chart, "NVIDIA H200 (FIXTURE) x8")) << chart;
    std::size_t caps = 0;
    for (std::size_t c = chart.find("class=\"ci cap\""); c != std::string::npos;
         c = chart.find("class=\"ci cap\"", c + 1)) {
      ++caps;
    }
    EXPECT_EQ(caps, 4u) << "two capped whiskers: " << chart;
  }
  EXPECT_EQ(titles,
            (std::vector<std::string>{"dense BF16 TFLOP/s", "dense BF16 TFLOP/s per W (TFLOP/s/W)",
                                      "dense BF16 TFLOP/s per USD (TFLOP/s/USD)",
                                      "device memory GB/s", "device memory GB/s per W (GB/s/W)",
                                      "device memory GB/s per USD (GB/s/USD)",
                                      "allreduce busbw at 8 GPUs GB/s"}));
  // Laid out in headless Chromium: every label and tick inside its chart, none overlapping; no
  // table and nothing else wider than the 1400 px window.
  const fs::path page = m_ws.root() / "models.html";
  write_file_atomic(page, html.out);
  const std::string check = chromium_chart_check(page, m_ws.root());
  if (check.empty()) GTEST_SKIP() << "no Chromium here: the layout check needs one";
  EXPECT_EQ(check, "labels=14 OK") << check;
  const std::string fits = chromium_script_result(find_chromium_binary(), page, m_ws.root(), R"(
const w=window.innerWidth; let tables=0;
if(document.documentElement.scrollWidth>w) out.push('page '+document.documentElement.scrollWidth+' px wide');
document.querySelectorAll('table').forEach(t=>{tables++;const r=t.getBoundingClientRect();
  if(r.right>w) out.push('table '+tables+' ends at '+Math.round(r.right)+' px');});
document.querySelectorAll('svg.chart').forEach((s,i)=>{const r=s.getBoundingClientRect();
  if(r.right>w) out.push('chart '+i+' ends at '+Math.round(r.right)+' px');});
const p=out.splice(0); out.push('tables='+tables+' '+(p.length?p.join(' | '):'OK'));)",
                                                  "1400,1000");
  EXPECT_EQ(fits, "tables=1 OK") << fits;
  // The fleet's HTML: the series with the outlier, every GPU a bar.
  const CliResult fleet = gb({"fleet", "--format", "html", "--suite", "memory"});
  EXPECT_EQ(fleet.exit_code, 1);
  EXPECT_EQ(compare::testing::check_markup(fleet.out, true), "");
  const fs::path fleet_page = m_ws.root() / "fleet.html";
  write_file_atomic(fleet_page, fleet.out);
  EXPECT_EQ(chromium_chart_check(fleet_page, m_ws.root()), "labels=8 OK");
}

// Issue 39: the purchase answer. Against the reference, per price (a constant: the throughput
// ratio's interval, shifted), in speed and per W (both spreads), one sentence per headline
// figure naming its benchmark; the per-dollar clause recomputed here from the JSON's ratio.
std::string pct(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * (ratio - 1));
  return text;
}

TEST_F(E2eModels, PurchaseAnswerSaysWhoLeadsPerDollarInSpeedAndPerWattWithIntervals) {
  const CliResult j =
      gb({"models", "--prices", prices().string(), "--reference", "H100", "--format", "json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json doc = json::parse(j.out);
  const json& h100 = headline(model(doc, k_h100.name), "bf16_tflops");
  const json& h200 = headline(model(doc, k_h200.name), "bf16_tflops");
  const json& speed = h200.at("ratio");
  const json& dollar = h200.at("per_price_ratio");
  const json& watt = h200.at("per_watt_ratio");
  // Prices are constants: per USD is the throughput ratio times 25000/32000, interval alike.
  const double k = 25000.0 / 32000.0;
  EXPECT_NEAR(dollar.at("value").get<double>(), speed.at("value").get<double>() * k, 1e-12);
  EXPECT_NEAR(dollar.at("low").get<double>(), speed.at("low").get<double>() * k, 1e-12);
  EXPECT_NEAR(dollar.at("high").get<double>(), speed.at("high").get<double>() * k, 1e-12);
  EXPECT_EQ(dollar.at("wording"), "0.85x (less per USD)");
  // Per W: the ratio of the two per-W figures, its interval from both spreads (wider than
  // either figure's own).
  const double pw =
      h200.at("per_watt").at("value").get<double>() / h100.at("per_watt").at("value").get<double>();
  EXPECT_NEAR(watt.at("value").get<double>(), pw, 1e-12);
  EXPECT_LT(watt.at("low").get<double>(), pw);
  EXPECT_GT(watt.at("high").get<double>(), pw);
  EXPECT_NEAR(headline(model(doc, k_h100.name), "bf16_tflops").at("per_price_ratio").at("value"),
              1.0, 1e-12);

  const CliResult text =
      gb({"models", "--prices", prices().string(), "--reference", "H100", "--wide"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  // The H100 leads per dollar: 1/ratio - 1 over [1/high - 1, 1/low - 1].
  const double r = dollar.at("value").get<double>();
  const std::string per_dollar = "H100 (FIXTURE) " + pct(1 / r) + " more per USD [" +
                                 pct(1 / dollar.at("high").get<double>()) + ", " +
                                 pct(1 / dollar.at("low").get<double>()) + "]";
  const std::string faster = "H200 (FIXTURE) " + pct(speed.at("value").get<double>()) +
                             " faster [" + pct(speed.at("low").get<double>()) + ", " +
                             pct(speed.at("high").get<double>()) + "]";
  const std::string per_watt = "H200 (FIXTURE) " + pct(pw) + " more per W [" +
                               pct(watt.at("low").get<double>()) + ", " +
                               pct(watt.at("high").get<double>()) + "]";
  EXPECT_TRUE(contains(
      text.out, "Purchase answer (against H100 (FIXTURE), 99% intervals):\n  BF16: " + per_dollar +
                    "; " + faster + "; " + per_watt + "\n"))
      << text.out;
  EXPECT_TRUE(contains(text.out,
                       "    dense BF16 TFLOP/s, headline benchmark "
                       "gemm/lt/dtype:bf16/m:8192/n:8192/k:8192/layout:tn/cache:cold\n"))
      << text.out;
  // Whole-node figure: no per price, and an interval holding 1 says so.
  EXPECT_TRUE(
      contains(text.out, "  Allreduce (8 GPUs): no clear difference in speed (H200 (FIXTURE) "))
      << text.out;
  // Without a reference there is no answer, and the text says how to get one.
  const CliResult none = gb({"models", "--prices", prices().string()});
  EXPECT_TRUE(contains(none.out, "--reference MODEL gives the purchase answer")) << none.out;
  // At 80 columns the sentence breaks between clauses, never inside one.
  const CliResult narrow =
      m_ws.run({"models", "--prices", prices().string(), "--reference", "H100", m_ws.db_arg()},
               {{"COLUMNS", "80"}});
  ASSERT_EQ(narrow.exit_code, 0) << narrow.err;
  EXPECT_LE(longest_line(narrow.out), 80u) << narrow.out;
  for (const std::string& clause : {per_dollar, faster, per_watt}) {
    EXPECT_TRUE(contains(narrow.out, clause)) << clause << "\n" << narrow.out;
  }
}

// Issue 39: memory in GiB as `show` prints it (80e9 bytes: 74.51 GiB), never GB.
TEST_F(E2eModels, MemoryInGibAsShowPrintsIt) {
  const CliResult text = gb({"models", "--prices", prices().string(), "--wide"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(
      contains(text.out, "memory 74.51 GiB, TDP 700.0 W, price 25000 USD, 0.002980 GiB/USD"))
      << text.out;
  EXPECT_TRUE(contains(text.out, "memory 131.32 GiB")) << text.out;
  EXPECT_TRUE(contains(gb({"show", "1"}).out, "memory 74.51 GiB"));
  EXPECT_FALSE(contains(text.out, " GB,")) << text.out;
  EXPECT_FALSE(contains(text.out, "GB/USD")) << text.out;
  const json doc = json::parse(gb({"models", "--format", "json"}).out);
  EXPECT_NEAR(model(doc, k_h100.name).at("memory_GiB").get<double>(), 80e9 / (1 << 30), 1e-9);
}

// Issue 39: per USD against per EUR is no comparison: refused, naming both lines and the fix;
// --currency with --rate converts, and the output says what was converted.
TEST_F(E2eModels, MixedCurrenciesAreRefusedUnlessConverted) {
  write_file_atomic(prices(), "# FIXTURE prices\nH100,25000,USD\nH200,30000,EUR\n");
  CliResult r = gb({"models", "--prices", prices().string(), "--reference", "H100"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.err, "mixed currencies in " + prices().string())) << r.err;
  EXPECT_TRUE(contains(r.err, "line 2 is in USD, line 3 in EUR")) << r.err;
  EXPECT_TRUE(contains(r.err, "--currency USD --rate EUR=RATE")) << r.err;
  r = gb({"models", "--prices", prices().string(), "--currency", "USD"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "add --rate EUR=RATE")) << r.err;
  r = gb({"models", "--prices", prices().string(), "--rate", "EUR=1.1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--rate without --currency")) << r.err;
  r = gb({"models", "--prices", prices().string(), "--currency", "USD", "--rate", "EUR=lots"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "bad --rate 'EUR=lots'")) << r.err;

  r = gb({"models", "--prices", prices().string(), "--currency", "usd", "--rate", "EUR=1.1",
          "--reference", "H100", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json h200 = model(json::parse(r.out), k_h200.name);
  EXPECT_NEAR(h200.at("price").at("value").get<double>(), 33000, 1e-9);
  EXPECT_EQ(h200.at("price").at("currency"), "USD");
  EXPECT_EQ(h200.at("price").at("written").at("currency"), "EUR");
  EXPECT_FALSE(headline(h200, "bf16_tflops").at("per_price_ratio").is_null());
  const CliResult text = gb({"models", "--prices", prices().string(), "--currency", "USD", "--rate",
                             "EUR=1.1", "--reference", "H100", "--wide"});
  EXPECT_TRUE(contains(text.out, "price 33000 USD (30000 EUR at 1.100)")) << text.out;
  EXPECT_TRUE(contains(text.out, "more per USD [")) << text.out;
}

// Issue 39: a weights pattern no benchmark matches is warned, and the composite is the others'
// renormalised (said so), not emptied.
TEST_F(E2eModels, UnmatchedWeightsPatternIsWarnedAndTheCompositeRenormalised) {
  const fs::path weights = m_ws.root() / "w.txt";
  write_file_atomic(weights, "# FIXTURE workload\ngemm/*/dtype:bf16/m:8192/* 70\nnonesuch 30\n");
  const CliResult r =
      gb({"models", "--weights", weights.string(), "--reference", "H100", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "gpubench: warning: " + weights.string() +
                                  ":3: pattern 'nonesuch' matches no benchmark of the selected "
                                  "runs; the composite is renormalised over the other patterns"))
      << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc.at("unmatched_weights"), json::array({"nonesuch"}));
  for (const FixtureModel* m : {&k_h100, &k_h200}) {
    const json& row = model(doc, m->name);
    const double bf16 = headline(row, "bf16_tflops").at("figure").at("value").get<double>();
    // Renormalised: the bf16 pattern alone carries weight 1.
    EXPECT_NEAR(row.at("composite").at("value").get<double>(), bf16, 1e-9 * bf16) << m->name;
    EXPECT_EQ(row.at("composite_missing"), json::array({"nonesuch"}));
  }
  EXPECT_FALSE(model(doc, k_h200.name).at("composite_ratio").is_null());
  const CliResult text =
      gb({"models", "--weights", weights.string(), "--reference", "H100", "--wide"});
  EXPECT_TRUE(contains(text.out,
                       "composite: 'nonesuch' matched no benchmark of this model; renormalised "
                       "over the other patterns"))
      << text.out;
}

// FIXTURE Google Benchmark file as a gpubench gemm suite writes it (made-up numbers): 4 GPUs of
// one model, each repetition carrying a power_w counter (a sample state, not a metric), and no
// NVML telemetry: what `gpubench import` of another site's results gives.
json imported_gemm(const std::string& host, bool with_power) {
  json devices = json::array();
  for (int d = 0; d < 4; ++d) {
    devices.push_back({{"index", d},
                       {"uuid", "GPU-IMPORT-FIXTURE-" + std::to_string(d)},
                       {"name", "NVIDIA H100 (IMPORT FIXTURE)"},
                       {"pci_bus_id", "0000:1" + std::to_string(d) + ":00.0"},
                       {"memory_bytes", 85'899'345'920}});
  }
  const json metrics = json::array({{{"name", "TFLOP_per_s"},
                                     {"unit", "TFLOP/s"},
                                     {"direction", "higher"},
                                     {"role", "primary"}}});
  json doc;
  doc["context"] = {{"date", "2026-12-03T07:00:00+00:00"},
                    {"host_name", host},
                    {"gpubench.suite", "gemm"},
                    {"gpubench.metrics", metrics.dump()},
                    {"gpubench.devices", devices.dump()}};
  doc["benchmarks"] = json::array();
  for (int d = 0; d < 4; ++d) {
    const std::string name = "gemm/lt/dtype:bf16/m:8192/n:8192/k:8192/device:" + std::to_string(d);
    for (int rep = 0; rep < 3; ++rep) {
      json counters = {{"TFLOP_per_s", 700.0 + 2 * d + rep}};
      if (with_power) counters["power_w"] = 600.0 + 10 * d + rep;
      doc["benchmarks"].push_back(iteration_entry({.name = name,
                                                   .repetition = rep,
                                                   .repetitions = 3,
                                                   .iterations = 10,
                                                   .real_time = 1.0,
                                                   .cpu_time = 1.0,
                                                   .time_unit = "ms"},
                                                  counters));
    }
  }
  return doc;
}

// Issue 39: per W of imported results from their samples' power_w (it was blank); where there is
// neither that nor telemetry, the output says `--power tdp` gives TDP.
TEST(E2eModelsImported, PerWattFromTheSamplesPowerCounters) {
  Workspace ws;
  const fs::path file = ws.root() / "gemm.json";
  write_file_atomic(file, imported_gemm("import-node-FIXTURE", true).dump());
  ASSERT_EQ(ws.run({"import", file.string(), ws.db_arg()}).exit_code, 0);
  const CliResult r = ws.run({"models", "--format", "json", ws.db_arg()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc.at("models").size(), 1u) << r.out;
  const json& row = doc.at("models")[0];
  EXPECT_EQ(row.at("power_units").at("samples"), 4) << row.dump(1);
  EXPECT_EQ(row.at("power_units").at("telemetry"), 0);
  EXPECT_NEAR(row.at("memory_GiB").get<double>(), 80, 1e-9) << "85.90 GB is 80 GiB";
  // Each GPU: the median of its repetitions over the median of their power.
  double logs = 0;
  for (int d = 0; d < 4; ++d) logs += std::log((701.0 + 2 * d) / (601.0 + 10 * d));
  const double expected = std::exp(logs / 4);
  const json* bf16 = nullptr;
  for (const json& h : row.at("headline")) {
    if (h.at("key") == "bf16_tflops") bf16 = &h;
  }
  ASSERT_NE(bf16, nullptr);
  EXPECT_NEAR(bf16->at("per_watt").at("value").get<double>(), expected, 1e-9 * expected);
  const CliResult text = ws.run({"models", "--wide", ws.db_arg()});
  EXPECT_TRUE(contains(text.out, "per W from measured power (the samples' power_w counters)"))
      << text.out;
  EXPECT_TRUE(contains(text.out, "memory 80 GiB")) << text.out;

  Workspace bare;
  const fs::path plain = bare.root() / "gemm.json";
  write_file_atomic(plain, imported_gemm("import-node-FIXTURE", false).dump());
  ASSERT_EQ(bare.run({"import", plain.string(), bare.db_arg()}).exit_code, 0);
  const CliResult hint = bare.run({"models", "--wide", bare.db_arg()});
  ASSERT_EQ(hint.exit_code, 0) << hint.err;
  EXPECT_TRUE(contains(hint.out,
                       "per W unknown: no measured power in these runs (neither NVML telemetry "
                       "nor power_w counters in the samples); --power tdp gives per W from TDP"))
      << hint.out;
}

// Issue 39 at fleet scale: a database of 100 FIXTURE nodes x 8 GPUs (one export each, merged by
// import). models and fleet say the runs and hosts in one short line, never a wrapped list.
TEST(E2eModelsFleetScale, RunsAndHostsSummarisedNeverWrapped) {
  Workspace ws;
  for (int node = 0; node < 100; ++node) {
    char host[16];
    std::snprintf(host, sizeof host, "node-%03d", node);
    FixtureModel m = k_h100;
    m.host = host;
    json doc = export_doc(m, 0);
    doc["run"]["uuid"] = run_uuid(host, node);
    // Fewer rows keep the fixture small: the memory suite only, and each GPU its own UUID.
    json results = json::array();
    for (const json& row : doc["results"]) {
      if (row.at("suite") == "memory") results.push_back(row);
    }
    doc["results"] = results;
    doc["telemetry"] = json::array();
    for (json& g : doc["environment"]["gpus"]) {
      g["uuid"] =
          "GPU-" + std::string(host) + "-FIXTURE-" + std::to_string(g["nvml_index"].get<int>());
    }
    const fs::path path = ws.root() / "node.json";
    write_file_atomic(path, doc.dump());
    ASSERT_EQ(ws.run({"import", path.string(), ws.db_arg()}).exit_code, 0) << node;
  }
  const std::string summary = "100 runs (1-100) on 100 hosts, node-000 … node-099";
  for (const std::string columns : {"80", "120"}) {
    const CliResult models = ws.run({"models", ws.db_arg()}, {{"COLUMNS", columns}});
    ASSERT_EQ(models.exit_code, 0) << models.err;
    EXPECT_TRUE(contains(models.out, "  800 GPU(s) pooled; " + summary + "\n")) << models.out;
    EXPECT_LE(longest_line(models.out), std::stoul(columns)) << models.out;
    EXPECT_FALSE(contains(models.out, "node-050")) << "no list of every host: " << models.out;
    const CliResult fleet = ws.run({"fleet", ws.db_arg()}, {{"COLUMNS", columns}});
    ASSERT_EQ(fleet.exit_code, 0) << fleet.err;
    EXPECT_TRUE(contains(fleet.out, "Fleet: " + summary + " (the newest run")) << fleet.out;
  }
}

}  // namespace
}  // namespace gpubench::e2e
