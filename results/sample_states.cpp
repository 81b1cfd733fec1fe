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

namespace {

// One GPU's ticks in time order with their masks as the rule reads them (transient HW slowdown
// cleared): prepared once per GPU, then read for every sample of it.
struct PreparedTicks {
  std::vector<StateTick> sorted;
  std::vector<std::optional<int64_t>> masks;
};

PreparedTicks prepare_ticks(std::vector<StateTick> ticks) {
  PreparedTicks p;
  p.sorted = std::move(ticks);
  std::stable_sort(p.sorted.begin(), p.sorted.end(),
                   [](const StateTick& a, const StateTick& b) { return a.t_s < b.t_s; });
  std::vector<sample_state::ReasonReading> readings;
  readings.reserve(p.sorted.size());
  for (const StateTick& t : p.sorted) readings.push_back({t.t_s, t.reasons});
  p.masks = sample_state::without_transient_hw_slowdown(readings);
  return p;
}

SampleStates classify_prepared(const std::optional<SampleWindow>& window, const PreparedTicks& p,
                               double slack_s, std::optional<double> probe_clock_mhz,
                               std::optional<double> expected_clock_mhz) {
  SampleStates out;
  std::optional<double> nvml_clock;
  if (window) {
    bool known = false, power = false, slowdown = false;
    for (std::size_t i = 0; i < p.sorted.size(); ++i) {
      const StateTick& t = p.sorted[i];
      if (t.t_s < window->start_s - slack_s || t.t_s > window->end_s + slack_s) continue;
      if (t.sm_clock_mhz)
        nvml_clock = std::min(nvml_clock.value_or(*t.sm_clock_mhz), *t.sm_clock_mhz);
      if (!p.masks[i]) continue;
      known = true;
      power = power || is_power_limited(*p.masks[i]);
      slowdown = slowdown || is_slowdown(*p.masks[i]);
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

}  // namespace

SampleStates classify_sample(const std::optional<SampleWindow>& window,
                             const std::vector<StateTick>& ticks, double slack_s,
                             std::optional<double> probe_clock_mhz,
                             std::optional<double> expected_clock_mhz) {
  // HW slowdown counts only where it is sustained, judged over all of the GPU's readings, so a
  // sample inside a long slowdown is invalid even when its window holds one reading of it.
  return classify_prepared(window, prepare_ticks(ticks), slack_s, probe_clock_mhz,
                           expected_clock_mhz);
}

std::optional<double> expected_sm_clock_mhz(std::optional<int> app_sm_clock_mhz,
                                            std::optional<int> default_app_sm_clock_mhz,
                                            std::optional<int> max_sm_clock_mhz) {
  if (app_sm_clock_mhz && default_app_sm_clock_mhz && *app_sm_clock_mhz > 0 &&
      *app_sm_clock_mhz != *default_app_sm_clock_mhz) {
    return *app_sm_clock_mhz;  // locked at it (clock_lock.hpp): the GPU cannot boost above
  }
  if (max_sm_clock_mhz && *max_sm_clock_mhz > 0) return *max_sm_clock_mhz;
  return std::nullopt;
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
SELECT rg.device_index, g.uuid, g.app_sm_clock_mhz, g.default_sm_clock_mhz, g.max_sm_clock_mhz
FROM suite_runs sr JOIN run_gpus rg ON rg.run_id = sr.run_id
JOIN gpu_devices g ON g.id = rg.gpu_device_id WHERE sr.id = ?1)sql");
    st.bind(1, suite_run_id);
    const auto mhz = [&](int column) {
      const auto v = st.column_optional_int64(column);
      return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
    };
    while (st.step()) {
      uuid_of_nvml[static_cast<int>(st.column_int64(0))] = st.column_text(1);
      expected[st.column_text(1)] = expected_sm_clock_mhz(mhz(2), mhz(3), mhz(4));
    }
  }
  std::unordered_map<std::string, std::vector<StateTick>> by_uuid;  // CLOCK_MONOTONIC s
  for (const TelemetrySample& t : telemetry) {
    auto u = uuid_of_nvml.find(t.nvml_index);
    if (u == uuid_of_nvml.end()) continue;
    by_uuid[u->second].push_back({telemetry_origin_s + t.t_s, t.throttle_reasons, t.sm_clock_mhz});
  }
  std::unordered_map<std::string, PreparedTicks> ticks;
  for (auto& [uuid, list] : by_uuid) ticks[uuid] = prepare_ticks(std::move(list));
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
  static const PreparedTicks none;
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
      per_gpu.push_back(classify_prepared(window, t == ticks.end() ? none : t->second, slack_s,
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
