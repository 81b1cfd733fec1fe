#include "results/metric_roles.hpp"

#include <nlohmann/json.hpp>

#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"

namespace gpubench::results {

const char* to_string(MetricRole role) {
  switch (role) {
    case MetricRole::primary:
      return "primary";
    case MetricRole::secondary:
      return "secondary";
    case MetricRole::parameter:
      return "parameter";
    case MetricRole::unknown:
      return "unknown";
  }
  return "unknown";
}

std::optional<MetricRole> metric_role_from_string(const std::string& text) {
  if (text == "primary") return MetricRole::primary;
  if (text == "secondary") return MetricRole::secondary;
  if (text == "parameter") return MetricRole::parameter;
  if (text == "unknown") return MetricRole::unknown;
  return std::nullopt;
}

std::map<std::string, MetricRole> metric_roles_from_context(const nlohmann::json& context) {
  std::map<std::string, MetricRole> roles;
  if (!context.is_object()) return roles;
  auto it = context.find("gpubench.metrics");
  if (it == context.end()) return roles;
  nlohmann::json arr = *it;
  if (arr.is_string()) arr = nlohmann::json::parse(arr.get<std::string>(), nullptr, false);
  if (!arr.is_array()) return roles;  // ingest reports a malformed declaration
  bool any_primary = false;
  for (const nlohmann::json& m : arr) {
    if (!m.is_object() || !m.contains("name") || !m["name"].is_string()) continue;
    auto r = m.find("role");
    if (r == m.end() || !r->is_string()) continue;
    std::optional<MetricRole> role = metric_role_from_string(r->get<std::string>());
    if (!role || *role == MetricRole::unknown) continue;
    roles[m["name"].get<std::string>()] = *role;
    any_primary = any_primary || *role == MetricRole::primary;
  }
  if (any_primary) {
    // The suite's own metric is the verdict; Google Benchmark's times describe the same effect.
    for (const char* t : {"real_time", "cpu_time"}) roles.try_emplace(t, MetricRole::secondary);
  }
  return roles;
}

void record_metric_roles(Database& db, int64_t suite_run_id, const nlohmann::json& context) {
  const std::map<std::string, MetricRole> roles = metric_roles_from_context(context);
  if (roles.empty()) return;
  Statement st = db.prepare(
      "INSERT OR REPLACE INTO suite_run_metric_roles(suite_run_id, metric, role) "
      "VALUES (?1, ?2, ?3)");
  for (const auto& [metric, role] : roles) {
    st.reset();
    st.bind(1, suite_run_id).bind(2, metric).bind(3, std::string(to_string(role)));
    st.run();
  }
}

void attach_metric_roles(Database& db, std::vector<ResultRow>& rows) {
  std::map<std::pair<int64_t, std::string>, MetricRole> roles;
  std::map<int64_t, bool> loaded;
  Statement st =
      db.prepare("SELECT metric, role FROM suite_run_metric_roles WHERE suite_run_id = ?1");
  for (ResultRow& row : rows) {
    if (!loaded[row.suite_run_id]) {
      loaded[row.suite_run_id] = true;
      st.reset();
      st.bind(1, row.suite_run_id);
      while (st.step()) {
        roles[{row.suite_run_id, st.column_text(0)}] =
            metric_role_from_string(st.column_text(1)).value_or(MetricRole::unknown);
      }
    }
    auto it = roles.find({row.suite_run_id, row.metric});
    if (it != roles.end()) {
      row.role = it->second;
    } else {
      // A suite that declares roles leaves its undeclared counters secondary; a suite run
      // without roles (older runs, foreign files) keeps every metric primary.
      auto any = roles.lower_bound({row.suite_run_id, std::string()});
      bool declared = any != roles.end() && any->first.first == row.suite_run_id;
      row.role = declared ? MetricRole::secondary : MetricRole::unknown;
    }
  }
}

}  // namespace gpubench::results
