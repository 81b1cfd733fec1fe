#include "harness/run/run_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "harness/probe/nvml.hpp"
#include "harness/process/process.hpp"
#include "harness/run/run_order.hpp"
#include "harness/run/runner.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::harness {

namespace {
// Estimates in JSON to the millisecond: the model is not finer than that.
double rounded(double seconds) {
  return std::round(seconds * 1000.0) / 1000.0;
}

// "412 s (6.9 min)": whole seconds, with minutes for long plans.
std::string seconds_text(double seconds) {
  char text[48];
  if (seconds >= 60) {
    std::snprintf(text, sizeof text, "%.0f s (%.1f min)", seconds, seconds / 60);
  } else {
    std::snprintf(text, sizeof text, "%.1f s", seconds);
  }
  return text;
}
}  // namespace

double PlannedSuite::estimated_s() const {
  double total = fixed_s;
  for (double s : case_seconds) total += s;
  return total;
}

int RunPlan::total_cases() const {
  int total = 0;
  for (const auto& s : suites) total += s.cases();
  return total;
}

int RunPlan::executions_of(const PlannedSuite& suite) const {
  const int e = std::max(1, executions);
  return more_when_cheap ? executions_for_cost(e, suite.estimated_s()) : e;
}

double RunPlan::suite_estimated_s(const PlannedSuite& suite) const {
  const int e = executions_of(suite);
  return suite.estimated_s() * e - std::min(suite.reused_s, suite.estimated_s()) * (e - 1);
}

std::vector<PlannedExecution> RunPlan::sequence() const {
  std::vector<PlannedExecution> out;
  int rounds = 0;
  for (const auto& s : suites) rounds = std::max(rounds, executions_of(s));
  for (int round = 0; round < rounds; ++round) {
    for (const auto& s : suites) {
      if (round >= executions_of(s)) continue;
      const double seconds =
          round == 0 ? s.estimated_s() : s.estimated_s() - std::min(s.reused_s, s.estimated_s());
      out.push_back({s.suite, suite_kind(s.suite), seconds});
    }
  }
  return out;
}

PlannedSettle RunPlan::settle() const {
  return planned_settle(sequence(), settle_bound_s);
}

double RunPlan::total_estimated_s() const {
  double total = settle().seconds;
  for (const auto& s : suites) total += suite_estimated_s(s);
  return total;
}

PlannedSuite parse_suite_plan(const std::string& json_text, const std::string& filter) {
  const auto j = nlohmann::json::parse(json_text, nullptr, false);
  if (!j.is_object() || !j.contains("cases") || !j["cases"].is_array() ||
      !j.contains("estimated_s") || !j["estimated_s"].is_number()) {
    throw infrastructure("a suite's --gpubench_plan answer is not a plan",
                         "expected {\"suite\", \"cases\": [...], \"estimated_s\"}",
                         "rebuild the suites with this gpubench (ci/setup)");
  }
  const bool negate = !filter.empty() && filter[0] == '-';
  std::optional<std::regex> re;
  if (!filter.empty()) {
    re.emplace(negate ? filter.substr(1) : filter, std::regex::extended | std::regex::nosubs);
  }
  PlannedSuite s;
  s.suite = j.value("suite", "");
  s.assumptions = j.value("assumptions", "");
  if (j.contains("disk_bytes") && j["disk_bytes"].is_number_unsigned()) {
    s.disk_bytes = j["disk_bytes"].get<std::uint64_t>();
  }
  if (j.contains("reused_s") && j["reused_s"].is_number() && j["reused_s"].get<double>() > 0) {
    s.reused_s = j["reused_s"].get<double>();
  }
  double cases_s = 0;
  for (const auto& c : j["cases"]) {
    const std::string name = c.value("name", "");
    const double seconds = c.value("estimated_s", 0.0);
    cases_s += seconds;
    if (re && std::regex_search(name, *re) == negate) continue;
    s.case_names.push_back(name);
    s.case_seconds.push_back(seconds);
  }
  s.fixed_s = std::max(0.0, j["estimated_s"].get<double>() - cases_s);
  return s;
}

PlannedSuite ask_suite_plan(const SuiteExecutable& suite, const std::string& profile, int gpus,
                            int repetitions, const std::string& filter, double timeout_s,
                            const std::vector<std::pair<std::string, std::string>>& env) {
  TempDir tmp("gpubench-plan");
  ProcessSpec spec;
  spec.argv = {suite.path.string(), "--gpubench_plan",
               "--gpubench_plan_gpus=" + std::to_string(gpus),
               "--gpubench_plan_repetitions=" + std::to_string(repetitions)};
  spec.env = {{"GPUBENCH_PROFILE", profile}};
  spec.env.insert(spec.env.end(), env.begin(), env.end());
  spec.stdout_path = tmp.path() / "plan.json";
  spec.timeout_s = timeout_s;
  spec.kill_grace_s = 2;
  const ProcessResult r = run_process(spec);
  if (!r.succeeded()) {
    const std::string why =
        !r.spawn_error.empty() ? r.spawn_error
        : r.timed_out          ? "it did not answer within " + format_significant(timeout_s) + " s"
        : r.term_signal        ? "killed by " + signal_name(*r.term_signal)
                               : "exit code " + std::to_string(r.exit_code.value_or(-1)) +
                              (r.stderr_tail.empty() ? "" : ": " + r.stderr_tail);
    throw infrastructure("suite '" + suite.name + "' gave no plan", why,
                         "run '" + suite.path.string() +
                             " --gpubench_plan' to see why, or leave it out with --suite");
  }
  PlannedSuite s = parse_suite_plan(read_file(spec.stdout_path), filter);
  if (s.suite.empty()) s.suite = suite.name;
  return s;
}

std::optional<bool> suite_lists_a_match(const SuiteExecutable& suite, const std::string& profile,
                                        const std::string& filter, double timeout_s) {
  TempDir tmp("gpubench-list");
  ProcessSpec spec;
  spec.argv = {suite.path.string(), "--benchmark_list_tests=true", "--benchmark_filter=" + filter};
  spec.env = {{"GPUBENCH_PROFILE", profile}};
  spec.stdout_path = tmp.path() / "list.txt";
  spec.timeout_s = timeout_s;
  spec.kill_grace_s = 2;
  const ProcessResult r = run_process(spec);
  if (!r.succeeded()) return std::nullopt;
  return !trim(read_file(spec.stdout_path)).empty();
}

std::pair<int, std::string> detect_gpu_count() {
  const Nvml nvml;
  if (!nvml.available()) return {0, "no GPU known: NVML unavailable (" + nvml.reason() + ")"};
  const int n = nvml.device_count();
  return {n, std::to_string(n) + " GPU" + (n == 1 ? "" : "s") + " found by NVML"};
}

std::string run_plan_json(const RunPlan& plan) {
  const PlannedSettle settle = plan.settle();
  nlohmann::json suites = nlohmann::json::array();
  for (const auto& s : plan.suites) {
    suites.push_back({{"suite", s.suite},
                      {"kind", to_string(suite_kind(s.suite))},
                      {"cases", s.cases()},
                      {"estimated_s", rounded(plan.suite_estimated_s(s))},
                      {"executions", plan.executions_of(s)},
                      {"execution_s", rounded(s.estimated_s())},
                      {"process_start_s", rounded(s.fixed_s)},
                      {"reused_s", rounded(s.reused_s)},
                      {"assumptions", s.assumptions}});
  }
  const nlohmann::json out = {{"profile", plan.profile},
                              {"executions", plan.executions},
                              {"repetitions", plan.repetitions},
                              {"gpus", plan.gpus},
                              {"gpus_source", plan.gpus_source},
                              {"suites", suites},
                              {"settle",
                               {{"settles", settle.settles},
                                {"bound_s", plan.settle_bound_s},
                                {"estimated_s", rounded(settle.seconds)}}},
                              {"total_cases", plan.total_cases()},
                              {"total_estimated_s", rounded(plan.total_estimated_s())}};
  return out.dump(2);
}

void print_run_plan(std::ostream& to, const RunPlan& plan) {
  // Written whole, then its prose lines wrapped at the output width (issue 39).
  std::ostringstream out;
  out << "plan: profile " << plan.profile << ", " << plan.executions << " execution"
      << (plan.executions == 1 ? "" : "s") << " of every suite (separate processes) of "
      << plan.repetitions << " repetition" << (plan.repetitions == 1 ? "" : "s") << ", "
      << plan.gpus << " GPU" << (plan.gpus == 1 ? "" : "s")
      << (plan.gpus_source == "flag" ? " (--gpus: a hypothetical server of the reference class)"
                                     : " (this machine: " + plan.gpus_note + ")")
      << "\n";
  std::vector<std::vector<std::string>> rows;
  double starts = 0;
  for (const auto& s : plan.suites) {
    rows.push_back({s.suite, std::to_string(s.cases()), std::to_string(plan.executions_of(s)),
                    seconds_text(s.estimated_s()), seconds_text(s.fixed_s),
                    seconds_text(plan.suite_estimated_s(s))});
    starts += s.fixed_s * plan.executions_of(s);
  }
  const PlannedSettle settle = plan.settle();
  if (settle.settles > 0) {
    rows.push_back(
        {"settle", "", std::to_string(settle.settles), "", "", seconds_text(settle.seconds)});
  }
  rows.push_back({"total", std::to_string(plan.total_cases()), "", "", seconds_text(starts),
                  seconds_text(plan.total_estimated_s())});
  print_table(out, {"suite", "cases", "executions", "one execution", "process start", "estimated"},
              rows);
  out << "The total counts " << plan.executions << " execution" << (plan.executions == 1 ? "" : "s")
      << " of every suite"
      << (plan.more_when_cheap
              ? " (a cheap suite gets as many as fit in " + seconds_text(k_cheap_suite_budget_s) +
                    ", up to " + std::to_string(k_cheap_suite_max_executions) + ")"
              : "")
      << "; process starts (the process, a CUDA context per GPU, "
         "libraries, communicators) are paid in each and come to "
      << seconds_text(starts) << " of it";
  double reused = 0;
  for (const auto& s : plan.suites) reused += s.reused_s * std::max(0, plan.executions_of(s) - 1);
  if (reused > 0) {
    out << "; later executions reuse what the first one found (gemm's cuBLASLt algorithm "
           "search), which saves "
        << seconds_text(reused);
  }
  out << ".\n";
  std::vector<std::string> names;
  for (const auto& s : plan.suites) names.push_back(s.suite);
  out << "Order in every round: " << order_text(names) << ".";
  if (settle.settles > 0) {
    out << " Before a device suite that follows a power-heavy one the run waits, idle, until "
           "the GPUs' temperature, SM clock and clocks-event reasons are back near the run's "
           "start, at most "
        << seconds_text(plan.settle_bound_s)
        << " after the power-heavy suite ended: " << settle.settles << " settle"
        << (settle.settles == 1 ? "" : "s") << ", counted at " << seconds_text(settle.seconds)
        << " (the bound, less the host suites run in between).";
  }
  out << "\n";
  // Each suite's assumptions end with the shared rate table: print that once.
  const std::string marker = "model assumptions, not measurements";
  std::string rates;
  out << "Estimates come from a time model at reference rates, not from measurements; nothing "
         "was run or stored.\n";
  for (const auto& s : plan.suites) {
    std::string own = s.assumptions;
    if (const auto at = own.find(marker); at != std::string::npos) {
      if (rates.empty()) rates = own.substr(at);
      own = own.substr(0, at);
      while (!own.empty() && (own.back() == ' ' || own.back() == ';')) own.pop_back();
    }
    out << "  " << s.suite << ": " << own << "\n";
  }
  if (!rates.empty()) out << "Rates: " << rates << "\n";
  to << wrap_lines(out.str(), output_width());
}

}  // namespace gpubench::harness
