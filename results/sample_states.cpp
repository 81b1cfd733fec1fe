#include "results/sample_states.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include "results/model.hpp"
#include "results/sample_gpus.hpp"
#include "results/schema/series_medians.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "util/sample_state.hpp"

namespace gpubench::results {

SampleStates classify_sample(const std::optional<SampleWindow>& window,
                             const std::vector<StateTick>& ticks, double slack_s,
                             std::optional<double> probe_clock_mhz,
                             std::optional<double> expected_clock_mhz) {
  SampleStates out;
  std::optional<double> nvml_clock;
  if (window) {
    bool known = false, power = false, slowdown = false;
    for (const StateTick& t : ticks) {
      if (t.t_s < window->start_s - slack_s || t.t_s > window->end_s + slack_s) continue;
      if (t.sm_clock_mhz)
        nvml_clock = std::min(nvml_clock.value_or(*t.sm_clock_mhz), *t.sm_clock_mhz);
      if (!t.reasons) continue;
      known = true;
      power = power || is_power_limited(*t.reasons);
      slowdown = slowdown || is_slowdown(*t.reasons);
    }
    if (known) {
      out.power_limited = power;
      out.thermal_or_hw_slowdown = slowdown;
    }
  }
  const std::optional<double> measured =
      probe_clock_mhz && *probe_clock_mhz > 0 ? probe_clock_mhz : nvml_clock;
  if (measured && expected_clock_mhz && *expected_clock_mhz > 0) {
    out.clock_below_expected =
        *measured < *expected_clock_mhz * (1.0 - sample_state::k_clock_tolerance);
  }
  return out;
}

int64_t Store::classify_samples(int64_t suite_run_id, const std::vector<TelemetrySample>& telemetry,
                                double telemetry_origin_s, double slack_s) {
  Database& db = *m_db;
  Transaction tx(db);
  // The suite run's GPUs: NVML index -> UUID (telemetry), UUID -> expected SM clock.
  std::map<int, std::string> uuid_of_nvml;
  std::unordered_map<std::string, std::optional<double>> expected;
  {
    Statement st = db.prepare(R"sql(
SELECT rg.device_index, g.uuid, COALESCE(g.app_sm_clock_mhz, g.default_sm_clock_mhz)
FROM suite_runs sr JOIN run_gpus rg ON rg.run_id = sr.run_id
JOIN gpu_devices g ON g.id = rg.gpu_device_id WHERE sr.id = ?1)sql");
    st.bind(1, suite_run_id);
    while (st.step()) {
      uuid_of_nvml[static_cast<int>(st.column_int64(0))] = st.column_text(1);
      expected[st.column_text(1)] = st.column_optional_double(2);
    }
  }
  std::unordered_map<std::string, std::vector<StateTick>> ticks;  // by UUID, CLOCK_MONOTONIC s
  for (const TelemetrySample& t : telemetry) {
    auto u = uuid_of_nvml.find(t.nvml_index);
    if (u == uuid_of_nvml.end()) continue;
    ticks[u->second].push_back({telemetry_origin_s + t.t_s, t.throttle_reasons, t.sm_clock_mhz});
  }
  // A sample without a GPU of its own ran on the GPUs its suite named (results/sample_gpus.hpp).
  Statement sel = db.prepare(R"sql(
SELECT s.id, g.uuid, s.window_start_s, s.window_end_s, s.sm_clock_mhz, s.throttled,
  s.thermal_or_hw_slowdown, s.benchmark_id, s.gpu_device_id
FROM samples s LEFT JOIN gpu_devices g ON g.id = s.gpu_device_id
WHERE s.suite_run_id = ?1 AND s.kind = 'iteration')sql");
  SampleGpus multi(db, suite_run_id);
  Statement upd = db.prepare(R"sql(
UPDATE samples SET power_limited = COALESCE(?2, power_limited),
  thermal_or_hw_slowdown = COALESCE(?3, thermal_or_hw_slowdown),
  clock_below_expected = COALESCE(?4, clock_below_expected),
  throttled = COALESCE(?3, thermal_or_hw_slowdown) WHERE id = ?1)sql");
  sel.bind(1, suite_run_id);
  static const std::vector<StateTick> none;
  auto flag = [](const std::optional<bool>& b) {
    return b ? std::optional<int64_t>(*b ? 1 : 0) : std::nullopt;
  };
  int64_t classified = 0;
  bool medians_changed = false;
  while (sel.step()) {
    const std::vector<std::string> own = {sel.column_text(1)};
    const std::vector<std::string>& gpus =
        sel.column_optional_int64(8) ? own : multi.of(sel.column_int64(7));
    if (gpus.empty()) continue;  // neither a GPU of its own nor any the suite named
    std::optional<SampleWindow> window;
    const auto start = sel.column_optional_double(2);
    const auto end = sel.column_optional_double(3);
    if (start && end) window = SampleWindow{*start, *end};
    std::vector<SampleStates> per_gpu;
    for (const std::string& uuid : gpus) {
      auto t = ticks.find(uuid);
      auto e = expected.find(uuid);
      per_gpu.push_back(classify_sample(window, t == ticks.end() ? none : t->second, slack_s,
                                        sel.column_optional_double(4),
                                        e == expected.end() ? std::nullopt : e->second));
    }
    const SampleStates states = per_gpu.size() == 1 ? per_gpu[0] : combine_gpu_states(per_gpu);
    upd.bind(1, sel.column_int64(0)).bind(2, flag(states.power_limited));
    upd.bind(3, flag(states.thermal_or_hw_slowdown)).bind(4, flag(states.clock_below_expected));
    upd.run();
    if (states.power_limited || states.clock_below_expected) ++classified;
    // `throttled` as the UPDATE sets it: the series medians leave out throttled samples.
    const std::optional<int64_t> throttled = states.thermal_or_hw_slowdown
                                                 ? flag(states.thermal_or_hw_slowdown)
                                                 : sel.column_optional_int64(6);
    if (throttled != sel.column_optional_int64(5)) medians_changed = true;
  }
  // Ingest stored the medians; only a sample whose throttled mark changed moves them.
  if (medians_changed) detail::refresh_series_medians(db, suite_run_id);
  tx.commit();
  return classified;
}

}  // namespace gpubench::results
