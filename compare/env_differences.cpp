// Environment differences between the two sides of a comparison (DESIGN.md: verdicts name them).
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "compare/compare.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {
namespace {

std::string joined_values(const std::vector<results::RunDetail>& runs,
                          const std::function<std::string(const results::RunDetail&)>& get) {
  std::set<std::string> seen;
  std::vector<std::string> ordered;
  for (const results::RunDetail& run : runs) {
    std::string v = get(run);
    if (seen.insert(v).second) ordered.push_back(v);
  }
  return join(ordered, ",");
}

std::string gpu_models(const results::RunDetail& run) {
  std::map<std::string, int> counts;
  for (const results::GpuInfo& gpu : run.info.gpus) counts[gpu.name]++;
  if (counts.empty()) return "none";
  std::vector<std::string> parts;
  for (const auto& [name, n] : counts) parts.push_back(std::to_string(n) + "x " + name);
  return join(parts, "+");
}

// The busiest execution of each suite on a side: CPUs other processes kept busy while it ran
// (results::MachineLoad, recorded by `gpubench run`), with the load average then.
std::map<std::string, const results::MachineLoad*> busiest_by_suite(
    const std::vector<results::RunDetail>& runs) {
  std::map<std::string, const results::MachineLoad*> out;
  for (const results::RunDetail& run : runs) {
    for (const results::SuiteRunInfo& s : run.suites) {
      if (!s.load) continue;
      auto [it, fresh] = out.emplace(s.suite, &*s.load);
      if (!fresh && s.load->other_cpus_busy() > it->second->other_cpus_busy()) {
        it->second = &*s.load;
      }
    }
  }
  return out;
}

std::string load_text(const results::MachineLoad& m) {
  return format_significant(m.other_cpus_busy(), 2) + " CPUs busy elsewhere (load average " +
         format_significant(std::max(m.loadavg_1m_start, m.loadavg_1m_end), 3) + ")";
}

// A suite both sides ran whose machine differed in how busy it was with other work by half a CPU
// or more: a host-bound result can move that much on a neighbour's job alone (issue 38).
void append_machine_load_differences(const std::vector<results::RunDetail>& base,
                                     const std::vector<results::RunDetail>& cand,
                                     std::vector<EnvDifference>& out) {
  constexpr double k_min_cpus = 0.5;
  const auto b = busiest_by_suite(base);
  const auto c = busiest_by_suite(cand);
  for (const auto& [suite, bl] : b) {
    auto it = c.find(suite);
    if (it == c.end()) continue;
    if (std::fabs(bl->other_cpus_busy() - it->second->other_cpus_busy()) < k_min_cpus) continue;
    out.push_back({"machine load (" + suite + ")", load_text(*bl), load_text(*it->second)});
  }
}

}  // namespace

bool is_location_variable(const std::string& name) {
  // The CI templates' own variables (ci/templates; tests/ci/run_templates.py checks that every
  // GPUBENCH_ name a template uses and gpubench does not read is here) and gpubench's paths.
  static const std::set<std::string> k_names = {
      "GPUBENCH_RUN_ARGS",   "GPUBENCH_BASELINE",        "GPUBENCH_OUT",           "GPUBENCH_BIN",
      "GPUBENCH_SPEC",       "GPUBENCH_TEXTFILE_DIR",    "GPUBENCH_REFERENCE_DB",  "GPUBENCH_DB",
      "GPUBENCH_SUITE_PATH", "GPUBENCH_BUSY_TIMEOUT_MS", "GPUBENCH_FAIL_ON_CHANGE",
      "GPUBENCH_RUN_SCRATCH"};
  return k_names.count(name) > 0;
}

std::vector<EnvDifference> environment_differences(const std::vector<results::RunDetail>& base,
                                                   const std::vector<results::RunDetail>& cand) {
  using Getter = std::function<std::string(const results::RunDetail&)>;
  std::vector<std::pair<std::string, Getter>> fields = {
      {"GPU", gpu_models},
      {"driver", [](const auto& r) { return r.info.software.driver_version; }},
      {"CUDA runtime", [](const auto& r) { return r.info.software.cuda_runtime_version; }},
      {"CUDA driver API", [](const auto& r) { return r.info.software.cuda_driver_version; }},
      {"cuBLAS", [](const auto& r) { return r.info.software.cublas_version; }},
      {"NCCL", [](const auto& r) { return r.info.software.nccl_version; }},
      {"kernel", [](const auto& r) { return r.info.host.kernel; }},
      {"host", [](const auto& r) { return r.info.host.hostname; }},
      {"CPU", [](const auto& r) { return r.info.host.cpu_model; }},
      {"governor", [](const auto& r) { return r.info.host.governor; }},
      {"gpubench version", [](const auto& r) { return r.info.software.gpubench_version; }},
      {"git sha", [](const auto& r) { return r.info.software.git_sha; }},
      {"compiler", [](const auto& r) { return r.info.software.compiler; }},
      {"profile", [](const auto& r) { return r.info.config.profile; }},
      {"clocks locked", [](const auto& r) { return r.info.config.clocks_locked; }},
  };
  std::vector<EnvDifference> out;
  for (const auto& [field, get] : fields) {
    std::string b = joined_values(base, get);
    std::string c = joined_values(cand, get);
    if (b != c) out.push_back({field, b, c});
  }
  std::set<std::string> env_names;
  for (const auto* side : {&base, &cand}) {
    for (const results::RunDetail& run : *side) {
      for (const auto& [k, v] : run.info.config.env) {
        if (!is_location_variable(k)) env_names.insert(k);
      }
    }
  }
  for (const std::string& name : env_names) {
    Getter get = [&name](const results::RunDetail& r) {
      auto it = r.info.config.env.find(name);
      return it == r.info.config.env.end() ? std::string("(unset)") : it->second;
    };
    std::string b = joined_values(base, get);
    std::string c = joined_values(cand, get);
    if (b != c) out.push_back({"env " + name, b, c});
  }
  append_doctor_differences(base, cand, out);        // issue 15
  append_machine_load_differences(base, cand, out);  // issue 38
  return out;
}

}  // namespace gpubench::compare
