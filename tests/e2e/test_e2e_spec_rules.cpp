// Issue 38, specs (`accept --spec`), end to end through the real CLI: a misspelled metric named
// with a did-you-mean, "% of peak" above 100 refused, overlapping lines decided per benchmark and
// metric by the last matching line, skipped cases counted under the line that matched them, and
// hardware expectations counted per model and attributed to where they were written.
// FIXTURES: a made-up 4-GPU gemm "server" (UUIDs GPU-FIXTURE-SPEC-N) written as Google Benchmark
// JSON and imported; every number is invented, not a measurement.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

constexpr int k_gpus = 4;

// The gemm suite's JSON: bf16 and fp32 cases on each GPU, TFLOP_per_s (primary) and pct_of_peak.
// bf16 runs at 600 TFLOP/s (60% of peak), fp32 at 50 TFLOP/s (5% of peak). With `skip`, every case
// is skipped for that reason and no GPU is recorded (the driver is gone).
std::string gemm_file(const std::string& model, const std::string& skip = "") {
  json devices = json::array();
  if (skip.empty()) {
    for (int i = 0; i < k_gpus; ++i) {
      devices.push_back({{"index", i},
                         {"uuid", "GPU-FIXTURE-SPEC-" + std::to_string(i)},
                         {"name", model},
                         {"pci_bus_id", "0000:" + std::to_string(20 + i) + ":00.0"}});
    }
  }
  const json metrics = json::array(
      {{{"name", "TFLOP_per_s"}, {"unit", "TFLOP/s"}, {"direction", "higher"}, {"role", "primary"}},
       {{"name", "pct_of_peak"}, {"unit", "%"}, {"direction", "higher"}, {"role", "secondary"}}});
  json doc;
  doc["context"] = {{"date", "2026-12-04T07:00:00+00:00"},
                    {"host_name", "fixture-spec-host"},
                    {"gpubench.suite", "gemm"},
                    {"gpubench.metrics", metrics.dump()},
                    {"gpubench.devices", devices.dump()}};
  doc["benchmarks"] = json::array();
  for (int i = 0; i < k_gpus; ++i) {
    for (const auto& [dtype, tflops] : {std::pair{"bf16", 600.0}, std::pair{"fp32", 50.0}}) {
      const std::string name = std::string("gemm/matmul/dtype:") + dtype +
                               "/device:" + std::to_string(i) + "/manual_time";
      if (!skip.empty()) {
        doc["benchmarks"].push_back({{"name", name},
                                     {"run_name", name},
                                     {"run_type", "iteration"},
                                     {"iterations", 0},
                                     {"real_time", 0},
                                     {"cpu_time", 0},
                                     {"time_unit", "us"},
                                     {"error_occurred", true},
                                     {"error_message", "skipped: " + skip}});
        continue;
      }
      for (int rep = 0; rep < 5; ++rep) {
        const double v = tflops * (1.0 + 0.001 * rep);
        doc["benchmarks"].push_back(
            iteration_entry({.name = name,
                             .repetition = rep,
                             .repetitions = 5,
                             .iterations = 20,
                             .real_time = 100.0,
                             .cpu_time = 10.0,
                             .time_unit = "us"},
                            {{"TFLOP_per_s", v}, {"pct_of_peak", v / 10.0}}));
      }
    }
  }
  return doc.dump(1);
}

void import(const Workspace& ws, const std::string& file, const std::string& content) {
  const fs::path path = ws.root() / file;
  write_file_atomic(path, content);
  const CliResult r = ws.run({"import", path.string(), ws.db_arg()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
}

fs::path spec_file(const Workspace& ws, const std::string& text) {
  const fs::path path = ws.root() / "fixture.spec";
  write_file_atomic(path, "# FIXTURE spec\n" + text);
  return path;
}

CliResult accept_json(const Workspace& ws, const fs::path& spec,
                      const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"accept", "1", "--spec", spec.string(), "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(ws.db_arg());
  return ws.run(args);
}

// The spec lines named in the checks' reasons, per outcome: "FAIL line 3" -> count.
std::map<std::string, int> outcomes_by_line(const json& doc) {
  std::map<std::string, int> out;
  for (const json& c : doc.at("checks")) {
    const std::string reason = c.at("reason").get<std::string>();
    const std::size_t at = reason.find("(spec line ");
    const std::string line =
        at == std::string::npos ? "?" : reason.substr(at + 11, reason.find(')', at) - at - 11);
    ++out[c.at("outcome").get<std::string>() + " " + c.at("metric").get<std::string>() + " line " +
          line];
  }
  return out;
}

TEST(E2eSpecRules, AMisspelledMetricIsRefusedWithTheNearName) {
  Workspace ws;
  import(ws, "gemm.json", gemm_file("NVIDIA H200 (FIXTURE)"));
  const CliResult r = accept_json(
      ws, spec_file(ws, "gemm/* TFLOP_per_s >= 1 TFLOP/s\ngemm/* TFLOPs >= 1 TFLOP/s\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "spec line 3")) << r.err;  // line 1 is the fixture comment
  EXPECT_TRUE(contains(r.err, "names metric 'TFLOPs'")) << r.err;
  EXPECT_TRUE(contains(r.err, "did you mean 'TFLOP_per_s'?")) << r.err;
  EXPECT_TRUE(r.out.empty()) << "refused before any verdict: " << r.out;
  // The metric a "% of peak" line names is checked too.
  const CliResult peak = accept_json(ws, spec_file(ws, "gemm/* TFLOP_per_sec >= 50% of peak\n"));
  EXPECT_EQ(peak.exit_code, 2) << peak.out << peak.err;
  EXPECT_TRUE(contains(peak.err, "did you mean 'TFLOP_per_s'?")) << peak.err;
}

TEST(E2eSpecRules, PercentOfPeakAbove100IsRefused) {
  Workspace ws;
  import(ws, "gemm.json", gemm_file("NVIDIA H200 (FIXTURE)"));
  const CliResult r = accept_json(ws, spec_file(ws, "gemm/* TFLOP_per_s >= 150% of peak\n"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "fixture.spec:2:")) << r.err;
  EXPECT_TRUE(contains(r.err, "above 100%")) << r.err;
  EXPECT_EQ(accept_json(ws, spec_file(ws, "gemm/* TFLOP_per_s >= 100% of peak\n")).exit_code, 1)
      << "100% is a (hard) requirement, not an error";
}

TEST(E2eSpecRules, TheLastMatchingLinePerBenchmarkAndMetricDecides) {
  Workspace ws;
  import(ws, "gemm.json", gemm_file("NVIDIA H200 (FIXTURE)"));
  // General line first, the bf16 exception after: bf16 is held to line 3 (fails), fp32 to line 2.
  // The "% of peak" line checks pct_of_peak beside them (bf16 60% passes, fp32 5% fails).
  const CliResult r =
      accept_json(ws, spec_file(ws,
                                "gemm/*              TFLOP_per_s >= 10 TFLOP/s\n"
                                "gemm/*/dtype:bf16/* TFLOP_per_s >= 1000 TFLOP/s\n"
                                "gemm/*              TFLOP_per_s >= 50% of peak\n"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(outcomes_by_line(doc),
            (std::map<std::string, int>{{"FAIL TFLOP_per_s line 3", k_gpus},
                                        {"PASS TFLOP_per_s line 2", k_gpus},
                                        {"PASS pct_of_peak line 4", k_gpus},
                                        {"FAIL pct_of_peak line 4", k_gpus}}))
      << r.out;
  EXPECT_TRUE(doc.at("missing").empty()) << doc.at("missing");

  // The other order: the general line comes last and decides every gemm case; the bf16 line is
  // overridden everywhere (as documented), neither checked nor "matched no benchmark".
  const CliResult swapped =
      accept_json(ws, spec_file(ws,
                                "gemm/*/dtype:bf16/* TFLOP_per_s >= 1000 TFLOP/s\n"
                                "gemm/*              TFLOP_per_s >= 10 TFLOP/s\n"));
  EXPECT_EQ(swapped.exit_code, 0) << swapped.out << swapped.err;
  const json doc2 = json::parse(swapped.out);
  EXPECT_EQ(outcomes_by_line(doc2),
            (std::map<std::string, int>{{"PASS TFLOP_per_s line 3", 2 * k_gpus}}))
      << swapped.out;
  EXPECT_TRUE(doc2.at("missing").empty()) << doc2.at("missing");

  // accept --help states that rule.
  const CliResult help = ws.run({"accept", "--help"});
  EXPECT_TRUE(contains(help.out, "the LAST line whose glob matches the")) << help.out;
  EXPECT_FALSE(contains(help.out, "the last matching rule wins")) << help.out;
}

TEST(E2eSpecRules, SkippedCasesCountUnderEveryLineThatMatchedThem) {
  Workspace ws;
  import(ws, "gpuless.json",
         gemm_file("", "no CUDA device (cudaGetDeviceCount found 0 devices; FIXTURE)"));
  // The shape of accept --help's example: a "% of peak" line, then a bf16 line on TFLOP_per_s.
  const fs::path spec = spec_file(ws,
                                  "gemm/*              TFLOP_per_s >= 50% of peak\n"
                                  "gemm/*/dtype:bf16/* TFLOP_per_s >= 70% of 989 TFLOP/s\n");
  const CliResult r = accept_json(ws, spec);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json doc = json::parse(r.out);
  EXPECT_TRUE(doc.at("missing").empty())
      << "line 3 matched the skipped bf16 cases: " << doc.at("missing");
  EXPECT_EQ(outcomes_by_line(doc),
            (std::map<std::string, int>{{"FAIL pct_of_peak line 2", 2 * k_gpus},
                                        {"FAIL TFLOP_per_s line 3", k_gpus}}))
      << r.out;
  const CliResult text = ws.run({"accept", "1", "--spec", spec.string(), ws.db_arg()});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_FALSE(contains(text.out, "matched no benchmark")) << text.out;
  EXPECT_TRUE(contains(text.out, "FAIL " + std::to_string(k_gpus) +
                                     " benchmark(s) skipped: no CUDA device "
                                     "(cudaGetDeviceCount found 0 devices; FIXTURE) (spec line 3)"))
      << text.out;
}

TEST(E2eSpecRules, HardwareIsCountedPerModelAndAttributedToItsSource) {
  Workspace ws;
  import(ws, "h100.json", gemm_file("NVIDIA H100 (FIXTURE)"));
  const fs::path spec = spec_file(ws,
                                  "gemm/* TFLOP_per_s >= 1 TFLOP/s\n"
                                  "expect_gpu_model \"H200\"\n");
  const std::string at_line_3 = "spec " + spec.string() + " line 3";
  const CliResult r = ws.run({"accept", "1", "--spec", spec.string(), "--expect-gpus", "16",
                              "--format", "json", ws.db_arg()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json doc = json::parse(r.out);
  std::vector<std::string> hw = doc.at("hardware").get<std::vector<std::string>>();
  ASSERT_EQ(hw.size(), static_cast<std::size_t>(k_gpus) + 1) << r.out;
  for (int i = 0; i < k_gpus; ++i) {
    EXPECT_TRUE(
        contains(hw[i], "is \"NVIDIA H100 (FIXTURE)\", expected \"H200\" (" + at_line_3 + ")"))
        << hw[i];
  }
  EXPECT_EQ(hw.back(),
            "incomplete: expected 16 \"H200\" GPUs, found 0 \"H200\" (4 GPU(s) of "
            "another model, named above) [expected by --expect-gpus; model by " +
                at_line_3 + "]");
  // A count written in the spec is attributed to its own line.
  const fs::path spec2 = spec_file(ws, "gemm/* TFLOP_per_s >= 1 TFLOP/s\nexpect_gpus 8\n");
  const CliResult by_line = ws.run({"accept", "1", "--spec", spec2.string(), ws.db_arg()});
  EXPECT_EQ(by_line.exit_code, 1) << by_line.out;
  EXPECT_TRUE(
      contains(by_line.out, "HARDWARE incomplete: expected 8 GPUs, found 4 [expected by spec " +
                                spec2.string() + " line 3]"))
      << by_line.out;
}

}  // namespace
}  // namespace gpubench::e2e
