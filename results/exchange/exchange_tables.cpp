#include "results/exchange/exchange_tables.hpp"

namespace gpubench::results {
namespace {

// Suite runs of run ?1, and the GPUs, benchmarks and metrics its rows reference.
const std::string k_suite_runs = "(SELECT id FROM suite_runs WHERE run_id = ?1)";
const std::string k_gpus =
    "(SELECT gpu_device_id FROM run_gpus WHERE run_id = ?1 UNION SELECT gpu_device_id FROM "
    "samples WHERE suite_run_id IN " +
    k_suite_runs + " UNION SELECT gpu_device_id FROM telemetry WHERE run_id = ?1)";
const std::string k_benchmarks =
    "(SELECT benchmark_id FROM benchmark_outcomes WHERE suite_run_id IN " + k_suite_runs +
    " UNION SELECT benchmark_id FROM samples WHERE suite_run_id IN " + k_suite_runs +
    " UNION SELECT benchmark_id FROM invalid_samples WHERE suite_run_id IN " + k_suite_runs +
    " UNION SELECT benchmark_id FROM annotations WHERE run_id = ?1)";

}  // namespace

const std::vector<ExchangedTable>& exchanged_tables() {
  static const std::vector<ExchangedTable> tables = {
      {"meta", Carried::not_carried, "", "the database's own schema versions"},
      {"hosts", Carried::by_key,
       "SELECT * FROM hosts WHERE id IN (SELECT host_id FROM runs WHERE id = ?1 UNION SELECT "
       "host_id FROM gpu_devices WHERE id IN " +
           k_gpus + ") ORDER BY id",
       "by fingerprint"},
      {"software_envs", Carried::by_key,
       "SELECT * FROM software_envs WHERE id IN (SELECT software_env_id FROM runs WHERE id = ?1) "
       "ORDER BY id",
       "by fingerprint"},
      {"configurations", Carried::by_key,
       "SELECT * FROM configurations WHERE id IN (SELECT configuration_id FROM runs WHERE id = ?1 "
       "UNION SELECT configuration_id FROM annotations WHERE run_id = ?1) ORDER BY id",
       "by fingerprint"},
      {"gpu_devices", Carried::by_key,
       "SELECT * FROM gpu_devices WHERE id IN " + k_gpus + " ORDER BY id", "by fingerprint"},
      {"benchmarks", Carried::by_key,
       "SELECT * FROM benchmarks WHERE id IN " + k_benchmarks + " ORDER BY id", "by name"},
      {"benchmark_params", Carried::by_key,
       "SELECT * FROM benchmark_params WHERE benchmark_id IN " + k_benchmarks +
           " ORDER BY benchmark_id, position",
       "with their benchmark"},
      {"metrics", Carried::by_key,
       "SELECT * FROM metrics WHERE id IN (SELECT metric_id FROM samples WHERE suite_run_id IN " +
           k_suite_runs + " UNION SELECT metric_id FROM annotations WHERE run_id = ?1) ORDER BY id",
       "by (name, unit)"},
      {"runs", Carried::with_run, "SELECT * FROM runs WHERE id = ?1",
       "by UUID; a run still `running` in the source is skipped until it has finished"},
      {"run_tags", Carried::with_run,
       "SELECT * FROM run_tags WHERE run_id = ?1 ORDER BY position", "with their run"},
      {"run_gpus", Carried::with_run,
       "SELECT * FROM run_gpus WHERE run_id = ?1 ORDER BY device_index", "with their run"},
      {"acceptance_facts", Carried::with_run,
       "SELECT * FROM acceptance_facts WHERE run_id = ?1 ORDER BY position",
       "with their run: what another tool (dcgmi diag) stated about its node and GPUs"},
      {"doctor_checks", Carried::with_run,
       "SELECT * FROM doctor_checks WHERE run_id = ?1 ORDER BY position", "with their run"},
      {"cublaslt_algorithms", Carried::with_run,
       "SELECT * FROM cublaslt_algorithms WHERE run_id = ?1 ORDER BY benchmark",
       "with their run: the algorithms its GEMMs used, reused by later runs on the same GPU "
       "model, driver and cuBLAS version"},
      {"suite_runs", Carried::with_run,
       "SELECT * FROM suite_runs WHERE run_id = ?1 ORDER BY id",
       "with their run, stdout and stderr tails included"},
      {"benchmark_outcomes", Carried::with_run,
       "SELECT * FROM benchmark_outcomes WHERE suite_run_id IN " + k_suite_runs +
           " ORDER BY suite_run_id, position",
       "with their suite run"},
      {"samples", Carried::with_run,
       "SELECT * FROM samples WHERE suite_run_id IN " + k_suite_runs + " ORDER BY id",
       "with their suite run, every column"},
      {"invalid_samples", Carried::with_run,
       "SELECT * FROM invalid_samples WHERE suite_run_id IN " + k_suite_runs + " ORDER BY id",
       "with their suite run"},
      {"suite_run_metric_roles", Carried::with_run,
       "SELECT * FROM suite_run_metric_roles WHERE suite_run_id IN " + k_suite_runs +
           " ORDER BY suite_run_id, metric",
       "with their suite run"},
      {"telemetry", Carried::with_run, "SELECT * FROM telemetry WHERE run_id = ?1 ORDER BY id",
       "with their run"},
      {"annotations", Carried::with_run,
       "SELECT * FROM annotations WHERE run_id = ?1 ORDER BY id",
       "a run's annotations with it; series annotations (no run) by merge, once"},
      {"history_exclusions", Carried::with_run,
       "SELECT * FROM history_exclusions WHERE run_id = ?1",
       "with their run (`history exclude`); one made on the source later is added by a later "
       "merge, an `include` there is not carried"},
      {"baselines", Carried::opt_in,
       "SELECT * FROM baselines WHERE run_id = ?1 ORDER BY name",
       "only with --with-baselines: a name the target already uses for another run is kept"},
      {"series_medians", Carried::recomputed, "",
       "per-run series medians, rebuilt from the carried samples"},
      {"change_points", Carried::not_carried, "",
       "conclusions of this database's own history; found again over the merged history"},
      {"change_point_scans", Carried::not_carried, "",
       "what this database's last history --record looked at; a merge makes them stale"},
      {"run_liveness", Carried::not_carried, "",
       "the source machine's process locks; only finished runs are carried"},
  };
  return tables;
}

const ExchangedTable* find_exchanged_table(const std::string& table) {
  for (const ExchangedTable& t : exchanged_tables()) {
    if (t.name == table) return &t;
  }
  return nullptr;
}

}  // namespace gpubench::results
