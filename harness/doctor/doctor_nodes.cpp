// doctor on every node: the per-node report line, collecting one report per host, rendering.
#include "harness/doctor/doctor_nodes.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "harness/doctor/doctor.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

namespace {

std::optional<int> env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0 || n > 1000000) return std::nullopt;
  return static_cast<int>(n);
}

std::optional<results::DoctorCheck> check_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  results::DoctorCheck c;
  const auto text = [&](const char* key, std::string& into) {
    if (!j.contains(key) || !j[key].is_string()) return false;
    into = j[key].get<std::string>();
    return true;
  };
  std::string status;
  if (!text("name", c.name) || !text("status", status)) return std::nullopt;
  const auto parsed = results::check_status_from_string(status);
  if (!parsed) return std::nullopt;
  c.status = *parsed;
  text("area", c.area);
  text("value", c.value);
  text("expected", c.expected);
  text("fix", c.fix);
  return c;
}

// The start of a line for a message, so a reader can find it in the launcher's output.
std::string line_start(const std::string& line) {
  return line.size() > 60 ? line.substr(0, 60) + "..." : line;
}

}  // namespace

std::optional<TaskIndex> task_index_from_env() {
  const std::pair<const char*, const char*> pairs[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMI_SIZE"},
      {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS"}};
  for (const auto& [rank_name, size_name] : pairs) {
    const auto rank = env_int(rank_name);
    const auto size = env_int(size_name);
    if (rank && size && *size > 0 && *rank < *size) return TaskIndex{*rank, *size};
  }
  return std::nullopt;
}

std::string doctor_host_name() {
  if (const char* v = std::getenv("GPUBENCH_DOCTOR_HOST"); v && *v) return v;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0 && name[0]) return name;
  return "unknown";
}

std::vector<std::string> node_report_lines(const std::string& host,
                                           const std::optional<TaskIndex>& task,
                                           const std::vector<results::DoctorCheck>& checks) {
  nlohmann::json who = {{"host", host}};
  who["rank"] = task ? nlohmann::json(task->rank) : nlohmann::json(nullptr);
  who["tasks"] = task ? nlohmann::json(task->tasks) : nlohmann::json(nullptr);
  std::vector<std::string> lines;
  const nlohmann::json list = doctor_json(checks)["checks"];
  for (const nlohmann::json& c : list) {
    nlohmann::json j = who;
    j["check"] = c;
    // dump() without indent escapes newlines inside strings: each stays one line.
    lines.push_back(std::string(k_node_report_marker) + j.dump());
  }
  nlohmann::json end = who;
  end["end"] = checks.size();
  lines.push_back(std::string(k_node_report_marker) + end.dump());
  return lines;
}

NodeReports collect_node_reports(const std::string& stdout_text) {
  // Each task's lines, by (host, rank; -1 when the launcher says no rank), in order of first line.
  struct Task {
    std::string host;
    int rank = -1;
    int tasks = 0;
    std::vector<results::DoctorCheck> checks;
    std::optional<std::size_t> end;  // the check count its end line gave
  };
  std::vector<Task> tasks;
  std::map<std::pair<std::string, int>, std::size_t> index;
  NodeReports out;
  std::istringstream in(stdout_text);
  std::string line;
  while (std::getline(in, line)) {
    // A launcher may prefix each line of a task ("0: " from srun --label): find the marker.
    const std::size_t at = line.find(k_node_report_marker);
    if (at == std::string::npos) continue;
    const std::string body = line.substr(at + std::string(k_node_report_marker).size());
    const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    std::optional<results::DoctorCheck> check;
    const bool named = j.is_object() && j.contains("host") && j["host"].is_string();
    const bool is_end = named && j.contains("end") && j["end"].is_number_unsigned();
    if (named && !is_end && j.contains("check")) check = check_from_json(j["check"]);
    if (!is_end && !check) {
      out.problems.push_back("a task's report line could not be read ('" + line_start(body) +
                             "'): a different gpubench on that node? Install the same build on "
                             "every node");
      continue;
    }
    const bool ranked = j.contains("rank") && j["rank"].is_number_integer() &&
                        j.contains("tasks") && j["tasks"].is_number_integer();
    const int rank = ranked ? j["rank"].get<int>() : -1;
    auto [it, added] =
        index.emplace(std::make_pair(j["host"].get<std::string>(), rank), tasks.size());
    if (added)
      tasks.push_back(Task{j["host"].get<std::string>(),
                           rank,
                           ranked ? j["tasks"].get<int>() : 0,
                           {},
                           std::nullopt});
    Task& task = tasks[it->second];
    if (is_end) {
      task.end = j["end"].get<std::size_t>();
    } else {
      task.checks.push_back(*check);
    }
  }
  std::set<int> ranks_seen;
  std::map<std::string, std::size_t> by_host;
  for (Task& task : tasks) {
    const std::string who =
        task.rank >= 0 ? "task " + std::to_string(task.rank) + " on " + task.host : task.host;
    if (!task.end || *task.end != task.checks.size()) {
      out.problems.push_back(who + " sent " + std::to_string(task.checks.size()) + " checks of " +
                             (task.end ? std::to_string(*task.end) : std::string("?")) +
                             ": its report was cut (the task died while printing?)");
      continue;
    }
    out.tasks = std::max(out.tasks, task.tasks);
    if (task.rank >= 0) ranks_seen.insert(task.rank);
    auto [it, added] = by_host.emplace(task.host, out.nodes.size());
    if (added) out.nodes.push_back(NodeReport{task.host, {}, std::move(task.checks)});
    if (task.rank >= 0) out.nodes[it->second].ranks.push_back(task.rank);
  }
  for (NodeReport& node : out.nodes) std::sort(node.ranks.begin(), node.ranks.end());
  for (int r = 0; r < out.tasks; ++r) {
    if (!ranks_seen.count(r)) {
      out.problems.push_back("task " + std::to_string(r) + " of " + std::to_string(out.tasks) +
                             " gave no report (it did not start, or died before printing; see "
                             "the launcher's output above)");
    }
  }
  return out;
}

bool nodes_ready(const NodeReports& reports) {
  if (reports.nodes.empty() || !reports.problems.empty()) return false;
  for (const NodeReport& node : reports.nodes) {
    if (results::count_checks(node.checks).fail > 0) return false;
  }
  return true;
}

void print_nodes_text(std::ostream& out, const NodeReports& reports) {
  std::vector<std::string> failing;
  for (const NodeReport& node : reports.nodes) {
    out << "node " << node.host;
    if (!node.ranks.empty()) {
      std::vector<std::string> ranks;
      for (int r : node.ranks) ranks.push_back(std::to_string(r));
      out << " (task" << (ranks.size() > 1 ? "s " : " ") << join(ranks, ", ") << ")";
    }
    out << '\n';
    // The single-node rendering, with the node's name on every line that is not a pass, so a
    // grep for "fail" across many nodes says where.
    std::ostringstream one;
    print_doctor_text(one, node.checks);
    std::istringstream lines(one.str());
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("doctor: ", 0) == 0) continue;  // replaced by the node's summary line
      const bool check_line = line.size() > 2 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ';
      if (check_line && line.rfind("  PASS", 0) != 0) line = "  [" + node.host + "]" + line;
      out << line << '\n';
    }
    const results::DoctorCounts n = results::count_checks(node.checks);
    if (n.fail > 0) failing.push_back(node.host);
    out << "doctor on " << node.host << ": " << results::counts_text(n) << '\n';
  }
  for (const std::string& p : reports.problems) out << "doctor: problem: " << p << '\n';
  out << "doctor: " << reports.nodes.size() << " node" << (reports.nodes.size() == 1 ? "" : "s");
  if (reports.tasks > 0) out << " from " << reports.tasks << " tasks";
  if (failing.empty()) {
    out << ", none failing";
  } else {
    out << ", failing: " << join(failing, ", ");
  }
  if (!reports.problems.empty()) out << "; " << reports.problems.size() << " problem(s) above";
  out << '\n';
}

nlohmann::json nodes_json(const NodeReports& reports) {
  nlohmann::json nodes = nlohmann::json::array();
  int failing = 0;
  for (const NodeReport& node : reports.nodes) {
    nlohmann::json j = doctor_json(node.checks);
    j["host"] = node.host;
    j["ranks"] = node.ranks;
    if (results::count_checks(node.checks).fail > 0) ++failing;
    nodes.push_back(std::move(j));
  }
  return {{"nodes", nodes},
          {"tasks", reports.tasks > 0 ? nlohmann::json(reports.tasks) : nlohmann::json(nullptr)},
          {"problems", reports.problems},
          {"summary",
           {{"nodes", reports.nodes.size()},
            {"failing_nodes", failing},
            {"ready", nodes_ready(reports)}}}};
}

}  // namespace gpubench::harness
