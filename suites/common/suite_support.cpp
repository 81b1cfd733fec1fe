// suite_main() (--gpubench_info, --gpubench_plan, the run) and the helpers suite mains share.
#include "suites/common/suite_support.hpp"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <utility>

#include "gpubench_version.hpp"
#include "suites/common/plan.hpp"
#include "util/error.hpp"

namespace gpubench::suite {

Profile profile_from_env() {
  const char* value = std::getenv("GPUBENCH_PROFILE");
  if (!value || !*value) return Profile::standard;
  if (std::strcmp(value, "quick") == 0) return Profile::quick;
  if (std::strcmp(value, "standard") == 0) return Profile::standard;
  if (std::strcmp(value, "full") == 0) return Profile::full;
  std::cerr << "gpubench: warning: GPUBENCH_PROFILE='" << value
            << "' is not quick, standard or full; using standard\n";
  return Profile::standard;
}

const char* to_string(Profile profile) {
  switch (profile) {
    case Profile::quick:
      return "quick";
    case Profile::standard:
      return "standard";
    case Profile::full:
      return "full";
  }
  return "standard";
}

namespace {
nlohmann::json metrics_array(const std::vector<MetricSpec>& metrics) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& m : metrics) {
    const char* role = m.role == Role::primary     ? "primary"
                       : m.role == Role::secondary ? "secondary"
                                                   : "parameter";
    arr.push_back({{"name", m.name},
                   {"unit", m.unit},
                   {"direction", m.role == Role::parameter          ? "unknown"
                                 : m.direction == Direction::higher ? "higher"
                                                                    : "lower"},
                   {"description", m.description},
                   {"role", role}});
  }
  return arr;
}
}  // namespace

std::string metrics_json(const std::vector<MetricSpec>& metrics) {
  return metrics_array(metrics).dump();
}

namespace {
std::function<void(const std::string&)>& before_each_case() {
  static std::function<void(const std::string&)> hook;
  return hook;
}
}  // namespace

void set_before_each_case(std::function<void(const std::string& name)> hook) {
  before_each_case() = std::move(hook);
}

void run_before_each_case(const std::string& name) {
  if (before_each_case()) before_each_case()(name);
}

void skip(benchmark::State& state, std::string_view reason) {
  std::string msg = "skipped: ";
  msg += reason;
  state.SkipWithError(msg.c_str());
}

void fail(benchmark::State& state, std::string_view reason) {
  std::string msg(reason);
  state.SkipWithError(msg.c_str());
}

Availability available_unless(std::string reason) {
  Availability avail;
  if (!reason.empty()) {
    avail.runnable = false;
    avail.reason = std::move(reason);
  }
  return avail;
}

std::string device_cases_note(const std::string& unavailable_reason) {
  return unavailable_reason.empty() ? "device cases: available"
                                    : "device cases: skipped: " + unavailable_reason;
}

bool has_arg(int argc, char** argv, std::string_view flag) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i] == flag) return true;
  }
  return false;
}

int report_error(std::string_view program, const Error& e) {
  // e.what() is already format_error_message(what, why, fix).
  std::cerr << program << ": error: " << e.what() << "\n";
  return static_cast<int>(e.code());
}

namespace {
// --gpubench_plan: the plan as one JSON line on stdout. Nothing is registered or run.
int print_plan(int argc, char** argv, const SuiteInfo& info) {
  PlanRequest request;
  request.profile = profile_from_env();
  try {
    request.gpus = plan_count_from_args(argc, argv, "gpubench_plan_gpus").value_or(0);
    request.repetitions = plan_count_from_args(argc, argv, "gpubench_plan_repetitions").value_or(0);
  } catch (const Error& e) {
    return report_error("gpubench-" + info.name, e);
  }
  SuitePlan plan;
  if (info.plan) {
    plan = info.plan(request);
  } else {
    plan.assumptions = "this suite has no plan model";
  }
  plan.suite = info.name;
  plan.gpus = request.gpus;
  std::cout << plan_json(plan) << std::endl;
  return 0;
}
}  // namespace

int suite_main(int argc, char** argv, const SuiteInfo& info) {
  if (has_arg(argc, argv, "--gpubench_plan")) return print_plan(argc, argv, info);
  if (has_arg(argc, argv, "--gpubench_info")) {
    Availability avail = info.availability ? info.availability() : Availability{};
    nlohmann::json out = {{"suite", info.name},
                          {"description", info.description},
                          {"metrics", metrics_array(info.metrics)},
                          {"runnable", avail.runnable},
                          {"reason", avail.reason},
                          {"notes", avail.notes},
                          {"gpubench_version", build_info::k_version}};
    if (avail.mpi) out["mpi"] = *avail.mpi;
    std::cout << out.dump() << std::endl;
    return 0;
  }
  const Profile profile = profile_from_env();
  benchmark::AddCustomContext("gpubench.suite", info.name);
  benchmark::AddCustomContext("gpubench.metrics", metrics_json(info.metrics));
  benchmark::AddCustomContext("gpubench.profile", to_string(profile));
  benchmark::AddCustomContext("gpubench.version", build_info::k_version);
  if (info.register_benchmarks) info.register_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  if (info.file_reporter) {
    benchmark::RunSpecifiedBenchmarks(nullptr, info.file_reporter);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  return 0;
}

}  // namespace gpubench::suite
