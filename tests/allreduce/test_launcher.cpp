// The harness side of multi-rank suites: launcher command lines, PATH lookup, the child's argv, and
// reading the nodes a suite ran on back from its stored context.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "harness/cli/nodes.hpp"
#include "harness/process/launcher.hpp"
#include "harness/run/discovery.hpp"
#include "results/store.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::harness {
namespace {

TEST(Launcher, SplitsWordsAndQuotes) {
  EXPECT_EQ(split_launcher("mpirun -np 2 --oversubscribe"),
            (std::vector<std::string>{"mpirun", "-np", "2", "--oversubscribe"}));
  EXPECT_EQ(split_launcher("  srun -N 2   --ntasks-per-node 8 "),
            (std::vector<std::string>{"srun", "-N", "2", "--ntasks-per-node", "8"}));
  EXPECT_EQ(
      split_launcher("mpirun -x 'NCCL_DEBUG=INFO' --mca btl \"self,vader\""),
      (std::vector<std::string>{"mpirun", "-x", "NCCL_DEBUG=INFO", "--mca", "btl", "self,vader"}));
}

TEST(Launcher, BadLinesAreBadInput) {
  for (const char* line : {"", "   ", "mpirun -x 'A=1"}) {
    try {
      split_launcher(line);
      FAIL() << "accepted '" << line << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::bad_input);
    }
  }
}

TEST(Launcher, FindsProgramsOnPath) {
  TempDir dir("gpubench-launcher");
  const std::string tool = (dir.path() / "fake-mpirun").string();
  { std::ofstream(tool) << "#!/bin/sh\n"; }
  chmod(tool.c_str(), 0755);
  EXPECT_EQ(find_program("fake-mpirun", "/nonexistent:" + dir.path().string()), tool);
  EXPECT_EQ(find_program(tool, ""), tool);
  EXPECT_FALSE(find_program("fake-mpirun", "/nonexistent"));
  EXPECT_FALSE(find_program("", dir.path().string()));
}

TEST(Launcher, WrapsTheSuiteCommandOnlyForMultiRankSuites) {
  const std::vector<std::string> suite = {"/bin/gpubench-allreduce", "--benchmark_out=x.json"};
  const LaunchCommand direct = launch_command({}, suite);
  EXPECT_EQ(direct.argv, suite);
  EXPECT_TRUE(direct.problem.empty());
  const LaunchCommand wrapped = launch_command({"sh", "-np", "2"}, suite);
  ASSERT_EQ(wrapped.argv.size(), 5u);
  EXPECT_EQ(wrapped.argv[0].back(), 'h');
  EXPECT_EQ(wrapped.argv[0].front(), '/');  // resolved through PATH for execve
  EXPECT_EQ(wrapped.argv[3], suite[0]);
  const LaunchCommand missing = launch_command({"gpubench-no-such-launcher", "-np", "2"}, suite);
  EXPECT_NE(missing.problem.find("'gpubench-no-such-launcher' was not found on PATH"),
            std::string::npos);
  EXPECT_TRUE(runs_under_launcher("allreduce"));
  EXPECT_FALSE(runs_under_launcher("memory"));
}

TEST(Nodes, GroupsRanksByHostFromTheContext) {
  const nlohmann::json ranks = nlohmann::json::array({{{"rank", 0},
                                                       {"local_rank", 0},
                                                       {"host", "node01"},
                                                       {"gpus", "GPU-a"},
                                                       {"nccl", "NCCL 2.28.9"},
                                                       {"mpi", "Open MPI v4.1.4"},
                                                       {"env", {{"NCCL_IB_HCA", "mlx5_0"}}}},
                                                      {{"rank", 1},
                                                       {"local_rank", 0},
                                                       {"host", "node02"},
                                                       {"gpus", "GPU-b"},
                                                       {"nccl", "NCCL 2.28.9"},
                                                       {"mpi", "Open MPI v4.1.4"},
                                                       {"env", {{"NCCL_IB_HCA", "mlx5_1"}}}},
                                                      {{"rank", 2},
                                                       {"local_rank", 1},
                                                       {"host", "node01"},
                                                       {"gpus", "GPU-c"},
                                                       {"nccl", "NCCL 2.28.9"},
                                                       {"mpi", "Open MPI v4.1.4"},
                                                       {"env", {{"NCCL_IB_HCA", "mlx5_0"}}}}});
  const nlohmann::json summary = {{"series",
                                   {{{"series", "allreduce/dtype:fp32/mode:in_place/ranks:3"},
                                     {"peak_busbw_GB_per_s", 42.5},
                                     {"peak_bytes", 1 << 20},
                                     {"knee_bytes", 1 << 18},
                                     {"scaling_efficiency_vs_2_ranks", 0.9}}}},
                                  {"slow_ranks", nlohmann::json::array()}};
  // As Google Benchmark stores custom context: strings holding JSON.
  const nlohmann::json context = {{"gpubench.ranks", ranks.dump()},
                                  {"gpubench.allreduce.summary", summary.dump()}};
  const SuiteNodes s = nodes_from_context("allreduce", context);
  ASSERT_EQ(s.nodes.size(), 2u);
  EXPECT_EQ(s.nodes[0].host, "node01");
  ASSERT_EQ(s.nodes[0].ranks.size(), 2u);
  EXPECT_EQ(s.nodes[0].ranks[1].rank, 2);
  EXPECT_EQ(s.nodes[1].ranks[0].env.at("NCCL_IB_HCA"), "mlx5_1");
  std::ostringstream out;
  print_suite_nodes(out, {s});
  const std::string text = out.str();
  EXPECT_NE(text.find("nodes of allreduce: 3 ranks on 2 nodes (Open MPI v4.1.4, NCCL 2.28.9)"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("node node01: ranks 0,2 (local 0,1), GPUs GPU-a GPU-c; env NCCL_IB_HCA=mlx5_0"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("peak busbw 42.50 GB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("scaling efficiency vs 2 ranks 0.900"), std::string::npos) << text;
  EXPECT_EQ(suite_nodes_json({s})[0]["nodes"][1]["ranks"][0]["gpus"], "GPU-b");
}

// Issue 37 (allreduce N3): only a suite that says it was built without MPI is refused.
TEST(Launcher, RefusesASuiteBuiltWithoutMpi) {
  SuiteDescription d;
  d.suite = {"allreduce", "/opt/gpubench/bin/gpubench-allreduce"};
  EXPECT_EQ(launcher_refusal(d, "mpirun -np 2"), "");  // it does not say: the suite decides
  d.mpi = true;
  EXPECT_EQ(launcher_refusal(d, "mpirun -np 2"), "");
  d.mpi = false;
  const std::string why = launcher_refusal(d, "srun -N 2");
  EXPECT_NE(why.find("gpubench-allreduce (/opt/gpubench/bin/gpubench-allreduce) was built without "
                     "MPI, so under --launcher 'srun -N 2' every task"),
            std::string::npos)
      << why;
}

// Issue 37 (m12): a series whose efficiency is left out says why, after its figures.
TEST(Nodes, PrintsTheScalingNoteOfASeries) {
  const nlohmann::json summary = {
      {"series",
       {{{"series", "allreduce/dtype:fp32/mode:in_place/ranks:16"},
         {"peak_busbw_GB_per_s", 40.0},
         {"peak_bytes", 1 << 20},
         {"knee_bytes", 1 << 18},
         {"scaling_efficiency_vs_2_ranks", nullptr},
         {"scaling_note", "spans 2 nodes while ranks:2 runs on one node: not a like link"}}}}};
  std::ostringstream out;
  print_suite_nodes(
      out, {nodes_from_context("allreduce", {{"gpubench.allreduce.summary", summary.dump()}})});
  EXPECT_NE(out.str().find("ranks:16: peak busbw 40.00 GB/s at 1048576 B, 90% of it from 262144 B; "
                           "spans 2 nodes while ranks:2 runs on one node: not a like link\n"),
            std::string::npos)
      << out.str();
}

TEST(Nodes, ContextWithoutRanksOrWithGarbageGivesNothing) {
  EXPECT_TRUE(nodes_from_context("memory", {{"gpubench.suite", "memory"}}).nodes.empty());
  EXPECT_TRUE(nodes_from_context("x", {{"gpubench.ranks", "not json"}}).nodes.empty());
  EXPECT_TRUE(nodes_from_context("x", {{"gpubench.ranks", "[1, 2]"}}).nodes.empty());
  EXPECT_TRUE(nodes_from_context("x", nlohmann::json::array()).summary.is_null());
}

// Issue 35: a run measures each suite in several executions, each its own suite run with its own
// context. `show` prints the suite's nodes once, with each execution's summary labelled.
TEST(Nodes, ExecutionsOfASuiteArePrintedOnce) {
  TempDir dir("gpubench-test-nodes");
  results::Store store =
      results::Store::open(dir.path() / "n.db", results::OpenMode::read_write_create);
  results::RunInfo info;
  info.host.hostname = "node01";
  const int64_t run = store.begin_run(info);
  const nlohmann::json ranks = nlohmann::json::array(
      {{{"rank", 0}, {"local_rank", 0}, {"host", "node01"}, {"gpus", "GPU-a"}, {"nccl", "NCCL 2"}},
       {{"rank", 1},
        {"local_rank", 1},
        {"host", "node01"},
        {"gpus", "GPU-b"},
        {"nccl", "NCCL 2"}}});
  for (double busbw : {40.0, 41.0, 42.0}) {
    const nlohmann::json summary = {{"series",
                                     {{{"series", "allreduce/ranks:2"},
                                       {"peak_busbw_GB_per_s", busbw},
                                       {"peak_bytes", 1024},
                                       {"knee_bytes", 512}}}}};
    results::SuiteRunInfo suite;
    suite.suite = "allreduce";
    suite.executable = "gpubench-allreduce";
    const nlohmann::json doc = {
        {"context",
         {{"gpubench.ranks", ranks.dump()}, {"gpubench.allreduce.summary", summary.dump()}}},
        {"benchmarks", nlohmann::json::array()}};
    store.ingest_benchmark_json(store.add_suite_run(run, suite), doc, "allreduce");
  }
  store.finish_run(run, results::RunStatus::complete);
  const std::vector<SuiteNodes> nodes = read_suite_nodes(store, run);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].executions, 3u);
  ASSERT_EQ(nodes[0].nodes.size(), 1u);
  EXPECT_EQ(nodes[0].nodes[0].ranks.size(), 2u);
  std::ostringstream out;
  print_suite_nodes(out, nodes);
  const std::string text = out.str();
  EXPECT_EQ(text.find("nodes of allreduce (3 executions): 2 ranks on 1 node"), 0u) << text;
  EXPECT_EQ(text.find("node node01:"), text.rfind("node node01:")) << "one node line: " << text;
  EXPECT_NE(text.find("  execution 2 of 3: allreduce/ranks:2: peak busbw 41.00 GB/s"),
            std::string::npos)
      << text;
  EXPECT_EQ(suite_nodes_json(nodes)[0]["execution_summaries"].size(), 3u);
}

}  // namespace
}  // namespace gpubench::harness
