// `dcgmi diag` text and -j JSON read into acceptance facts (results/peers/peers_dcgm.cpp), the
// facts stored with a run (results/acceptance_facts.cpp, schema v8) and a v7 database migrated to
// v8. Fixtures: tests/fixtures/peers/dcgm (published outputs, one CONSTRUCTED; README there).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "results/acceptance_facts.hpp"
#include "results/ingest/import_facts.hpp"
#include "results/peers/peers.hpp"
#include "results/peers/peers_dcgm.hpp"
#include "results/schema/schema.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

using peers::parse_dcgm_diag;

std::string dcgm_fixture(const std::string& name) {
  return read_file(std::filesystem::path(GPUBENCH_SOURCE_DIR) / "tests" / "fixtures" / "peers" /
                   "dcgm" / name);
}

// The fact of `test` on `gpu` (-1: the node); a failed expectation and an empty fact when there
// is none.
AcceptanceFact fact(const std::vector<AcceptanceFact>& facts, const std::string& test, int gpu) {
  for (const AcceptanceFact& f : facts) {
    if (f.test == test && f.gpu_index == gpu) return f;
  }
  ADD_FAILURE() << "no fact for " << test << " on " << gpu;
  return {};
}

bool has_fact(const std::vector<AcceptanceFact>& facts, const std::string& test, int gpu) {
  return std::any_of(facts.begin(), facts.end(),
                     [&](const AcceptanceFact& f) { return f.test == test && f.gpu_index == gpu; });
}

std::string bad_input_why(const std::string& text) {
  try {
    parse_dcgm_diag(text, "x.txt");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    return std::string(e.what()) + " " + e.why();
  }
  ADD_FAILURE() << "not refused";
  return {};
}

TEST(PeersDcgm, FormatIsInTheTableAndDetectedFromBothShapes) {
  const peers::PeerFormat* f = peers::find_peer_format("dcgm-diag");
  ASSERT_NE(f, nullptr);
  for (const char* name :
       {"dcgm441_r2_b200_8gpu_pcie_warning.txt",
        "dcgm339_r3_a10g_4gpu_targeted_power_fail_gpu1.txt", "dcgm330_r2_8gpu_pcie_fail_all.txt",
        "dcgm310_j_8gpu_nvvs_real_output.json",
        "constructed_dcgm4_schema_8gpu_memory_fail_gpu3.json"}) {
    const std::string text = dcgm_fixture(name);
    EXPECT_EQ(peers::detect_peer_format(text.substr(0, peers::k_detect_bytes)), f) << name;
  }
  EXPECT_FALSE(peers::detect_dcgm_diag("{\"context\": {}, \"benchmarks\": []}"));
  EXPECT_FALSE(peers::detect_dcgm_diag("# nThread 1 nGpus 8 minBytes 8\n| a | b |\n"));
}

// DCGM 4.4.1 (NVIDIA/DCGM#253): every GPU line says Pass while pcie's own row says Fail with a
// wrapped warning; the failure is kept as a fact about the node with the warning unwrapped.
TEST(PeersDcgm, Dcgm4TextKeepsPerGpuLinesAndTheTestsOwnFail) {
  const peers::PeerDocument d =
      parse_dcgm_diag(dcgm_fixture("dcgm441_r2_b200_8gpu_pcie_warning.txt"), "a.txt");
  EXPECT_EQ(d.format, "dcgm-diag");
  EXPECT_EQ(d.document["context"]["peer.version"], "4.4.1");
  EXPECT_EQ(d.document["context"]["gpubench.driver_version"], "570.172.08");
  EXPECT_EQ(d.document["context"]["gpubench.suite"], "dcgm-diag");
  EXPECT_EQ(d.document["context"]["peer.tool"], "dcgmi diag");
  EXPECT_TRUE(d.document["benchmarks"].empty());
  EXPECT_FALSE(d.document["context"].contains("gpubench.devices"));  // no GPU identity stated
  // 3 tests x 8 GPUs, plus pcie's own Fail about the node.
  ASSERT_EQ(d.facts.size(), 25u);
  for (const char* test : {"software", "memory", "pcie"}) {
    for (int g = 0; g < 8; ++g) {
      ASSERT_TRUE(has_fact(d.facts, test, g));
      const AcceptanceFact f = fact(d.facts, test, g);
      EXPECT_EQ(f.result, "pass");
      EXPECT_EQ(f.source, "dcgmi diag");
    }
  }
  ASSERT_TRUE(has_fact(d.facts, "pcie", -1));
  const AcceptanceFact node = fact(d.facts, "pcie", -1);
  EXPECT_EQ(node.result, "fail");
  EXPECT_EQ(
      node.info,
      "There was an internal error during the test: 'Output of child process (11167) couldn't "
      "be parsed: '* Line 1, Column 1 Syntax error: value, object or array expected. '' Check "
      "DCGM and system logs for errors. Reset GPU. Restart DCGM. Rerun diagnostics.");
}

// DCGM 3.3.9: "Pass - GPUs: 0, 2, 3" then "Fail - GPU: 1"; the Warning names GPU 1 and lands on
// its fact, each Info on its own GPU's; "Pass - All" and "Skip - All" cover the 4 GPUs detected.
TEST(PeersDcgm, Dcgm3TextSplitsGpuListsAndPlacesNotesOnTheirGpu) {
  const peers::PeerDocument d =
      parse_dcgm_diag(dcgm_fixture("dcgm339_r3_a10g_4gpu_targeted_power_fail_gpu1.txt"), "b.txt");
  EXPECT_EQ(d.document["context"]["peer.version"], "3.3.9");
  ASSERT_TRUE(has_fact(d.facts, "Targeted Power", 1));
  const AcceptanceFact fail = fact(d.facts, "Targeted Power", 1);
  EXPECT_EQ(fail.result, "fail");
  EXPECT_EQ(
      fail.info,
      "GPU 1 Max power of 224.1 did not reach desired power minimum target_power_min_ratio of "
      "224.2 for GPU 1 Verify that the clock speeds and GPU utilization are high.");
  ASSERT_TRUE(has_fact(d.facts, "Targeted Power", 0));
  const AcceptanceFact gpu0 = fact(d.facts, "Targeted Power", 0);
  EXPECT_EQ(gpu0.result, "pass");
  EXPECT_EQ(gpu0.info, "GPU 0 GPU 0 max power: 299.5 W average power usage: 299.0 W");
  EXPECT_FALSE(has_fact(d.facts, "Targeted Power", -1));  // its GPUs say it all
  for (int g = 0; g < 4; ++g) {
    ASSERT_TRUE(has_fact(d.facts, "PCIe", g));
    EXPECT_EQ(fact(d.facts, "PCIe", g).result, "pass");
    EXPECT_EQ(fact(d.facts, "EUD Test", g).result, "skip");
  }
  EXPECT_FALSE(has_fact(d.facts, "PCIe", 4));
  // Deployment checks are about the node.
  ASSERT_TRUE(has_fact(d.facts, "Denylist", -1));
  EXPECT_EQ(fact(d.facts, "Denylist", -1).result, "pass");
  const auto lines = summarize_acceptance_facts(d.facts);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0],
            "3 of 4 GPUs pass all 7 tests (skips left out, listed below); node: 9 of 9 tests pass");
  EXPECT_EQ(lines[1].rfind("GPU 1 Targeted Power: FAIL (GPU 1 Max power of 224.1", 0), 0u)
      << lines[1];
  EXPECT_EQ(lines[2], "GPUs 0-3 EUD Test: SKIP");
}

TEST(PeersDcgm, Dcgm3TextFailAllCoversEveryDetectedGpu) {
  const peers::PeerDocument d =
      parse_dcgm_diag(dcgm_fixture("dcgm330_r2_8gpu_pcie_fail_all.txt"), "c.txt");
  for (int g = 0; g < 8; ++g) {
    EXPECT_EQ(fact(d.facts, "PCIe", g).result, "fail");
    EXPECT_EQ(fact(d.facts, "GPU Memory", g).result, "skip");
  }
  // The warning names GPU 0: it lands there.
  EXPECT_EQ(
      fact(d.facts, "PCIe", 0).info.rfind("GPU 0 Error using CUDA API cudaDeviceGetByPCIBusId", 0),
      0u)
      << fact(d.facts, "PCIe", 0).info;
  EXPECT_EQ(fact(d.facts, "PCIe", 3).info, "");
  EXPECT_EQ(summarize_acceptance_facts(d.facts)[0],
            "0 of 8 GPUs pass all 2 tests (skips left out, listed below); node: 9 of 9 tests pass");
}

// NVVS's own "real output" (DCGM 3.1.0): a WARNING line before the JSON, null between tests,
// node-wide "gpu_ids" lists and a Custom category per GPU.
TEST(PeersDcgm, Dcgm3JsonWithGpuIdListsAndNulls) {
  const peers::PeerDocument d =
      parse_dcgm_diag(dcgm_fixture("dcgm310_j_8gpu_nvvs_real_output.json"), "d.json");
  EXPECT_EQ(d.document["context"]["peer.version"], "3.1.0");
  EXPECT_EQ(d.facts.size(), 10u * 8u);  // 9 deployment checks and software, on each of 8 GPUs
  EXPECT_EQ(fact(d.facts, "Inforom", 7).result, "pass");
  EXPECT_EQ(fact(d.facts, "software", 3).result, "pass");
  EXPECT_EQ(summarize_acceptance_facts(d.facts),
            std::vector<std::string>{"8 of 8 GPUs pass all 10 tests"});
  EXPECT_TRUE(d.failure.empty());
}

// DCGM 4's shape (CONSTRUCTED to NVIDIA's schema): entity results, test_summary, metadata.version.
TEST(PeersDcgm, Dcgm4JsonEntityResults) {
  const peers::PeerDocument d = parse_dcgm_diag(
      dcgm_fixture("constructed_dcgm4_schema_8gpu_memory_fail_gpu3.json"), "e.json");
  EXPECT_EQ(d.document["context"]["peer.version"], "4.6.0");
  EXPECT_EQ(d.facts.size(), 24u);
  EXPECT_EQ(fact(d.facts, "memory", 3).result, "fail");
  EXPECT_EQ(fact(d.facts, "memory", 3).info, "CONSTRUCTED: not a captured message");
  EXPECT_EQ(fact(d.facts, "memory", 2).result, "pass");
  EXPECT_FALSE(has_fact(d.facts, "memory", -1));
  const auto lines = summarize_acceptance_facts(d.facts);
  EXPECT_EQ(lines,
            (std::vector<std::string>{"7 of 8 GPUs pass all 3 tests",
                                      "GPU 3 memory: FAIL (CONSTRUCTED: not a captured message)"}));
}

TEST(PeersDcgm, BrokenOutputsAreRefusedNamingTheLine) {
  const std::string table = dcgm_fixture("dcgm339_r3_a10g_4gpu_targeted_power_fail_gpu1.txt");
  // An unknown result word.
  std::string bad = table;
  bad.replace(bad.find("Pass - All"), 10, "Good - All");
  EXPECT_NE(bad_input_why(bad).find("line 20: test 'PCIe' has result 'Good - All'"),
            std::string::npos);
  // A cut table: a line that is no row.
  std::string cut = table.substr(0, table.find("| Memory Bandwidth")) + "garbage\n";
  EXPECT_NE(bad_input_why(cut).find("line 38: 'garbage'; expected a table row"), std::string::npos);
  // No header at all (forced --format on another file).
  EXPECT_NE(bad_input_why("hello\n").find("no '| Diagnostic | Result |' table header"),
            std::string::npos);
  // JSON: cut, without the root, and a run that ran nothing.
  const std::string json = dcgm_fixture("constructed_dcgm4_schema_8gpu_memory_fail_gpu3.json");
  EXPECT_NE(bad_input_why(json.substr(0, 300) + "}").find("not valid JSON"), std::string::npos);
  EXPECT_NE(bad_input_why("{\"DCGM\": {}}").find("no \"DCGM GPU Diagnostic\""), std::string::npos);
  EXPECT_NE(bad_input_why("{\"DCGM GPU Diagnostic\": {\"runtime_error\": \"no GPUs\"}}")
                .find("dcgmi diag ran no test: no GPUs"),
            std::string::npos);
  EXPECT_NE(bad_input_why(std::string(100, '[')).find("no '| Diagnostic | Result |' table header"),
            std::string::npos);
  EXPECT_NE(bad_input_why("{" + std::string(100, '[') + std::string(100, ']') + "}")
                .find("nested deeper than 64"),
            std::string::npos);
}

TEST(PeersDcgm, TestKeysCompareLoosely) {
  EXPECT_EQ(fact_test_key("Targeted Power"), "targeted_power");
  EXPECT_EQ(fact_test_key("targeted_power"), "targeted_power");
  EXPECT_EQ(fact_test_key(" GPU  Memory "), "gpu_memory");
  EXPECT_NE(fact_test_key("GPU Memory"), fact_test_key("memory"));
}

// A run of facts only: no benchmarks, its facts stored in the import's transaction and read back
// in order; a bad result rolls the whole run back.
TEST(AcceptanceFacts, ARunOfFactsOnlyIsStoredWithItsFacts) {
  TempDir dir("gpubench-test-facts");
  Store store = Store::open(dir.path() / "f.db", OpenMode::read_write_create);
  const peers::PeerDocument d = parse_dcgm_diag(
      dcgm_fixture("constructed_dcgm4_schema_8gpu_memory_fail_gpu3.json"), "e.json");
  int64_t run = 0;
  import_run_with_facts(store, testing::sample_run_info(), testing::sample_suite_run("dcgm-diag"),
                        d.document, "dcgm-diag", run, d.facts);
  const auto back = get_acceptance_facts(store.database(), run);
  ASSERT_EQ(back.size(), d.facts.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].test, d.facts[i].test);
    EXPECT_EQ(back[i].gpu_index, d.facts[i].gpu_index);
    EXPECT_EQ(back[i].result, d.facts[i].result);
    EXPECT_EQ(back[i].info, d.facts[i].info);
  }
  std::vector<AcceptanceFact> wrong = d.facts;
  wrong.back().result = "maybe";
  int64_t other = 0;
  EXPECT_THROW(import_run_with_facts(store, testing::sample_run_info(),
                                     testing::sample_suite_run("dcgm-diag"), d.document,
                                     "dcgm-diag", other, wrong),
               Error);
  EXPECT_EQ(store.list_runs().size(), 1u);
}

// A v7 database (no acceptance_facts) migrates to v8 keeping its runs; the new table then takes
// facts.
TEST(AcceptanceFacts, AVersionSevenDatabaseMigrates) {
  TempDir dir("gpubench-test-facts");
  const auto path = dir.path() / "v7.db";
  {
    Store store = Store::open(path, OpenMode::read_write_create);
    const int64_t run = store.begin_run(testing::sample_run_info());
    store.record_run_outcome(run, RunStatus::complete, "");
  }
  {
    Database raw = Database::open(path, Access::read_write, 1000);
    raw.exec("DROP TABLE acceptance_facts");
    raw.exec("UPDATE meta SET value = '7' WHERE key = 'schema_version'");
  }
  {
    Database raw = Database::open(path, Access::read_write, 1000);
    EXPECT_FALSE(raw.table_exists("acceptance_facts"));
    EXPECT_TRUE(get_acceptance_facts(raw, 1).empty());  // read without migrating
  }
  Store store = Store::open(path, OpenMode::read_write);
  EXPECT_EQ(schema::k_version, 8);
  EXPECT_EQ(schema::read_versions(store.database()).schema_version, 8);
  EXPECT_EQ(schema::read_versions(store.database()).compatible_version, 3);
  ASSERT_EQ(store.list_runs().size(), 1u);
  Transaction tx(store.database());
  insert_acceptance_facts(store.database(), store.list_runs()[0].id,
                          {{"dcgmi diag", "memory", 0, "", "pass", ""}});
  tx.commit();
  EXPECT_EQ(get_acceptance_facts(store.database(), store.list_runs()[0].id).size(), 1u);
}

}  // namespace
}  // namespace gpubench::results
