// Doctor checks whose status differs between the two sides of a comparison, listed with the
// environment differences ("doctor limits.nofile: pass (ulimit -n 65536) -> warn (...)").
#include <map>
#include <set>

#include "compare/compare.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {

namespace {
struct SideChecks {
  std::map<std::string, std::set<std::string>> statuses;  // check -> statuses seen
  std::map<std::string, std::set<std::string>> shown;     // check -> "status (value)" seen
  bool any = false;
};

SideChecks collect(const std::vector<results::RunDetail>& runs) {
  SideChecks s;
  for (const results::RunDetail& run : runs) {
    for (const results::DoctorCheck& c : run.doctor) {
      s.any = true;
      s.statuses[c.name].insert(results::to_string(c.status));
      s.shown[c.name].insert(std::string(results::to_string(c.status)) + " (" + c.value + ")");
    }
  }
  return s;
}

std::string joined(const std::set<std::string>& values) {
  return join(std::vector<std::string>(values.begin(), values.end()), ", ");
}
}  // namespace

void append_doctor_differences(const std::vector<results::RunDetail>& base,
                               const std::vector<results::RunDetail>& cand,
                               std::vector<EnvDifference>& out) {
  const SideChecks b = collect(base), c = collect(cand);
  // Runs recorded before doctor existed (or imported) have no checks: nothing to compare.
  if (!b.any || !c.any) return;
  for (const auto& [name, statuses] : b.statuses) {
    const auto it = c.statuses.find(name);
    if (it == c.statuses.end() || it->second == statuses) continue;
    out.push_back({"doctor " + name, joined(b.shown.at(name)), joined(c.shown.at(name))});
  }
}

}  // namespace gpubench::compare
