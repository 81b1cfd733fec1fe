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

TEST_F(E2eModels, MarkdownCsvAndHtmlCarryTheFigures) {
  const CliResult md = gb({"models", "--format", "md", "--reference", "H100"});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(contains(md.out, "## " + k_h200.name)) << md.out;
  EXPECT_TRUE(contains(md.out, "| dense BF16 TFLOP/s |")) << md.out;
  const CliResult csv = gb({"models", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_TRUE(contains(csv.out, "NVIDIA H200 (FIXTURE),8,unknown,bf16_tflops,")) << csv.out;
  const CliResult html = gb({"models", "--format", "html"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_EQ(compare::testing::check_markup(html.out, true), "");
  // One chart per headline figure measured (bf16, memory, allreduce), both models in each.
  std::size_t charts = 0;
  for (std::size_t at = html.out.find("<svg"); at != std::string::npos;
       at = html.out.find("<svg", at + 1)) {
    ++charts;
    const std::string chart = html.out.substr(at, html.out.find("</svg>", at) - at);
    EXPECT_TRUE(contains(chart, "NVIDIA H100 (FIXTURE) x8")) << chart;
    EXPECT_TRUE(contains(chart, "NVIDIA H200 (FIXTURE) x8")) << chart;
    EXPECT_TRUE(contains(chart, "class=\"ci\"")) << "intervals drawn: " << chart;
  }
  EXPECT_EQ(charts, 3u);
  // Laid out in headless Chromium: every label and tick inside its chart, none overlapping.
  const fs::path page = m_ws.root() / "models.html";
  write_file_atomic(page, html.out);
  const std::string check = chromium_chart_check(page, m_ws.root());
  if (check.empty()) GTEST_SKIP() << "no Chromium here: the layout check needs one";
  EXPECT_EQ(check, "labels=6 OK") << check;
  // The fleet's HTML: the series with the outlier, every GPU a bar.
  const CliResult fleet = gb({"fleet", "--format", "html", "--suite", "memory"});
  EXPECT_EQ(fleet.exit_code, 1);
  EXPECT_EQ(compare::testing::check_markup(fleet.out, true), "");
  const fs::path fleet_page = m_ws.root() / "fleet.html";
  write_file_atomic(fleet_page, fleet.out);
  EXPECT_EQ(chromium_chart_check(fleet_page, m_ws.root()), "labels=8 OK");
}

}  // namespace
}  // namespace gpubench::e2e
