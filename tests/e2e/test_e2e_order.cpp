// The order suites run in and the settle step after gemm (issue 36 item 5) through the real CLI:
// the plan's order, kinds and settle charge, and a run's stored order and settle record. FIXTURE
// suites: plan-only shell scripts with made-up estimates, and copies of fixture_ok named like real
// suites (the order follows the names).
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

// A FIXTURE suite that answers only --gpubench_plan: one case of `case_s` seconds, process start
// 1 s, `reused_s` of it reused by later executions. Made-up estimates, not a model.
void write_plan_suite(const Workspace& ws, const std::string& name, double case_s,
                      double reused_s = 0) {
  const fs::path path = ws.suites() / ("gpubench-" + name);
  std::ofstream f(path);
  f << "#!/bin/sh\n# FIXTURE plan-only suite for gpubench's end-to-end tests (not a benchmark).\n"
    << "for a in \"$@\"; do case \"$a\" in --gpubench_plan) echo '{\"suite\":\"" << name
    << "\",\"gpus\":8,\"cases\":[{\"name\":\"" << name << "/a\",\"estimated_s\":" << case_s
    << "}],\"estimated_s\":" << case_s + 1 << ",\"reused_s\":" << reused_s
    << ",\"assumptions\":\"FIXTURE\"}'; exit 0;; esac; done\nexit 0\n";
  f.close();
  chmod(path.c_str(), 0755);
}

TEST(E2eOrder, ThePlanRunsDeviceSuitesFirstGemmLastAndChargesTheSettle) {
  Workspace ws;
  write_plan_suite(ws, "calibration", 1);  // 2 s an execution
  write_plan_suite(ws, "gemm", 32.5, 12);  // 33.5 s, later executions 21.5 s
  write_plan_suite(ws, "memory", 6);       // 7 s
  const std::vector<std::string> args = {
      "run",      "--plan",       "--gpus", "8",       "--profile",
      "quick",    "--executions", "3",      "--suite", "calibration,gemm,memory",
      ws.db_arg()};
  std::vector<std::string> as_json = args;
  as_json.insert(as_json.end(), {"--format", "json"});
  const CliResult r = ws.run(as_json);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["suites"].size(), 3u);
  EXPECT_EQ(j["suites"][0]["suite"], "memory");
  EXPECT_EQ(j["suites"][0]["kind"], "device");
  EXPECT_EQ(j["suites"][1]["suite"], "gemm");
  EXPECT_EQ(j["suites"][1]["kind"], "power_heavy");
  EXPECT_EQ(j["suites"][2]["suite"], "calibration");
  EXPECT_EQ(j["suites"][2]["kind"], "host");
  // memory, gemm, calibration | memory (settle), ... | memory (settle), ...: each settle is the
  // 10 s bound less calibration's 2 s in between.
  EXPECT_EQ(j["settle"]["settles"], 2);
  EXPECT_DOUBLE_EQ(j["settle"]["bound_s"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(j["settle"]["estimated_s"].get<double>(), 16.0);
  EXPECT_NEAR(j["total_estimated_s"].get<double>(), 3 * 7 + (33.5 + 2 * 21.5) + 3 * 2 + 16, 1e-3);

  const CliResult text = ws.run(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out,
                       "Order in every round: device suites first (memory), "
                       "power-heavy last among them (gemm), then host suites "
                       "(calibration)."))
      << text.out;
  EXPECT_TRUE(contains(text.out, "2 settles, counted at 16.0 s")) << text.out;
  // The table lists the suites in that order.
  const auto at = [&](const std::string& s) { return text.out.find("\n" + s + " "); };
  EXPECT_LT(at("memory"), at("gemm"));
  EXPECT_LT(at("gemm"), at("calibration"));
  EXPECT_LT(at("calibration"), at("settle"));
}

TEST(E2eOrder, ARunStoresItsSuitesInThatOrderAndRecordsTheSettle) {
  Workspace ws;
  for (const char* name : {"gemm", "memory", "calibration"}) {
    const fs::path target = ws.suites() / (std::string("gpubench-") + name);
    fs::copy_file(ws.suites() / "gpubench-fixture_ok", target);
    chmod(target.c_str(), 0755);
  }
  const CliResult run = ws.run({"run", "--suite", "calibration,gemm,memory", "--executions", "2",
                                "--profile", "quick", ws.db_arg()},
                               {}, 120);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json detail = json::parse(ws.run({"show", "latest", "--format", "json", ws.db_arg()}).out);
  std::vector<std::string> order;
  for (const auto& s : detail["suites"]) order.push_back(s["suite"].get<std::string>());
  EXPECT_EQ(order, (std::vector<std::string>{"memory", "gemm", "calibration", "memory", "gemm",
                                             "calibration"}));
  const json& env = detail["environment"]["configuration"]["env"];
  if (env.contains("gpubench.settle")) {
    // No NVML or no GPU here: no wait, and the run says why.
    EXPECT_EQ(env["gpubench.settle"].get<std::string>().rfind("unavailable: ", 0), 0u) << env;
    EXPECT_TRUE(contains(env["gpubench.settle"].get<std::string>(), "; no settle after gemm"));
    EXPECT_TRUE(contains(run.out, "settle: unavailable: ")) << run.out;
    EXPECT_EQ(detail["suites"][3]["reason"], "");
  } else {
    // NVML sees GPUs: the second memory execution waited (at most 10 s) and says how it ended.
    const std::string reason = detail["suites"][3]["reason"];
    EXPECT_EQ(reason.rfind("settle after gemm: ", 0), 0u) << reason;
    EXPECT_TRUE(contains(run.out, "before memory execution 2: settle after gemm: ")) << run.out;
  }
}

}  // namespace
}  // namespace gpubench::e2e
