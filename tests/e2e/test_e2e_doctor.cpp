// gpubench doctor end to end through the real binary: every check listed with a status (and the
// reason when unknown), exit 1 when a check fails, the readiness line and --require-ready of
// `run`, checks stored with the run and shown by `show`, and doctor changes listed by `compare`.
//
// A failing check that is real on any Linux machine: the dataset directory on /proc, a file
// system with no free space at all (storage.free_space fails under 1 GiB).
#include <nlohmann/json.hpp>
#include <set>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

const std::vector<std::string> k_checks = {"cpu.cores_per_gpu",      "memory.host_vs_gpu",
                                           "cpu.governor",           "storage.device",
                                           "storage.free_space",     "driver.cuda_version",
                                           "driver.toolkit_on_path", "limits.nofile",
                                           "limits.memlock",         "limits.dev_shm",
                                           "limits.huge_pages",      "gpu.reachable",
                                           "gpu.persistence_mode",   "gpu.ecc_mode",
                                           "gpu.ecc_errors",         "gpu.retired_memory",
                                           "gpu.mig_mode",           "pcie.link",
                                           "clocks.application",     "clocks.power_limit",
                                           "topology.numa_affinity", "topology.iommu",
                                           "topology.nvlink",        "topology.nvlink_fabric",
                                           "container.runtime",      "container.gpu_visibility"};

TEST(E2eDoctor, JsonListsEveryCheckWithStatusAndReason) {
  Workspace ws;
  const CliResult r = ws.run({"doctor", "--format", "json", "--data-dir", ws.root().string()});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  const json doc = json::parse(r.out);
  std::vector<std::string> names;
  bool any_fail = false;
  for (const json& c : doc.at("checks")) {
    names.push_back(c.at("name"));
    const std::string status = c.at("status");
    EXPECT_TRUE(std::set<std::string>({"pass", "warn", "fail", "unknown"}).count(status)) << c;
    for (const char* field : {"value", "expected", "fix"})
      EXPECT_TRUE(c.at(field).is_string()) << c;
    EXPECT_FALSE(c.at("expected").get<std::string>().empty()) << c;
    if (status == "unknown") {
      // The reason follows "unknown: ", never a bare unknown.
      const std::string value = c.at("value");
      EXPECT_EQ(value.rfind("unknown: ", 0), 0u) << c;
      EXPECT_GT(value.size(), 12u) << c;
    }
    if (status != "pass" && status != "unknown" && c.at("name") != "container.runtime") {
      EXPECT_FALSE(c.at("fix").get<std::string>().empty()) << c;
    }
    any_fail = any_fail || status == "fail";
  }
  EXPECT_EQ(names, k_checks);
  EXPECT_EQ(r.exit_code, any_fail ? 1 : 0);
  EXPECT_EQ(doc.at("summary").at("fail").get<int>() > 0, any_fail);
}

TEST(E2eDoctor, AFailingCheckExitsOne) {
  Workspace ws;
  const CliResult r = ws.run({"doctor", "--data-dir", "/proc/gpubench-e2e"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "FAIL    storage.free_space")) << r.out;
  EXPECT_TRUE(contains(r.out, "fix: ")) << r.out;
  const CliResult bad = ws.run({"doctor", "--format", "yaml"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

TEST(E2eDoctor, RequireReadyRefusesToRunWhenACheckFails) {
  Workspace ws;
  const CliResult r =
      ws.run({"run", "--suite", "fixture_ok", "--profile", "quick", "--require-ready", ws.db_arg()},
             {{"GPUBENCH_DATA_DIR", "/proc/gpubench-e2e"}});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "readiness: ")) << r.out;
  EXPECT_TRUE(contains(r.err, "gpubench: error: server not ready")) << r.err;
  EXPECT_TRUE(contains(r.err, "storage.free_space")) << r.err;
  EXPECT_FALSE(fs::exists(ws.db())) << "a refused run stores nothing";
}

TEST(E2eDoctor, RunStoresChecksShowListsThemCompareNamesChanges) {
  Workspace ws;
  const CliResult first =
      ws.run({"run", "--suite", "fixture_ok", "--profile", "quick", ws.db_arg()},
             {{"GPUBENCH_DATA_DIR", ws.root().string()}});
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_EQ(first.out.rfind("readiness: ", 0), 0u)
      << "the line comes before the run: " << first.out;

  const CliResult show = ws.run({"show", "latest", ws.db_arg()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(contains(show.out, "doctor (before the run): ")) << show.out;
  const CliResult show_json = ws.run({"show", "latest", "--format", "json", ws.db_arg()});
  ASSERT_EQ(show_json.exit_code, 0) << show_json.err;
  const json doctor = json::parse(show_json.out).at("doctor");
  EXPECT_EQ(doctor.at("checks").size(), k_checks.size());

  // Second run: the dataset directory has no space; without --require-ready the run goes ahead.
  const CliResult second =
      ws.run({"run", "--suite", "fixture_ok", "--profile", "quick", ws.db_arg()},
             {{"GPUBENCH_DATA_DIR", "/proc/gpubench-e2e"}});
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_TRUE(contains(second.out, "fail: storage.free_space")) << second.out;

  const CliResult cmp =
      ws.run({"compare", "1", "2", "--format", "json", "--fail-on", "never", ws.db_arg()});
  ASSERT_EQ(cmp.exit_code, 0) << cmp.out << cmp.err;
  bool named = false;
  const json doc = json::parse(cmp.out);
  for (const json& d : doc.at("environment_differences")) {
    if (d.at("field") == "doctor storage.free_space") {
      named = true;
      EXPECT_NE(d.at("base").get<std::string>().rfind("fail", 0), 0u) << d;
      EXPECT_EQ(d.at("candidate").get<std::string>().rfind("fail (0 B free", 0), 0u) << d;
    }
  }
  EXPECT_TRUE(named) << cmp.out;
}

}  // namespace
}  // namespace gpubench::e2e
