// `gpubench doctor --launcher "srun -N 2 --ntasks-per-node=1"`: doctor on every node of a
// multi-node job. The harness starts the launcher with this gpubench's `doctor --per-node`; each
// task runs the checks on its node and prints marked lines (node_report_lines) on stdout; the
// harness keeps one report per host (tasks on one host are one node) and names every task that
// gave none. Host logic here; the CLI (harness/cli/cmd_doctor.cpp) starts the launcher.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "results/doctor_store.hpp"

namespace gpubench::harness {

// What starts a per-node line on stdout; anything else there (launcher chatter) is ignored.
inline constexpr const char* k_node_report_marker = "gpubench-doctor-node: ";

// Which task of how many this process is, as the launcher's environment says: the first of
// OMPI_COMM_WORLD_RANK/SIZE (Open MPI), PMI_RANK/SIZE (Hydra, Intel MPI, srun --mpi=pmi2),
// SLURM_PROCID/SLURM_STEP_NUM_TASKS (srun) that has both. nullopt when none does.
struct TaskIndex {
  int rank = 0;
  int tasks = 1;
};
std::optional<TaskIndex> task_index_from_env();

// The node's name in its report: $GPUBENCH_DOCTOR_HOST when set (for tests that play several
// nodes on one machine; documented in harness/doctor/README.md), else gethostname().
std::string doctor_host_name();

// A task's report as lines (no newlines), each the marker then JSON naming the task ("host",
// "rank", "tasks"): one per check ("check": {...}), then {"end": <checks>}. Short, self-contained
// lines because a launcher forwards the tasks' output in chunks and may interleave two tasks' bytes
// inside a long line (mpirun did with one line per report); each line is to be written and flushed
// on its own, paced (cmd_doctor.cpp): a launcher forwards a task's output in the chunks it reads.
std::vector<std::string> node_report_lines(const std::string& host,
                                           const std::optional<TaskIndex>& task,
                                           const std::vector<results::DoctorCheck>& checks);

struct NodeReport {
  std::string host;
  std::vector<int> ranks;  // the tasks that reported from this host (empty: the launcher gave none)
  std::vector<results::DoctorCheck>
      checks;  // the first report's (the others describe the same node)
};

struct NodeReports {
  std::vector<NodeReport> nodes;  // one per host, in the order of their first report
  int tasks = 0;                  // the launcher's task count (largest any report gave), 0: unknown
  std::vector<std::string>
      problems;  // "task 1 of 2 gave no report", unreadable lines, launcher failure
};

// Reads every marked line of `stdout_text`, gathering each task's lines (they may interleave with
// other tasks'). A task is missing when its rank (0 .. tasks-1) sent no complete report (its end
// line, with as many checks as it says); a marked line that cannot be read is a problem (named,
// with its start).
NodeReports collect_node_reports(const std::string& stdout_text);

// Whether every node passed (no failing check) and nothing is missing.
bool nodes_ready(const NodeReports& reports);

// Each node's checks as print_doctor_text lists them, every line that is not a pass starting with
// "[host]", a summary line per node, then the problems and a last line for all nodes.
void print_nodes_text(std::ostream& out, const NodeReports& reports);

// {"nodes": [{"host", "ranks", "checks", "summary"}], "tasks", "problems", "summary"}.
nlohmann::json nodes_json(const NodeReports& reports);

}  // namespace gpubench::harness
