// Acceptance on fixtures: 8 GPUs of which one is 12% slow must be named by index, UUID and PCI
// bus; spec files parse with line:column errors; the interval bound, not the median, decides.
#include <gtest/gtest.h>

#include <sstream>

#include "compare/accept.hpp"
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
    if (!c.pass) {
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
    if (c.pass) continue;
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
  // Median 400 just above a 399.9 floor, but with noise the lower bound is below it: fail.
  std::vector<SpecRule> tight = parse_spec("transfer/*  GB_per_s  >= 399.9 GB/s\n", "t.spec");
  AcceptResult r = accept_against_spec(eight_gpus("new", 1.0, 1), tight, "t.spec", AcceptOptions{});
  EXPECT_FALSE(r.passed());
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
