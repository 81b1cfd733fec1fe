// Per-sample state keys: the Google Benchmark counters a gpubench suite writes to say what state
// its samples ran under (METHODOLOGY rule 5, suites/README.md "Sample states"). Suites write
// them through these names and the results store's ingest reads them through these names, so
// the two cannot drift apart (tests/results/test_sample_state.cpp holds the contract).
//
// Matching is case-exact: "sm_clock_MHz" is the key, "SM_CLOCK_MHZ" is an ordinary counter.
// Header-only and free of project dependencies, so suites and results can both include it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gpubench::sample_state {

// Which sample column a state key fills.
enum class Field {
  sm_clock_mhz,            // lowest SM clock measured right after a sample (MHz)
  temperature_c,           // GPU temperature (C)
  power_w,                 // board power (W)
  throttle_reasons,        // NVML clocks-event reason mask
  power_limited,           // 1/0: the power cap, board limit or reliability policy held the clock
  thermal_or_hw_slowdown,  // 1/0: sustained HW slowdown, HW/SW thermal or HW power brake: invalid
  clock_below_expected,    // 1/0: SM clock below the application/locked (or base) clock
  window_start_s,          // CLOCK_MONOTONIC seconds when the repetition's first sample began
  window_end_s,            // CLOCK_MONOTONIC seconds when its last sample ended
};

struct Key {
  std::string_view name;
  Field field;
  bool legacy;  // accepted when reading older files; suites never write it
};

// The names suites write, then the names older gpubench versions wrote. "throttled" was the v1
// "clock below 75% of the peak clock" flag: it is read as clock_below_expected, never as invalid.
inline constexpr std::array<Key, 11> k_keys = {{
    {"sm_clock_MHz", Field::sm_clock_mhz, false},
    {"temperature_c", Field::temperature_c, false},
    {"power_w", Field::power_w, false},
    {"throttle_reasons", Field::throttle_reasons, false},
    {"power_limited", Field::power_limited, false},
    {"thermal_or_hw_slowdown", Field::thermal_or_hw_slowdown, false},
    {"clock_below_expected", Field::clock_below_expected, false},
    {"window_start_s", Field::window_start_s, false},
    {"window_end_s", Field::window_end_s, false},
    {"sm_clock_mhz", Field::sm_clock_mhz, true},
    {"throttled", Field::clock_below_expected, true},
}};

// The field a counter name fills, or nullopt when it is an ordinary counter (case-exact).
constexpr std::optional<Field> field_of(std::string_view counter) {
  for (const Key& k : k_keys) {
    if (k.name == counter) return k.field;
  }
  return std::nullopt;
}

// The name a suite writes for a field.
constexpr std::string_view name_of(Field field) {
  for (const Key& k : k_keys) {
    if (k.field == field && !k.legacy) return k.name;
  }
  return {};
}

// Window keys describe when a repetition ran: only iteration rows carry a meaningful one.
constexpr bool is_window(Field field) {
  return field == Field::window_start_s || field == Field::window_end_s;
}

// NVML clocks-event reason bits (nvml.h nvmlClocksEventReason*), and the two groups that decide
// a sample's state. The power cap (0x4), the board limit (0x200) and the reliability policy
// (0x400) are the board's operating envelope: how data-centre parts normally run a sustained
// GEMM. They are recorded as power_limited and never make a sample invalid. Idle (0x1), sync
// boost (0x10) and display clock (0x100) are neither. The applications clocks setting (0x2) is
// "no longer used" in CUDA 13's nvml.h: older drivers set it for application or locked clocks,
// newer ones never do, so it is recorded but decides nothing.
namespace reasons {
inline constexpr int64_t gpu_idle = 0x1;
inline constexpr int64_t applications_clocks_setting = 0x2;
inline constexpr int64_t sw_power_cap = 0x4;
inline constexpr int64_t hw_slowdown = 0x8;
inline constexpr int64_t sync_boost = 0x10;
inline constexpr int64_t sw_thermal_slowdown = 0x20;
inline constexpr int64_t hw_thermal_slowdown = 0x40;
inline constexpr int64_t hw_power_brake_slowdown = 0x80;
inline constexpr int64_t display_clock_setting = 0x100;
inline constexpr int64_t board_limit = 0x200;
inline constexpr int64_t reliability = 0x400;
inline constexpr int64_t power_limited = sw_power_cap | board_limit | reliability;
inline constexpr int64_t thermal_or_hw_slowdown =
    hw_slowdown | sw_thermal_slowdown | hw_thermal_slowdown | hw_power_brake_slowdown;
}  // namespace reasons

// HW slowdown (0x8) alone is a sample's invalid mark only when it is sustained. nvml.h lists it
// for a too-high temperature, an external power brake and Fast Trigger power protection, and adds
// "May be also reported during PState or clock change": a single reading of it, or a run of
// readings shorter than this, is such a change and does not invalidate. Chosen as three intervals
// of the default 10 Hz telemetry (harness/probe/telemetry.hpp): a run must hold from its first
// reading to its last for at least this long (seconds), so one or two isolated readings never
// count, and at a 1 s interval two consecutive readings already do. The other slowdown bits
// (0x20, 0x40, 0x80) invalidate from one reading: nvml.h gives them no transient cause.
inline constexpr double k_hw_slowdown_sustained_s = 0.3;

// One telemetry reading of one GPU: its time (seconds, any origin) and its reason mask (nullopt:
// unreadable).
struct ReasonReading {
  double t_s = 0;
  std::optional<int64_t> reasons;
};

// The readings' masks with HW slowdown (0x8) cleared where it is transient: its run of
// consecutive readings carrying 0x8 spans less than k_hw_slowdown_sustained_s. A reading with an
// unreadable mask ends a run (nothing is known about it). `readings` must be in time order (one
// GPU); the result has one entry per reading, nullopt where the mask is unreadable.
inline std::vector<std::optional<int64_t>> without_transient_hw_slowdown(
    const std::vector<ReasonReading>& readings) {
  std::vector<std::optional<int64_t>> out;
  out.reserve(readings.size());
  for (const ReasonReading& r : readings) out.push_back(r.reasons);
  const auto has_bit = [&](std::size_t i) {
    return readings[i].reasons && (*readings[i].reasons & reasons::hw_slowdown) != 0;
  };
  std::size_t i = 0;
  while (i < readings.size()) {
    if (!has_bit(i)) {
      ++i;
      continue;
    }
    std::size_t end = i;  // last reading of the run
    while (end + 1 < readings.size() && has_bit(end + 1)) ++end;
    // 1 ns of slack: reading times are sums of a float grid (0.1 s steps do not add up exactly).
    if (readings[end].t_s - readings[i].t_s < k_hw_slowdown_sustained_s - 1e-9) {
      for (std::size_t k = i; k <= end; ++k) *out[k] &= ~reasons::hw_slowdown;
    }
    i = end + 1;
  }
  return out;
}

// A measured SM clock counts as below the expected one when it is more than this fraction
// lower: twice the clock probe's resolution (100 us against a global timer of up to 1 us, 1%).
inline constexpr double k_clock_tolerance = 0.02;

}  // namespace gpubench::sample_state
