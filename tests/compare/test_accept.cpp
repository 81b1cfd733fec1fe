// Acceptance on fixtures: 8 GPUs of which one is 12% slow must be named by index, UUID and PCI
// bus; spec files parse with line:column errors; the interval, not the median, decides (PASS /
// MARGINAL / FAIL); identical runs pass; failed runs and skipped benchmarks fail with why.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "compare/accept/accept.hpp"
#include "compare/run_problems.hpp"
#include "fixtures.hpp"
#include "util/error.hpp"

using namespace gpubench::compare;
using namespace gpubench::compare::testing;
using gpubench::results::Direction;

namespace {

Side eight_gpus(const std::string& sel, double slow_factor, unsigned seed) {
  Side s;
  s.selection = sel;
  gpubench::results::RunDetail d;
  d.run.id = 1;
  d.run.status = gpubench::results::RunStatus::complete;
  for (int i = 0; i < 8; ++i) {
    gpubench::results::GpuInfo g;
    g.nvml_index = i;
    g.uuid = "GPU-fixture-" + std::to_string(i);
    g.pci_bus_id = "0000:" + std::to_string(10 + i) + ":00.0";
    d.info.gpus.push_back(g);
    double mean = i == 5 ? 400 * slow_factor : 400;
    s.results.push_back(row("transfer/h2d/bytes:1", "GB_per_s", "GB/s", Direction::higher,
                            normal_samples(mean, 0.005, 8, seed + static_cast<unsigned>(i)), i));
    s.results.back().gpu_uuid = g.uuid;  // ingest ties each result to its GPU by UUID
  }
  s.runs.push_back(d);
  return s;
}

}  // namespace

TEST(Accept, NamesTheBadGpuAmongSiblings) {
  AcceptResult r = accept_against_reference(eight_gpus("new", 0.88, 1), eight_gpus("ref", 1.0, 100),
                                            AcceptOptions{});
  EXPECT_FALSE(r.passed());
  ASSERT_EQ(r.outliers.size(), 1u);
  EXPECT_EQ(r.outliers[0].key.device, "gpu5");
  EXPECT_EQ(r.outliers[0].gpu_uuid, "GPU-fixture-5");
  EXPECT_EQ(r.outliers[0].pci_bus_id, "0000:15:00.0");
  std::size_t failed = 0;
  for (const auto& c : r.checks) {
    if (c.outcome == CheckOutcome::fail) {
      ++failed;
      EXPECT_EQ(c.key.device, "gpu5");
    }
  }
  EXPECT_EQ(failed, 1u);
  std::ostringstream text;
  render_accept_text(r, text);
  EXPECT_NE(text.str().find("GPU-fixture-5"), std::string::npos);
}

TEST(Accept, HealthyServerPasses) {
  AcceptResult r = accept_against_reference(eight_gpus("new", 1.0, 1), eight_gpus("ref", 1.0, 100),
                                            AcceptOptions{});
  EXPECT_TRUE(r.passed());
  EXPECT_EQ(r.checks.size(), 8u);
}

// A failed row remap (NVML) is the "send this GPU for service" signal: acceptance fails on it,
// naming the GPU, even when every performance check passes. A pending remap alone does not fail.
TEST(Accept, FailsOnARowRemapFailureAndNamesTheGpu) {
  Side run = eight_gpus("new", 1.0, 1);
  gpubench::results::TelemetrySummary ok, pending, failed;
  ok.nvml_index = 0;
  ok.gpu_uuid = "GPU-fixture-0";
  pending.nvml_index = 2;
  pending.gpu_uuid = "GPU-fixture-2";
  pending.remap_pending = true;
  failed.nvml_index = 3;
  failed.gpu_uuid = "GPU-fixture-3";
  failed.remap_failure = true;
  run.runs[0].telemetry = {ok, pending};
  EXPECT_TRUE(accept_against_reference(run, eight_gpus("ref", 1.0, 100), AcceptOptions{}).passed());
  run.runs[0].telemetry.push_back(failed);
  const AcceptResult r =
      accept_against_reference(run, eight_gpus("ref", 1.0, 100), AcceptOptions{});
  EXPECT_FALSE(r.passed());
  std::size_t failing = 0;
  for (const auto& c : r.checks) {
    if (c.outcome != CheckOutcome::fail) continue;
    ++failing;
    EXPECT_EQ(c.gpu_uuid, "GPU-fixture-3");
    EXPECT_EQ(c.pci_bus_id, "0000:13:00.0");
    EXPECT_NE(c.reason.find("send it for service"), std::string::npos) << c.reason;
  }
  EXPECT_EQ(failing, 1u);
  const std::vector<SpecRule> spec = parse_spec("transfer/* GB_per_s >= 1 GB/s\n", "s.spec");
  EXPECT_FALSE(accept_against_spec(run, spec, "s.spec", AcceptOptions{}).passed());
}

TEST(Accept, SpecFloorsUseTheIntervalBound) {
  std::vector<SpecRule> spec =
      parse_spec("# fixture\ntransfer/h2d/*  GB_per_s  >= 90% of 420 GB/s\n", "s.spec");
  ASSERT_EQ(spec.size(), 1u);
  EXPECT_DOUBLE_EQ(spec[0].limit, 378);
  EXPECT_TRUE(
      accept_against_spec(eight_gpus("new", 1.0, 1), spec, "s.spec", AcceptOptions{}).passed());
  // Median 400 just above a 399.9 floor, but with noise the interval straddles it: MARGINAL,
  // which passes by default and fails with --strict, and says how many repetitions would decide.
  std::vector<SpecRule> tight = parse_spec("transfer/*  GB_per_s  >= 399.9 GB/s\n", "t.spec");
  AcceptResult r = accept_against_spec(eight_gpus("new", 1.0, 1), tight, "t.spec", AcceptOptions{});
  EXPECT_GT(r.count(CheckOutcome::marginal), 0u);
  for (const auto& c : r.checks) {
    if (c.median >= 399.9) {
      EXPECT_NE(c.outcome, CheckOutcome::fail) << c.reason;
    }
    if (c.outcome == CheckOutcome::marginal) {
      EXPECT_GT(c.repetitions_needed, 0u) << c.reason;
    }
  }
  std::vector<SpecRule> near = parse_spec("transfer/*  GB_per_s  >= 398 GB/s\n", "t.spec");
  AcceptResult m = accept_against_spec(eight_gpus("new", 1.0, 1), near, "t.spec", AcceptOptions{});
  EXPECT_EQ(m.count(CheckOutcome::fail), 0u);
  EXPECT_TRUE(m.passed());
  AcceptOptions strict;
  strict.strict = true;
  EXPECT_FALSE(accept_against_spec(eight_gpus("new", 1.0, 1), tight, "t.spec", strict).passed());
  // Wholly below a floor: FAIL.
  std::vector<SpecRule> high = parse_spec("transfer/*  GB_per_s  >= 420 GB/s\n", "h.spec");
  EXPECT_EQ(accept_against_spec(eight_gpus("new", 1.0, 1), high, "h.spec", AcceptOptions{})
                .count(CheckOutcome::fail),
            8u);
}

// Issue 35: a run that measured transfer in `levels.size()` executions (one suite run each, its
// rows told apart by suite_run_id), 8 repetitions an execution around levels[e] GB/s, on one GPU.
namespace {
Side executions(const std::string& sel, const std::vector<double>& levels, unsigned seed) {
  Side s;
  s.selection = sel;
  gpubench::results::RunDetail d;
  d.run.id = 1;
  d.run.status = gpubench::results::RunStatus::complete;
  gpubench::results::GpuInfo g;
  g.uuid = "GPU-fixture-0";
  d.info.gpus.push_back(g);
  for (std::size_t e = 0; e < levels.size(); ++e) {
    gpubench::results::SuiteRunInfo suite;
    suite.suite = "transfer";
    d.suites.push_back(suite);
    d.suite_run_ids.push_back(11 + static_cast<int64_t>(e));
    s.results.push_back(row("transfer/h2d/bytes:1", "GB_per_s", "GB/s", Direction::higher,
                            normal_samples(levels[e], 0.002, 8, seed + static_cast<unsigned>(e)),
                            0));
    s.results.back().suite_run_id = d.suite_run_ids.back();
    s.results.back().gpu_uuid = g.uuid;
  }
  s.runs.push_back(d);
  return s;
}
}  // namespace

// Each execution is one sample (its median): the three executions' 5% spread decides the
// interval, not 24 repetitions pooled as if independent (which would PASS a 380 GB/s floor with
// an interval of about +-1%), and the advice names executions.
TEST(Accept, ExecutionsOfARunAreItsSamples) {
  const Side run = executions("new", {390, 400, 410}, 1);
  const std::vector<SpecRule> spec = parse_spec("transfer/* GB_per_s >= 380 GB/s\n", "s.spec");
  const AcceptResult r = accept_against_spec(run, spec, "s.spec", AcceptOptions{});
  ASSERT_EQ(r.checks.size(), 1u);
  const AcceptCheck& c = r.checks[0];
  EXPECT_EQ(c.n, 3u);
  EXPECT_TRUE(c.per_execution);
  EXPECT_NEAR(c.median, 400, 2);
  EXPECT_EQ(c.outcome, CheckOutcome::marginal) << c.reason;
  EXPECT_NE(c.reason.find("executions a side (--executions) would decide it"), std::string::npos)
      << c.reason;
  EXPECT_TRUE(accept_json(r)["checks"][0]["per_execution"].get<bool>());
  // Against a reference of three executions too: three samples a side.
  const AcceptResult against =
      accept_against_reference(run, executions("ref", {400, 400, 400}, 50), AcceptOptions{});
  ASSERT_EQ(against.checks.size(), 1u);
  EXPECT_EQ(against.checks[0].n, 3u);
  EXPECT_TRUE(against.checks[0].per_execution);
  // Its interval holds the spread between executions, and says so (not "within-run noise").
  EXPECT_NE(against.checks[0].reason.find("interval holds the noise between executions"),
            std::string::npos)
      << against.checks[0].reason;
  // Two executions of the suite, the series measured in one: too few executions, not samples.
  Side one = executions("one", {400, 400}, 1);
  one.results.pop_back();
  const AcceptCheck few = accept_against_spec(one, spec, "s.spec", AcceptOptions{}).checks.at(0);
  EXPECT_EQ(few.outcome, CheckOutcome::marginal);
  EXPECT_NE(few.reason.find("too few executions for an interval (1; need at least 2): rerun with "
                            "--executions 5"),
            std::string::npos)
      << few.reason;
  // One execution: the repetitions are the samples, as before.
  const AcceptCheck single =
      accept_against_spec(executions("single", {400}, 1), spec, "s.spec", AcceptOptions{})
          .checks.at(0);
  EXPECT_EQ(single.n, 8u);
  EXPECT_FALSE(single.per_execution);
}

TEST(Accept, IdenticalRunPassesAgainstItself) {
  // The complaint of issue 9: a noisy run (5% CV, 3 repetitions) failed against itself.
  Side s = eight_gpus("run", 1.0, 7);
  for (auto& r : s.results) r.values = normal_samples(68.7, 0.05, 3, 3);
  AcceptResult r = accept_against_reference(s, s, AcceptOptions{});
  EXPECT_EQ(r.count(CheckOutcome::fail), 0u);
  EXPECT_TRUE(r.passed());
}

// Issue 38: with history, a run against itself was "0% better, between -22.1% and +28.3%",
// MARGINAL and so FAIL under --strict. The same run on both sides has no run-to-run noise between
// its medians; another run of the same server does, and stays undecided with that much noise.
TEST(Accept, ARunAgainstItselfPassesStrictWhateverItsHistory) {
  Side s = eight_gpus("run", 1.0, 7);
  HistoryNoise history;
  for (const auto& row : s.results) {
    SeriesNoise n;
    n.log_sd = 0.06;  // a poisoned history: 6% run to run
    n.runs = 6;
    n.usable = true;
    history[Key{row.suite, row.benchmark, row.metric, device_label(row.device_index)}] = n;
  }
  AcceptOptions strict;
  strict.strict = true;
  strict.history = &history;
  strict.history_window = 10;
  AcceptResult self = accept_against_reference(s, s, strict);
  EXPECT_TRUE(self.passed());
  EXPECT_EQ(self.count(CheckOutcome::marginal), 0u);
  ASSERT_FALSE(self.checks.empty());
  EXPECT_NE(self.checks[0].reason.find("the run is its own reference"), std::string::npos)
      << self.checks[0].reason;
  Side other = s;
  other.runs[0].run.id = 2;
  AcceptResult rerun = accept_against_reference(other, s, strict);
  EXPECT_GT(rerun.count(CheckOutcome::marginal), 0u);
  EXPECT_NE(rerun.checks[0].reason.find("run-to-run noise from 6 runs of history"),
            std::string::npos)
      << rerun.checks[0].reason;
  EXPECT_FALSE(rerun.passed());
}

TEST(Accept, FailedRunFailsUnlessAllowed) {
  Side s = eight_gpus("run", 1.0, 7);
  s.runs[0].run.status = gpubench::results::RunStatus::failed;
  gpubench::results::SuiteRunInfo suite;
  suite.suite = "fixture_fail";
  suite.status = gpubench::results::SuiteStatus::failed;
  suite.exit_code = 3;
  suite.reason = "cannot allocate the test buffer";
  s.runs[0].suites.push_back(suite);
  std::vector<SpecRule> spec = parse_spec("transfer/* GB_per_s >= 1 GB/s\n", "s.spec");
  AcceptResult r = accept_against_spec(s, spec, "s.spec", AcceptOptions{});
  EXPECT_FALSE(r.passed());
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_NE(r.problems[1].find("fixture_fail failed (exit 3): cannot allocate"), std::string::npos);
  std::ostringstream text;
  render_accept_text(r, text);
  EXPECT_EQ(text.str().rfind("PROBLEM run 1 failed", 0), 0u) << text.str();
  AcceptOptions allow;
  allow.allow_failed = true;
  EXPECT_TRUE(accept_against_spec(s, spec, "s.spec", allow).passed());
}

// Issue 35: a run measures each suite in several executions, each its own suite run. A failed
// one is named by its place among its suite's suite runs in id order (not the vector's order).
TEST(RunProblems, NameTheExecutionOfASuiteThatFailed) {
  gpubench::results::RunDetail d;
  d.run.id = 4;
  d.run.status = gpubench::results::RunStatus::failed;
  const std::vector<std::pair<std::string, int64_t>> suite_runs = {
      {"memory", 10}, {"gemm", 11}, {"memory", 14}, {"memory", 12}, {"gemm", 13}};
  for (const auto& [name, id] : suite_runs) {
    gpubench::results::SuiteRunInfo s;
    s.suite = name;
    if (id == 12 || id == 13) {
      s.status = gpubench::results::SuiteStatus::crashed;
      s.term_signal = 11;
      s.reason = "killed by signal 11 (SIGSEGV)";
    }
    d.suites.push_back(s);
    d.suite_run_ids.push_back(id);
  }
  const std::vector<std::string> problems = gpubench::compare::run_problems(d);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems[1],
            "run 4: suite memory execution 2 of 3 crashed (signal 11): killed by signal 11 "
            "(SIGSEGV)");
  EXPECT_EQ(
      problems[2],
      "run 4: suite gemm execution 2 of 2 crashed (signal 11): killed by signal 11 (SIGSEGV)");
  // A suite with one suite run is named as before.
  d.suites.resize(2);
  d.suite_run_ids.resize(2);
  d.suites[0].status = gpubench::results::SuiteStatus::crashed;
  EXPECT_EQ(gpubench::compare::run_problems(d).at(1), "run 4: suite memory crashed");
}

TEST(Accept, SkippedBenchmarksFailWithTheirReasonNotMissing) {
  Side s = eight_gpus("run", 1.0, 7);
  for (int i = 0; i < 3; ++i) {
    gpubench::results::ResultRow skipped =
        row("gemm/bf16/m:" + std::to_string(1024 << i), "", "", Direction::unknown, {}, i);
    skipped.status = gpubench::results::BenchmarkStatus::skipped;
    skipped.message = "skipped: no NVIDIA driver (libcuda.so.1 not found)";
    s.results.push_back(skipped);
  }
  std::vector<SpecRule> spec = parse_spec("gemm/* TFLOP_per_s >= 50% of 989 TFLOP/s\n", "g.spec");
  AcceptResult r = accept_against_spec(s, spec, "g.spec", AcceptOptions{});
  EXPECT_TRUE(r.missing.empty());
  EXPECT_EQ(r.count(CheckOutcome::fail), 3u);
  EXPECT_FALSE(r.passed());
  std::ostringstream text;
  render_accept_text(r, text);
  EXPECT_NE(text.str().find("FAIL 3 benchmark(s) skipped: no NVIDIA driver"), std::string::npos)
      << text.str();
  // A rule that matches nothing at all is MISSING.
  std::vector<SpecRule> none = parse_spec("launch/* real_time <= 5 ns\n", "n.spec");
  EXPECT_EQ(accept_against_spec(s, none, "n.spec", AcceptOptions{}).missing.size(), 1u);
}

TEST(Accept, OfPeakChecksThePctOfPeakMetric) {
  std::vector<SpecRule> spec = parse_spec("gemm/* TFLOP_per_s >= 50% of peak\n", "p.spec");
  ASSERT_EQ(spec.size(), 1u);
  EXPECT_TRUE(spec[0].of_peak);
  EXPECT_DOUBLE_EQ(spec[0].limit, 50);
  Side s = eight_gpus("run", 1.0, 7);
  s.results.push_back(row("gemm/bf16/m:4096", "pct_of_peak", "%", Direction::higher,
                          normal_samples(40, 0.01, 5, 9), 0));
  // The metric the line names is the benchmark's too (issue 38: a line naming a metric its
  // benchmarks do not record is refused as a typo).
  s.results.push_back(row("gemm/bf16/m:4096", "TFLOP_per_s", "TFLOP/s", Direction::higher,
                          normal_samples(400, 0.01, 5, 10), 0));
  AcceptResult r = accept_against_spec(s, spec, "p.spec", AcceptOptions{});
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_EQ(r.checks[0].outcome, CheckOutcome::fail);
  EXPECT_NE(r.checks[0].reason.find("of peak"), std::string::npos);
  // The example in `accept --help` parses.
  EXPECT_GE(parse_spec(k_spec_example, "example").size(), 5u);
}

TEST(Accept, SpecSyntaxErrors) {
  auto message = [](const char* text) {
    try {
      parse_spec(text, "s.spec");
    } catch (const gpubench::Error& e) {
      EXPECT_EQ(e.code(), gpubench::ExitCode::bad_input);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("a/* m => 5 ms\n").find("s.spec:1:7"), std::string::npos);
  EXPECT_NE(message("\na/* m >= five ms\n").find("s.spec:2:10"), std::string::npos);
  EXPECT_NE(message("a/* m >= 5\n").find("s.spec:1:"), std::string::npos);
  EXPECT_NE(message("a/* m >= 50% of x GB/s\n").find("s.spec:1:17"), std::string::npos);
  EXPECT_NE(message("# only a comment\n").find("no rules"), std::string::npos);
  // Unit mismatch with the data is bad input too.
  std::vector<SpecRule> wrong_unit = parse_spec("transfer/* GB_per_s >= 1 MB/s\n", "u.spec");
  EXPECT_THROW(accept_against_spec(eight_gpus("n", 1.0, 1), wrong_unit, "u.spec", AcceptOptions{}),
               gpubench::Error);
}
