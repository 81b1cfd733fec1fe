// Internal to results/: the write steps of the store without their own transaction, so that
// Store can combine them into one (a suite's row + samples + telemetry; a whole import), and the
// checks the store's files share.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "results/liveness.hpp"
#include "results/model.hpp"
#include "results/store.hpp"

namespace gpubench::results {

class Database;

namespace detail {

// `path` in single quotes, as errors name a database (store.cpp).
std::string quoted(const std::filesystem::path& path);
// Throws Error(bad_input) when the database has no run `run_id` (store_runs.cpp).
void require_run(Database& db, int64_t run_id);

// Each of these runs inside a transaction the caller holds.
// The run row (status running) with its host, environment, tags and GPUs; `lock` (nullable) is
// recorded in run_liveness. Throws Error(bad_input) when the UUID is already stored.
int64_t insert_run(Database& db, const RunInfo& info, const std::string& uuid, const RunLock* lock);
void update_run_status(Database& db, int64_t run_id, RunStatus status);
int64_t insert_suite_run(Database& db, int64_t run_id, const SuiteRunInfo& suite);
void insert_telemetry(Database& db, int64_t run_id, std::optional<int64_t> suite_run_id,
                      const std::vector<TelemetrySample>& samples);

// The recorded owner of a run (empty lock_path when none was recorded), from the run_liveness
// table of `schema` ("main", or an attached database such as a merge's "src").
RunOwner load_run_owner(Database& db, int64_t run_id, const std::string& schema = "main");

// Marks every `running` run whose owner is gone `abandoned` (finished suites stay), in one short
// transaction. Returns how many it marked.
int64_t mark_abandoned_runs(Database& db);

}  // namespace detail
}  // namespace gpubench::results
