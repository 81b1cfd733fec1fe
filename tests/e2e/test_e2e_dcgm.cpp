// Issue 40, part C: `dcgmi diag` outputs as acceptance facts, through the real CLI: import of its
// text and -j JSON (runs of facts only), `show` and `report` (text and JSON), `accept` with a
// `dcgm <test> must pass` spec line passing and failing per GPU, the clear error for a run without
// facts, refusal of a cut table, and the facts kept by export/import and by a database merge.
// Fixtures: tests/fixtures/peers/dcgm (published outputs, one CONSTRUCTED; README there).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

fs::path dcgm(const std::string& name) {
  return fs::path(GPUBENCH_SOURCE_DIR) / "tests/fixtures/peers/dcgm" / name;
}

const char* const k_dcgm4_text = "dcgm441_r2_b200_8gpu_pcie_warning.txt";
const char* const k_dcgm3_text = "dcgm339_r3_a10g_4gpu_targeted_power_fail_gpu1.txt";
const char* const k_dcgm3_json = "dcgm310_j_8gpu_nvvs_real_output.json";
const char* const k_dcgm4_json = "constructed_dcgm4_schema_8gpu_memory_fail_gpu3.json";

// Imports a fixture; the run it became is the database's newest.
void import_ok(const Workspace& ws, const std::string& name, const std::string& expect) {
  const CliResult r = ws.run({"import", dcgm(name).string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(expect), std::string::npos) << r.out;
}

fs::path write_spec(const Workspace& ws, const std::string& name, const std::string& text) {
  const fs::path p = ws.root() / name;
  write_file_atomic(p, text);
  return p;
}

TEST(E2eDcgm, TextAndJsonImportAsRunsOfFacts) {
  Workspace ws;
  import_ok(ws, k_dcgm4_text,
            "imported " + dcgm(k_dcgm4_text).string() +
                " as run 1: 0 benchmarks, 0 samples, 0 skipped, 0 errors\n  25 acceptance facts "
                "(dcgmi diag): 8 of 8 GPUs pass all 3 tests; node: 0 of 1 test passes (see "
                "'gpubench show 1')");
  import_ok(ws, k_dcgm3_json, "80 acceptance facts (dcgmi diag): 8 of 8 GPUs pass all 10 tests");
  import_ok(ws, k_dcgm3_text,
            "3 of 4 GPUs pass all 7 tests (skips left out, listed below); node: 9 of 9 tests pass");
  // Forced format: the same reader.
  const CliResult forced = ws.run({"import", dcgm(k_dcgm4_json).string(), "--format", "dcgm-diag"});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(forced.out.find("as run 4"), std::string::npos) << forced.out;

  // show: the section, then each result that is not a pass.
  const CliResult show = ws.run({"show", "1"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find(
                "acceptance facts (dcgmi diag): 8 of 8 GPUs pass all 3 tests; node: 0 of 1 test "
                "passes\n  node "
                "pcie: FAIL (There was an internal error during the test: 'Output of "
                "child process (11167) couldn't be parsed:"),
            std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("570.172.08"), std::string::npos) << show.out;  // the driver stated
  const CliResult js = ws.run({"show", "4", "--format", "json"});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json doc = json::parse(js.out);
  ASSERT_EQ(doc["acceptance_facts"].size(), 24u);
  json gpu3_memory;
  for (const json& f : doc["acceptance_facts"]) {
    if (f["test"] == "memory" && f["gpu"] == 3) gpu3_memory = f;
  }
  EXPECT_EQ(gpu3_memory["result"], "fail");
  EXPECT_EQ(gpu3_memory["info"], "CONSTRUCTED: not a captured message");
  EXPECT_EQ(gpu3_memory["source"], "dcgmi diag");

  // report: one short line in text, the array in JSON.
  const CliResult report = ws.run({"report", "4"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("  acceptance facts (dcgmi diag): 7 of 8 GPUs pass all 3 tests; GPU 3 "
                            "memory: FAIL (CONSTRUCTED: not a captured message)\n"),
            std::string::npos)
      << report.out;
  const CliResult rj = ws.run({"report", "3", "--format", "json"});
  ASSERT_EQ(rj.exit_code, 0) << rj.err;
  EXPECT_EQ(json::parse(rj.out)["acceptance_facts"].size(), 4u * 7u + 9u);
}

TEST(E2eDcgm, AcceptRequiresADcgmTestToPassOnEveryGpu) {
  Workspace ws;
  import_ok(ws, k_dcgm4_json, "as run 1");
  import_ok(ws, k_dcgm3_text, "as run 2");
  const fs::path software = write_spec(ws, "software.spec", "dcgm software must pass\n");
  // Passing checks are counted in the summary and listed with --all (issue 39).
  const CliResult summary = ws.run({"accept", "1", "--spec", software.string()});
  EXPECT_EQ(summary.exit_code, 0) << summary.out << summary.err;
  EXPECT_NE(summary.out.find("1 check PASS (--all lists them)"), std::string::npos) << summary.out;
  const CliResult pass = ws.run({"accept", "1", "--spec", software.string(), "--all"});
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  EXPECT_NE(pass.out.find(": PASS ("), std::string::npos) << pass.out;
  EXPECT_NE(pass.out.find("PASS dcgm software: pass on 8 of 8 GPU/node results"), std::string::npos)
      << pass.out;

  const fs::path memory =
      write_spec(ws, "memory.spec", "# the memory test\ndcgm Memory must pass\n");
  const CliResult fail = ws.run({"accept", "1", "--spec", memory.string()});
  EXPECT_EQ(fail.exit_code, 1) << fail.out << fail.err;
  EXPECT_NE(fail.out.find("1 dcgm fact(s) failed"), std::string::npos) << fail.out;
  EXPECT_NE(
      fail.out.find("  FAIL dcgm memory on GPU 3: FAIL (CONSTRUCTED: not a captured message); "
                    "must pass (spec line 2)"),
      std::string::npos)
      << fail.out;
  const CliResult fj = ws.run({"accept", "1", "--spec", memory.string(), "--format", "json"});
  EXPECT_EQ(fj.exit_code, 1);
  const json verdict = json::parse(fj.out);
  EXPECT_FALSE(verdict["passed"].get<bool>());
  ASSERT_EQ(verdict["acceptance_facts"]["failed"].size(), 1u);

  // A published output: GPU 1's Targeted Power failed, with DCGM's words.
  const fs::path power = write_spec(ws, "power.spec", "dcgm targeted_power must pass\n");
  const CliResult p = ws.run({"accept", "2", "--spec", power.string()});
  EXPECT_EQ(p.exit_code, 1) << p.out << p.err;
  EXPECT_NE(p.out.find("FAIL dcgm Targeted Power on GPU 1: FAIL (GPU 1 Max power of 224.1 did not "
                       "reach desired power minimum target_power_min_ratio of 224.2"),
            std::string::npos)
      << p.out;
  // A test the run lacks fails, naming the tests it has.
  const fs::path nvlink = write_spec(ws, "nvlink.spec", "dcgm nvlink must pass\n");
  const CliResult n = ws.run({"accept", "1", "--spec", nvlink.string()});
  EXPECT_EQ(n.exit_code, 1);
  EXPECT_NE(n.out.find("dcgm nvlink: run 1 has no dcgmi diag result for this test (it has: memory, "
                       "pcie, software)"),
            std::string::npos)
      << n.out;
  // A spec line that is not one.
  const fs::path bad = write_spec(ws, "bad.spec", "dcgm memory should pass\n");
  const CliResult b = ws.run({"accept", "1", "--spec", bad.string()});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find("bad dcgm line in spec file " + bad.string() + ":1"), std::string::npos)
      << b.err;
}

TEST(E2eDcgm, ARunWithoutFactsIsAClearError) {
  Workspace ws;
  const fs::path gbench =
      fs::path(GPUBENCH_SOURCE_DIR) / "tests/fixtures/gbench_inputs/test2_run.json";
  ASSERT_EQ(ws.run({"import", gbench.string()}).exit_code, 0);
  const fs::path spec = write_spec(ws, "m.spec", "dcgm memory must pass\n");
  const CliResult r = ws.run({"accept", "1", "--spec", spec.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no dcgmi diag facts in run 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("import `dcgmi diag -j` output (gpubench import diag.json) first"),
            std::string::npos)
      << r.err;
}

TEST(E2eDcgm, ACutTableIsRefusedAndNothingIsStored) {
  Workspace ws;
  std::string text = read_file(dcgm(k_dcgm3_text));
  text = text.substr(0, text.find("| Memory Bandwidth")) + "Killed\n";
  const fs::path cut = ws.root() / "cut.txt";
  write_file_atomic(cut, text);
  const CliResult r = ws.run({"import", cut.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("line 38: 'Killed'; expected a table row '| name | result |'"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(ws.db()));
}

// Export to JSON and import into another database, and a database merge: the facts arrive with
// their run, row for row.
TEST(E2eDcgm, FactsTravelWithTheirRun) {
  Workspace ws;
  import_ok(ws, k_dcgm3_text, "as run 1");
  const json before =
      json::parse(ws.run({"show", "1", "--format", "json"}).out)["acceptance_facts"];
  ASSERT_EQ(before.size(), 37u);  // 7 tests on 4 GPUs, 9 node checks
  const fs::path exported = ws.root() / "run1.json";
  ASSERT_EQ(ws.run({"export", "1", "--format", "json", "-o", exported.string()}).exit_code, 0);
  const fs::path other = ws.root() / "other.db";
  const CliResult imp = ws.run({"import", exported.string(), "--db", other.string()});
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  const json after =
      json::parse(ws.run({"show", "1", "--format", "json", "--db", other.string()}).out);
  EXPECT_EQ(after["acceptance_facts"], before);
  const fs::path merged = ws.root() / "merged.db";
  ASSERT_EQ(ws.run({"import", ws.db().string(), "--db", merged.string()}).exit_code, 0);
  EXPECT_EQ(json::parse(ws.run({"show", "1", "--format", "json", "--db", merged.string()})
                            .out)["acceptance_facts"],
            before);
  // Merging again adds nothing (idempotent by run UUID).
  ASSERT_EQ(ws.run({"import", ws.db().string(), "--db", merged.string()}).exit_code, 0);
  EXPECT_EQ(json::parse(ws.run({"show", "1", "--format", "json", "--db", merged.string()})
                            .out)["acceptance_facts"]
                .size(),
            37u);
}

}  // namespace
}  // namespace gpubench::e2e
