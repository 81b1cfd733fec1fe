// `gpubench doctor --launcher ...` end to end through the real binary and real child processes
// (issue 37, n5): a FIXTURE launcher script plays a two-node job on this machine by running each
// task with a made-up host name (GPUBENCH_DOCTOR_HOST, test-only) and the rank variables srun
// --mpi=pmi2 sets; a second FIXTURE launcher loses one node. The real mpirun case is in
// tests/allreduce/test_e2e_allreduce.cpp (label mpi).
#include <nlohmann/json.hpp>

#include "e2e_support.hpp"

namespace gpubench::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A FIXTURE launcher: runs its arguments (the task's command line) once per host given.
fs::path fixture_launcher(const Workspace& ws, const std::string& name,
                          const std::vector<std::string>& hosts, int tasks) {
  std::string script = "#!/bin/sh\n# FIXTURE launcher: one task per made-up host, in turn\n";
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    script += "GPUBENCH_DOCTOR_HOST=" + hosts[i] + " PMI_RANK=" + std::to_string(i) +
              " PMI_SIZE=" + std::to_string(tasks) + " \"$@\" || exit 1\n";
  }
  const fs::path path = ws.root() / name;
  write_file_atomic(path, script);
  fs::permissions(path, fs::perms::owner_all, fs::perm_options::add);
  return path;
}

TEST(E2eDoctorNodes, EveryNodeIsReportedAndAFailingNodeIsNamed) {
  Workspace ws;
  const fs::path launcher =
      fixture_launcher(ws, "fixture-srun", {"fixture-node-a", "fixture-node-b"}, 2);
  // The dataset directory on /proc has no free space: storage.free_space fails on every node.
  const CliResult r = ws.run({"doctor", "--data-dir", "/proc", "--launcher", launcher.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "node fixture-node-a (task 0)\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "node fixture-node-b (task 1)\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "[fixture-node-a]  FAIL    storage.free_space")) << r.out;
  EXPECT_TRUE(contains(r.out, "[fixture-node-b]  FAIL    storage.free_space")) << r.out;
  EXPECT_TRUE(contains(r.out, "doctor on fixture-node-a: ")) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "doctor: 2 nodes from 2 tasks, failing: fixture-node-a, "
                       "fixture-node-b\n"))
      << r.out;

  const CliResult j = ws.run({"doctor", "--format", "json", "--data-dir", ws.root().string(),
                              "--launcher", launcher.string()});
  ASSERT_TRUE(j.exit_code == 0 || j.exit_code == 1) << j.out << j.err;
  const json doc = json::parse(j.out);
  ASSERT_EQ(doc.at("nodes").size(), 2u);
  EXPECT_EQ(doc["nodes"][0]["host"], "fixture-node-a");
  EXPECT_EQ(doc["nodes"][1]["host"], "fixture-node-b");
  EXPECT_EQ(doc["nodes"][1]["ranks"], json::array({1}));
  EXPECT_EQ(doc["tasks"], 2);
  EXPECT_TRUE(doc["problems"].empty()) << doc["problems"];
  bool ib = false;
  for (const json& c : doc["nodes"][1]["checks"]) ib = ib || c["name"] == "network.ib_ports";
  EXPECT_TRUE(ib) << "each node runs every check";
  // The exit status follows the nodes' checks: 0 exactly when no node has a failing check.
  int failing = 0;
  for (const json& n : doc["nodes"]) failing += n["summary"]["fail"].get<int>() > 0;
  EXPECT_EQ(doc["summary"]["failing_nodes"], failing);
  EXPECT_EQ(j.exit_code, failing > 0 ? 1 : 0);
}

TEST(E2eDoctorNodes, ATaskWithoutAReportIsNamedAndFails) {
  Workspace ws;
  // Says 2 tasks, starts only the first: node b is lost.
  const fs::path launcher = fixture_launcher(ws, "fixture-srun-lost", {"fixture-node-a"}, 2);
  const CliResult r = ws.run({"doctor", "--data-dir", ws.root().string(), "--format", "json",
                              "--launcher", launcher.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc["nodes"].size(), 1u);
  ASSERT_EQ(doc["problems"].size(), 1u) << doc["problems"];
  EXPECT_TRUE(contains(doc["problems"][0].get<std::string>(), "task 1 of 2 gave no report"))
      << doc["problems"];
  EXPECT_EQ(doc["summary"]["ready"], false);
  const CliResult text =
      ws.run({"doctor", "--data-dir", ws.root().string(), "--launcher", launcher.string()});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_TRUE(contains(text.out, "doctor: problem: task 1 of 2 gave no report")) << text.out;
}

TEST(E2eDoctorNodes, AMissingLauncherIsNamed) {
  Workspace ws;
  const CliResult r = ws.run({"doctor", "--launcher", "gpubench-no-such-srun -N 2"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "launcher 'gpubench-no-such-srun' was not found on PATH")) << r.err;
}

}  // namespace
}  // namespace gpubench::e2e
