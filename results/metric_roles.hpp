// Metric roles: what a suite says each of its metrics is for (issue 9, "one verdict per
// benchmark"). A suite declares them next to its metrics in the Google Benchmark context key
// "gpubench.metrics" (field "role"):
//   primary    the benchmark's verdict: counted, averaged, gated on (exit codes, badges)
//   secondary  shown with its own verdict, never counted
//   parameter  describes the case (e.g. work_units): stored, never compared or charted
// real_time and cpu_time are secondary whenever the suite declares a primary metric of its own.
// Runs stored before roles existed (or foreign files) have no roles: every metric is primary,
// as before. Stored per suite run in table `suite_run_metric_roles` (schema v2, results/README.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "results/model.hpp"

namespace gpubench::results {

class Database;
struct ResultRow;

// metric name -> role, from a Google Benchmark context (empty when it declares no roles).
std::map<std::string, MetricRole> metric_roles_from_context(const nlohmann::json& context);

// Stores the roles the context declares for one suite run (inside the caller's transaction).
void record_metric_roles(Database& db, int64_t suite_run_id, const nlohmann::json& context);

// Sets ResultRow::role of every row from the stored roles of its suite run.
void attach_metric_roles(Database& db, std::vector<ResultRow>& rows);

}  // namespace gpubench::results
