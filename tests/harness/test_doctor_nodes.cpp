// doctor on every node (issue 37, n5): the per-node report line, one report per host, the tasks
// that gave none, and the rendering with the node's name on every line that is not a pass.
#include "harness/doctor/doctor_nodes.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace gpubench::harness {
namespace {

using results::CheckStatus;
using results::DoctorCheck;

std::vector<DoctorCheck> checks(CheckStatus ib) {
  return {{"cpu.governor", "CPU and memory", CheckStatus::pass, "performance", "performance", ""},
          {"network.ib_ports", "Network", ib, "mlx5_0 port 1: DOWN", "every port ACTIVE",
           "check the cable"}};
}

// A task's report as its lines would reach the harness, one after the other.
std::string report(const std::string& host, TaskIndex task, const std::vector<DoctorCheck>& c) {
  std::string text;
  for (const std::string& line : node_report_lines(host, task, c)) {
    EXPECT_EQ(line.rfind(k_node_report_marker, 0), 0u);
    EXPECT_EQ(line.find('\n'), std::string::npos);
    text += (text.empty() ? "" : "\n") + line;
  }
  return text;
}

TEST(DoctorNodes, ReportLinesRoundTrip) {
  const std::string line = report("node-a", TaskIndex{1, 2}, checks(CheckStatus::fail));
  const NodeReports r = collect_node_reports("launcher chatter\n" + line + "\n");
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_EQ(r.nodes[0].host, "node-a");
  EXPECT_EQ(r.nodes[0].ranks, std::vector<int>{1});
  ASSERT_EQ(r.nodes[0].checks.size(), 2u);
  EXPECT_EQ(r.nodes[0].checks[1].status, CheckStatus::fail);
  EXPECT_EQ(r.nodes[0].checks[1].fix, "check the cable");
  // Rank 0 of the 2 tasks never reported.
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].rfind("task 0 of 2 gave no report", 0), 0u) << r.problems[0];
  EXPECT_FALSE(nodes_ready(r));
}

TEST(DoctorNodes, TasksOnOneHostAreOneNodeAndPrefixesAreAllowed) {
  const std::string text = "0: " + report("a", TaskIndex{0, 3}, checks(CheckStatus::pass)) +
                           "\n1: " + report("a", TaskIndex{1, 3}, checks(CheckStatus::pass)) +
                           "\n" + report("b", TaskIndex{2, 3}, checks(CheckStatus::pass)) + "\n";
  const NodeReports r = collect_node_reports(text);
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(r.nodes[0].host, "a");
  EXPECT_EQ(r.nodes[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(r.nodes[1].ranks, std::vector<int>{2});
  EXPECT_EQ(r.tasks, 3);
  EXPECT_TRUE(r.problems.empty());
  EXPECT_TRUE(nodes_ready(r));
}

// mpirun forwards two tasks' lines interleaved: each task's report is still whole.
TEST(DoctorNodes, InterleavedLinesOfTwoTasksAreGathered) {
  const auto a = node_report_lines("a", TaskIndex{0, 2}, checks(CheckStatus::pass));
  const auto b = node_report_lines("b", TaskIndex{1, 2}, checks(CheckStatus::fail));
  std::string text;
  for (std::size_t i = 0; i < a.size(); ++i) text += a[i] + "\n" + b[i] + "\n";
  const NodeReports r = collect_node_reports(text);
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_TRUE(r.problems.empty()) << r.problems[0];
  EXPECT_EQ(r.nodes[1].checks.size(), 2u);
  EXPECT_EQ(r.nodes[1].checks[1].status, CheckStatus::fail);
}

// A task that died after its first check line: its report is cut, and it counts as missing.
TEST(DoctorNodes, ACutReportIsAProblemAndItsTaskMissing) {
  const auto a = node_report_lines("a", TaskIndex{0, 1}, checks(CheckStatus::pass));
  const NodeReports r = collect_node_reports(a[0] + "\n");
  EXPECT_TRUE(r.nodes.empty());
  ASSERT_FALSE(r.problems.empty());
  EXPECT_EQ(r.problems[0],
            "task 0 on a sent 1 checks of ?: its report was cut (the task died "
            "while printing?)");
  EXPECT_FALSE(nodes_ready(r));
}

TEST(DoctorNodes, AnUnreadableReportIsAProblem) {
  const NodeReports r = collect_node_reports(std::string(k_node_report_marker) + "{not json\n");
  EXPECT_TRUE(r.nodes.empty());
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("could not be read"), std::string::npos);
  EXPECT_FALSE(nodes_ready(r));
  EXPECT_FALSE(nodes_ready(collect_node_reports("")));  // no report at all
}

TEST(DoctorNodes, TextNamesTheNodeOnFailingLinesAndSumsUpEachNode) {
  const NodeReports r =
      collect_node_reports(report("a", TaskIndex{0, 2}, checks(CheckStatus::pass)) + "\n" +
                           report("b", TaskIndex{1, 2}, checks(CheckStatus::fail)) + "\n");
  std::ostringstream out;
  print_nodes_text(out, r);
  const std::string text = out.str();
  EXPECT_NE(text.find("  [b]  FAIL    network.ib_ports"), std::string::npos) << text;
  EXPECT_EQ(text.find("[a]"), std::string::npos) << text;  // a passes everything
  EXPECT_NE(text.find("doctor on a: 2 pass"), std::string::npos) << text;
  EXPECT_NE(text.find("doctor on b: 1 pass, 0 warn, 1 fail"), std::string::npos) << text;
  EXPECT_NE(text.find("doctor: 2 nodes from 2 tasks, failing: b"), std::string::npos) << text;
  const nlohmann::json j = nodes_json(r);
  EXPECT_EQ(j["nodes"].size(), 2u);
  EXPECT_EQ(j["nodes"][1]["host"], "b");
  EXPECT_EQ(j["summary"]["failing_nodes"], 1);
  EXPECT_EQ(j["summary"]["ready"], false);
}

TEST(DoctorNodes, TaskIndexComesFromTheLaunchersEnvironment) {
  ::unsetenv("OMPI_COMM_WORLD_RANK");
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  ::setenv("PMI_RANK", "3", 1);
  ::setenv("PMI_SIZE", "4", 1);
  const auto t = task_index_from_env();
  ::unsetenv("PMI_RANK");
  ::unsetenv("PMI_SIZE");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->rank, 3);
  EXPECT_EQ(t->tasks, 4);
  ::setenv("GPUBENCH_DOCTOR_HOST", "fixture-node", 1);
  EXPECT_EQ(doctor_host_name(), "fixture-node");
  ::unsetenv("GPUBENCH_DOCTOR_HOST");
  EXPECT_NE(doctor_host_name(), "fixture-node");
}

}  // namespace
}  // namespace gpubench::harness
