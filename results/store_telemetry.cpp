// Store: telemetry, written under its run and suite run and read back as samples or as a
// per-GPU summary.
#include <map>

#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "results/store_detail.hpp"
#include "util/error.hpp"

namespace gpubench::results {

using detail::require_run;

void Store::add_telemetry(int64_t run_id, std::optional<int64_t> suite_run_id,
                          const std::vector<TelemetrySample>& samples) {
  Database& db = *m_db;
  Transaction tx(db);
  detail::insert_telemetry(db, run_id, suite_run_id, samples);
  tx.commit();
}

void detail::insert_telemetry(Database& db, int64_t run_id, std::optional<int64_t> suite_run_id,
                              const std::vector<TelemetrySample>& samples) {
  require_run(db, run_id);
  if (suite_run_id) {
    Statement st = db.prepare("SELECT run_id FROM suite_runs WHERE id = ?1");
    st.bind(1, *suite_run_id);
    if (!st.step() || st.column_int64(0) != run_id) {
      throw bad_input("suite run " + std::to_string(*suite_run_id) + " is not part of run " +
                          std::to_string(run_id),
                      "telemetry is stored under the suite run it was sampled during",
                      "pass the id add_suite_run returned for this run");
    }
  }
  // The run's GPUs by NVML index (what the sampler enumerates), so each telemetry row names the
  // physical GPU it came from.
  std::map<int, int64_t> gpu_ids;
  {
    Statement st = db.prepare("SELECT device_index, gpu_device_id FROM run_gpus WHERE run_id = ?1");
    st.bind(1, run_id);
    while (st.step()) gpu_ids[static_cast<int>(st.column_int64(0))] = st.column_int64(1);
  }
  Statement ins = db.prepare(
      "INSERT INTO telemetry(run_id, suite_run_id, gpu_device_id, device_index, t_s, "
      "sm_clock_mhz, mem_clock_mhz, temperature_c, power_w, util_gpu_pct, util_mem_pct, "
      "throttle_reasons, ecc_sbe, ecc_dbe, retired_pages, pcie_replay_counter, power_instant_w, "
      "remapped_rows, remap_pending, remap_failure) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
      "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)");
  auto flag = [](const std::optional<bool>& b) {
    return b ? std::optional<int64_t>(*b ? 1 : 0) : std::nullopt;
  };
  for (const TelemetrySample& t : samples) {
    const auto gpu = gpu_ids.find(t.nvml_index);
    ins.bind(1, run_id).bind(2, suite_run_id);
    if (gpu != gpu_ids.end()) {
      ins.bind(3, gpu->second);
    } else {
      ins.bind_null(3);
    }
    ins.bind(4, t.nvml_index).bind(5, t.t_s).bind(6, t.sm_clock_mhz).bind(7, t.mem_clock_mhz);
    ins.bind(8, t.temperature_c).bind(9, t.power_w).bind(10, t.util_gpu_pct);
    ins.bind(11, t.util_mem_pct).bind(12, t.throttle_reasons).bind(13, t.ecc_sbe);
    ins.bind(14, t.ecc_dbe).bind(15, t.retired_pages).bind(16, t.pcie_replay_counter);
    ins.bind(17, t.power_instant_w).bind(18, t.remapped_rows).bind(19, flag(t.remap_pending));
    ins.bind(20, flag(t.remap_failure));
    ins.run();
  }
}

std::vector<TelemetrySample> Store::get_telemetry(int64_t run_id,
                                                  std::optional<int64_t> suite_run_id) {
  Database& db = *m_db;
  require_run(db, run_id);
  Statement st = db.prepare(
      "SELECT device_index, t_s, sm_clock_mhz, mem_clock_mhz, temperature_c, power_w, "
      "util_gpu_pct, util_mem_pct, throttle_reasons, ecc_sbe, ecc_dbe, retired_pages, "
      "pcie_replay_counter, power_instant_w, remapped_rows, remap_pending, remap_failure "
      "FROM telemetry WHERE run_id = ?1 AND (?2 IS NULL OR suite_run_id = "
      "?2) ORDER BY device_index, t_s, id");
  st.bind(1, run_id).bind(2, suite_run_id);
  std::vector<TelemetrySample> out;
  while (st.step()) {
    TelemetrySample t;
    t.nvml_index = static_cast<int>(st.column_optional_int64(0).value_or(-1));
    t.t_s = st.column_double(1);
    t.sm_clock_mhz = st.column_optional_double(2);
    t.mem_clock_mhz = st.column_optional_double(3);
    t.temperature_c = st.column_optional_double(4);
    t.power_w = st.column_optional_double(5);
    t.util_gpu_pct = st.column_optional_double(6);
    t.util_mem_pct = st.column_optional_double(7);
    t.throttle_reasons = st.column_optional_int64(8);
    t.ecc_sbe = st.column_optional_int64(9);
    t.ecc_dbe = st.column_optional_int64(10);
    t.retired_pages = st.column_optional_int64(11);
    t.pcie_replay_counter = st.column_optional_int64(12);
    t.power_instant_w = st.column_optional_double(13);
    t.remapped_rows = st.column_optional_int64(14);
    if (auto v = st.column_optional_int64(15)) t.remap_pending = *v != 0;
    if (auto v = st.column_optional_int64(16)) t.remap_failure = *v != 0;
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<TelemetrySummary> Store::get_telemetry_summary(int64_t run_id) {
  Database& db = *m_db;
  require_run(db, run_id);
  std::vector<TelemetrySummary> out;
  std::map<int, size_t> by_device;
  {
    Statement st = db.prepare(R"sql(
SELECT t.device_index, count(*), max(t.temperature_c), max(t.power_w), min(t.sm_clock_mhz),
       max(t.sm_clock_mhz), sum((t.throttle_reasons & ?2) != 0), count(t.throttle_reasons),
       max(t.ecc_sbe) - min(t.ecc_sbe), max(t.ecc_dbe) - min(t.ecc_dbe),
       max(t.retired_pages) - min(t.retired_pages),
       max(t.pcie_replay_counter) - min(t.pcie_replay_counter),
       sum((t.throttle_reasons & ?3) != 0), max(t.remapped_rows) - min(t.remapped_rows),
       COALESCE(max(t.remap_pending), 0), COALESCE(max(t.remap_failure), 0),
       COALESCE(max(g.uuid), '')
FROM telemetry t LEFT JOIN gpu_devices g ON g.id = t.gpu_device_id
WHERE t.run_id = ?1 AND t.device_index IS NOT NULL
GROUP BY t.device_index ORDER BY t.device_index)sql");
    st.bind(1, run_id).bind(2, k_reasons_slowdown).bind(3, k_reasons_power_limited);
    while (st.step()) {
      TelemetrySummary s;
      s.nvml_index = static_cast<int>(st.column_int64(0));
      s.samples = st.column_int64(1);
      s.max_temperature_c = st.column_optional_double(2);
      s.max_power_w = st.column_optional_double(3);
      s.min_sm_clock_mhz = st.column_optional_double(4);
      s.max_sm_clock_mhz = st.column_optional_double(5);
      s.throttled_samples = st.column_optional_int64(6).value_or(0);
      s.throttle_known = st.column_int64(7);
      s.ecc_sbe_increase = st.column_optional_int64(8);
      s.ecc_dbe_increase = st.column_optional_int64(9);
      s.retired_pages_increase = st.column_optional_int64(10);
      s.pcie_replay_increase = st.column_optional_int64(11);
      s.power_limited_samples = st.column_optional_int64(12).value_or(0);
      s.remapped_rows_increase = st.column_optional_int64(13);
      s.remap_pending = st.column_int64(14) != 0;
      s.remap_failure = st.column_int64(15) != 0;
      s.gpu_uuid = st.column_text(16);
      by_device[s.nvml_index] = out.size();
      out.push_back(std::move(s));
    }
  }
  // Each suite once, however many of its executions (issue 35: one suite run each) throttled, in
  // the order of the first that did.
  Statement st = db.prepare(R"sql(
SELECT t.device_index, sr.suite, min(sr.id) AS first_suite_run
FROM telemetry t JOIN suite_runs sr ON sr.id = t.suite_run_id
WHERE t.run_id = ?1 AND (t.throttle_reasons & ?2) != 0
GROUP BY t.device_index, sr.suite ORDER BY t.device_index, first_suite_run)sql");
  st.bind(1, run_id).bind(2, k_reasons_slowdown);
  while (st.step()) {
    const auto it = by_device.find(static_cast<int>(st.column_int64(0)));
    if (it != by_device.end()) out[it->second].throttled_suites.push_back(st.column_text(1));
  }
  return out;
}

}  // namespace gpubench::results
