// End-to-end (issue 9): the real gpubench CLI with the real calibration and memory suites and the
// fixture suites, real SQLite files in a temp directory.
//  - accept N --against N passes; a rerun on this machine passes against a baseline of the first;
//  - a failed (fixture) suite is named with its reason at the top of report (text, HTML) and
//    accept, which fails the run unless --allow-failed;
//  - a 10% calibration effect counts one regression per benchmark (primary metric), not three;
//    work_units is never compared;
//  - export -> import into an empty database keeps every sample: the same comparison gives the
//    same figures in both databases; merging a database twice adds nothing the second time;
//  - a Google Benchmark file written by a gpubench suite keeps its GPU facts (gpu:MODEL works).
// Skips when the suites are not built.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "chromium_labels.hpp"
#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

bool suites_built() {
  return fs::exists(fs::path(GPUBENCH_BIN_DIR) / "gpubench-calibration") &&
         fs::exists(fs::path(GPUBENCH_BIN_DIR) / "gpubench-memory");
}

std::vector<std::string> with_db(const Workspace& ws, std::vector<std::string> args,
                                 const fs::path& db = {}) {
  args.insert(args.begin(), "--db=" + (db.empty() ? ws.db() : db).string());
  return args;
}

int run_count(const Workspace& ws, const fs::path& db) {
  CliResult r = ws.run(with_db(ws, {"runs", "--format", "json"}, db));
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded()) return -1;
  if (j.is_object() && j.contains("runs")) return static_cast<int>(j["runs"].size());
  return static_cast<int>(j.size());
}

// Forest-plot labels per chart, from the markup: every <text class="lab"> inside each <svg>.
std::vector<std::vector<std::string>> chart_labels(const std::string& html) {
  std::vector<std::vector<std::string>> charts;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at)) {
    const std::size_t end = html.find("</svg>", at);
    std::vector<std::string> labels;
    const std::string marker = "class=\"lab\">";
    for (std::size_t l = html.find(marker, at); l != std::string::npos && l < end;
         l = html.find(marker, l + 1)) {
      const std::size_t from = l + marker.size();
      labels.push_back(html.substr(from, html.find('<', from) - from));
    }
    charts.push_back(labels);
    at = end;
  }
  return charts;
}

// Lays the page out in headless Chromium and measures every label: "OK" or what is clipped
// (outside its SVG's view box) or repeated within a chart. The check script is added to a copy;
// the report itself has no scripts.
std::string chromium_label_check(const std::string& chromium, const fs::path& html,
                                 const fs::path& dir) {
  return chromium_script_result(chromium, html, dir, R"(
document.querySelectorAll('svg.chart').forEach((svg,i)=>{
  const w=svg.viewBox.baseVal.width; const seen=new Set();
  svg.querySelectorAll('text.lab').forEach(t=>{
    const b=t.getBBox();
    if(b.x<0||b.x+b.width>w+0.5) out.push('clipped in chart '+i+': '+t.textContent);
    if(seen.has(t.textContent)) out.push('repeated in chart '+i+': '+t.textContent);
    seen.add(t.textContent);});});
const problems=out.splice(0);
out.push('labels='+document.querySelectorAll('text.lab').length+' '+(problems.length?problems.join(' | '):'OK'));
)");
}

class AcceptExchange : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!suites_built()) GTEST_SKIP() << "gpubench-calibration or gpubench-memory not built";
  }
  CliResult gb(std::vector<std::string> args, const fs::path& db = {},
               const std::vector<std::pair<std::string, std::string>>& env = {}) {
    return m_ws.run(with_db(m_ws, std::move(args), db), env, 600);
  }
  CliResult calibration(const char* scale, const char* tag) {
    return gb({"run", "--suite", "calibration", "--executions", "6", "--repetitions", "2", "--tag",
               tag},
              {}, {{"GPUBENCH_CALIBRATION_SCALE", scale}});
  }
  Workspace m_ws;
};

// Memory runs are single-threaded here: on the 2-core CI machine the 2-thread cases share both
// cores with everything else, and whole runs of them were measured 28-43% apart with nothing
// else of ours running. That is a real difference between two runs, which acceptance rightly
// fails; acceptance intervals hold run-to-run noise from history only once 3 runs of it exist.
const std::vector<std::string> k_memory_run = {"run",       "--suite",  "memory",
                                               "--profile", "quick",    "--repetitions",
                                               "3",         "--filter", "threads:1/"};

TEST_F(AcceptExchange, IdenticalRunsAndReruns) {
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(gb(k_memory_run).exit_code, 0);
  }
  ASSERT_EQ(calibration("1.0", "scale=1.0").exit_code, 0);
  for (const char* id : {"1", "3"}) {
    CliResult self = gb({"accept", id, "--against", id});
    EXPECT_EQ(self.exit_code, 0) << self.out << self.err;
    EXPECT_NE(self.out.find(": PASS ("), std::string::npos) << self.out;
    EXPECT_NE(self.out.find(" 0 fail "), std::string::npos) << self.out;
  }
  ASSERT_EQ(gb({"baseline", "set", "golden", "1"}).exit_code, 0);
  // A rerun's interval holds only its own repetitions' noise (one run of history here, fewer than
  // the 3 that run-to-run noise needs). On this shared 2-core VM another
  // tenant can slow a whole run by 30% (measured: host_add threads:2 at -40%..-17% during a full
  // ctest run), which acceptance rightly calls FAIL; so, like the compare e2e test, a rerun that
  // fails is measured again (at most 3 attempts) and the assertions apply to the last one.
  const char* candidate = "2";
  CliResult rerun = gb({"accept", candidate, "--against", "baseline:golden", "--format", "json"});
  for (int attempt = 1; attempt < 3 && rerun.exit_code == 1; ++attempt) {
    ASSERT_EQ(gb(k_memory_run).exit_code, 0);
    candidate = "latest";
    rerun = gb({"accept", candidate, "--against", "baseline:golden", "--format", "json"});
  }
  EXPECT_EQ(rerun.exit_code, 0) << rerun.out << rerun.err;
  nlohmann::json doc = nlohmann::json::parse(rerun.out);
  EXPECT_EQ(doc["counts"]["fail"], 0) << rerun.out;
  // One check per benchmark: the suite's primary metric only (no real_time, no pct_of_peak).
  for (const auto& c : doc["checks"]) EXPECT_EQ(c["metric"], "GB_per_s") << c.dump();
  // The device cases were skipped on both sides: nothing to hold them to, nothing missing.
  EXPECT_TRUE(doc["missing"].empty()) << rerun.out;
  // --strict turns MARGINAL into a failure; it can only be stricter.
  CliResult strict = gb({"accept", candidate, "--against", "baseline:golden", "--strict"});
  EXPECT_TRUE(strict.exit_code == 0 || strict.exit_code == 1) << strict.out;
}

TEST_F(AcceptExchange, FailedSuiteIsNamedEverywhere) {
  CliResult run =
      gb({"run", "--suite", "fixture_fail", "--suite", "calibration", "--repetitions", "3"});
  EXPECT_NE(run.exit_code, 0) << run.out;
  CliResult text = gb({"report", "1"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.rfind("PROBLEM run 1", 0), 0u) << text.out;
  EXPECT_NE(text.out.find("suite fixture_fail failed"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("cannot allocate the test buffer"), std::string::npos) << text.out;
  const fs::path html = m_ws.root() / "failed.html";
  ASSERT_EQ(gb({"report", "1", "--format", "html", "-o", html.string()}).exit_code, 0);
  const std::string page = read_file(html);
  EXPECT_NE(page.find("class=\"problem\""), std::string::npos);
  EXPECT_NE(page.find("fixture_fail"), std::string::npos);
  EXPECT_NE(page.find("cannot allocate the test buffer"), std::string::npos);
  CliResult json = gb({"report", "1", "--format", "json"});
  EXPECT_FALSE(nlohmann::json::parse(json.out)["problems"].empty()) << json.out;
  CliResult show = gb({"show", "1"});
  EXPECT_EQ(show.out.rfind("PROBLEM", 0), 0u) << show.out;
  const fs::path spec = m_ws.root() / "ok.spec";
  write_file_atomic(spec, "# fixture spec\ncalibration/* calls_per_s >= 1 calls/s\n");
  CliResult accept = gb({"accept", "1", "--spec", spec.string()});
  EXPECT_EQ(accept.exit_code, 1) << accept.out;
  EXPECT_NE(accept.out.find("PROBLEM run 1"), std::string::npos) << accept.out;
  CliResult allowed = gb({"accept", "1", "--spec", spec.string(), "--allow-failed"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out;
}

TEST_F(AcceptExchange, TenPercentEffectCountsOncePerBenchmark) {
  nlohmann::json doc;
  int regressions = 0;
  for (int attempt = 0; attempt < 3 && regressions == 0; ++attempt) {
    ASSERT_EQ(calibration("1.0", "scale=1.0").exit_code, 0);
    ASSERT_EQ(calibration("1.1", "scale=1.1").exit_code, 0);
    CliResult r = gb({"compare", "latest~1", "latest", "--format", "json", "--threshold", "2%",
                      "--history", "0", "--fail-on", "never"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    doc = nlohmann::json::parse(r.out);
    regressions = doc["counts"]["regression"].get<int>();
  }
  int primary_regressions = 0, benchmarks = 0, secondary = 0;
  std::set<std::string> names;
  for (const auto& e : doc["results"]) {
    EXPECT_NE(e["metric"], "work_units") << "a case parameter was compared";
    names.insert(e["benchmark"].get<std::string>());
    if (e["primary"] == true) {
      ++benchmarks;
      EXPECT_EQ(e["metric"], "calls_per_s");
      primary_regressions += e["verdict"] == "regression" ? 1 : 0;
    } else {
      ++secondary;
    }
  }
  EXPECT_EQ(benchmarks, static_cast<int>(names.size()));  // one primary entry per benchmark
  EXPECT_GT(secondary, 0);                                // ms_per_call, real_time: shown
  EXPECT_EQ(regressions, primary_regressions);
  EXPECT_GE(regressions, 1);
  EXPECT_LE(regressions, benchmarks);  // before roles: up to 3 per benchmark
}

TEST_F(AcceptExchange, ExportImportAndMergeAreLosslessAndIdempotent) {
  ASSERT_EQ(calibration("1.0", "server=a").exit_code, 0);
  ASSERT_EQ(calibration("1.0", "server=b").exit_code, 0);
  const fs::path exported = m_ws.root() / "run1.json";
  ASSERT_EQ(gb({"export", "1", "--format", "json", "-o", exported.string()}).exit_code, 0);
  const fs::path other = m_ws.root() / "other.db";
  CliResult imp = gb({"import", exported.string()}, other);
  ASSERT_EQ(imp.exit_code, 0) << imp.out << imp.err;
  EXPECT_NE(imp.out.find("1 run(s) added"), std::string::npos) << imp.out;
  CliResult again = gb({"import", exported.string()}, other);
  EXPECT_NE(again.out.find("0 run(s) added, 1 already present"), std::string::npos) << again.out;
  EXPECT_EQ(run_count(m_ws, other), 1);
  // The imported run carries every sample: its export equals the original's results.
  CliResult back = gb({"export", "1", "--format", "json"}, other);
  nlohmann::json a = nlohmann::json::parse(read_file(exported));
  nlohmann::json b = nlohmann::json::parse(back.out);
  EXPECT_EQ(a["run"]["uuid"], b["run"]["uuid"]);
  ASSERT_EQ(a["results"].size(), b["results"].size());
  for (std::size_t i = 0; i < a["results"].size(); ++i) {
    EXPECT_EQ(a["results"][i]["values"], b["results"][i]["values"]) << i;
    EXPECT_EQ(a["results"][i]["role"], b["results"][i]["role"]) << i;
  }
  EXPECT_EQ(a["environment"], b["environment"]);
  // Merge the whole first database: run 2 arrives, run 1 is recognised by its UUID; twice.
  CliResult merge = gb({"import", m_ws.db().string()}, other);
  ASSERT_EQ(merge.exit_code, 0) << merge.out << merge.err;
  EXPECT_NE(merge.out.find("1 run(s) added, 1 already present"), std::string::npos) << merge.out;
  EXPECT_EQ(run_count(m_ws, other), 2);
  CliResult merge2 = gb({"import", m_ws.db().string()}, other);
  EXPECT_NE(merge2.out.find("0 run(s) added, 2 already present"), std::string::npos) << merge2.out;
  EXPECT_EQ(run_count(m_ws, other), 2);
  // The same comparison in both databases gives the same figures (the imported run is A of A/A).
  auto figures = [&](const fs::path& db) {
    CliResult r = gb({"compare", "tag:server=a", "tag:server=b", "--format", "json", "--history",
                      "0", "--fail-on", "never"},
                     db);
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    nlohmann::json out = nlohmann::json::array();
    if (j.is_discarded()) return out;
    for (const auto& e : j["results"])
      out.push_back(
          {e["benchmark"], e["metric"], e["ratio"], e["ci_low"], e["ci_high"], e["verdict"]});
    return out;
  };
  nlohmann::json here = figures(m_ws.db());
  EXPECT_FALSE(here.empty());
  EXPECT_EQ(here, figures(other));
  // Merging into itself is refused, and the database is left alone.
  CliResult self = gb({"import", m_ws.db().string()});
  EXPECT_EQ(self.exit_code, 2) << self.out << self.err;
}

TEST_F(AcceptExchange, GoogleBenchmarkFileKeepsItsGpuFacts) {
  // FIXTURE: a Google Benchmark file as a gpubench GPU suite writes it; the device facts are
  // made up (labelled), the importer must keep them.
  const fs::path file = m_ws.root() / "fixture_gemm.json";
  write_file_atomic(file, R"({
  "context": {"date": "2026-12-02T16:29:34+00:00", "host_name": "fixture-host",
              "gpubench.suite": "gemm", "gpubench.version": "9.9.9-fixture",
              "gpubench.devices": "[{\"index\":0,\"uuid\":\"GPU-fixture-0\",\"name\":\"NVIDIA H200\",\"pci_bus_id\":\"0000:19:00.0\",\"cc\":\"9.0\",\"sm_count\":132}]",
              "gpubench.metrics": "[{\"name\":\"TFLOP_per_s\",\"unit\":\"TFLOP/s\",\"direction\":\"higher\",\"role\":\"primary\"}]"},
  "benchmarks": [
    {"name": "gemm/bf16/m:4096/device:0", "run_name": "gemm/bf16/m:4096/device:0",
     "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "iterations": 1,
     "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ms", "TFLOP_per_s": 700.0}]
})");
  CliResult r = gb({"import", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  CliResult show = gb({"show", "1", "--format", "json"});
  nlohmann::json j = nlohmann::json::parse(show.out);
  ASSERT_EQ(j["environment"]["gpus"].size(), 1u) << show.out;
  EXPECT_EQ(j["environment"]["gpus"][0]["name"], "NVIDIA H200");
  EXPECT_EQ(j["environment"]["gpus"][0]["uuid"], "GPU-fixture-0");
  EXPECT_EQ(j["environment"]["software"]["gpubench_version"], "9.9.9-fixture");
  // gpu:MODEL now finds the imported run.
  CliResult sel = gb({"accept", "gpu:H200", "--against", "1"});
  EXPECT_EQ(sel.exit_code, 0) << sel.out << sel.err;
}

TEST_F(AcceptExchange, HtmlLabelsAreWholeAndUniqueInChromium) {
  ASSERT_EQ(calibration("1.0", "scale=1.0").exit_code, 0);
  ASSERT_EQ(calibration("1.1", "scale=1.1").exit_code, 0);
  const fs::path html = m_ws.root() / "compare.html";
  ASSERT_EQ(gb({"compare", "1", "2", "--format", "html", "--fail-on", "never", "-o", html.string()})
                .exit_code,
            0);
  // Structural (always): labels are whole (no ellipsis), unique per chart, in numeric order,
  // without Google Benchmark's run-control noise.
  const std::string page = read_file(html);
  std::vector<std::vector<std::string>> charts = chart_labels(page);
  std::size_t total = 0;
  for (const auto& labels : charts) {
    std::set<std::string> unique(labels.begin(), labels.end());
    EXPECT_EQ(unique.size(), labels.size());
    for (const std::string& l : labels) {
      ++total;
      EXPECT_EQ(l.find("…"), std::string::npos) << l;
      EXPECT_EQ(l.find("iterations:"), std::string::npos) << l;
      EXPECT_EQ(l.find("manual_time"), std::string::npos) << l;
    }
  }
  ASSERT_GT(total, 0u) << "no forest plot labels";
  EXPECT_LT(page.find("base_units:250k"), page.find("base_units:1M"));  // numeric, not string order
  // Rendered (when Chromium is installed; ci/setup installs it): no label clipped or repeated.
  const std::string chromium = find_chromium_binary();
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed: layout check skipped";
  const std::string result = chromium_label_check(chromium, html, m_ws.root());
  EXPECT_EQ(result, "labels=" + std::to_string(total) + " OK");
}

}  // namespace
}  // namespace gpubench::e2e
