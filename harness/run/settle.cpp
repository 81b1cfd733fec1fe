#include "harness/run/settle.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "harness/probe/nvml.hpp"
#include "harness/process/process.hpp"
#include "util/clock.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

namespace {

// "61", "61.5": readings as NVML gives them (whole degrees and MHz), without a trailing ".0".
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v == std::floor(v) ? "%.0f" : "%.1f", v);
  return buf;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

std::string hex(int64_t bits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(bits));
  return buf;
}

// The reasons that hold a clock below what an idle, cool GPU would get.
constexpr int64_t k_holding_reasons = throttle::power_limited | throttle::thermal_or_hw_slowdown;

}  // namespace

SettleReading settle_reading(const results::TelemetrySample& sample) {
  return {sample.sm_clock_mhz, sample.temperature_c, sample.throttle_reasons};
}

std::vector<SettleReading> read_settle_state(TelemetrySource& source) {
  std::vector<SettleReading> out;
  const int n = source.device_count();
  for (int i = 0; i < n; ++i) out.push_back(settle_reading(source.read(i, false)));
  return out;
}

const char* to_string(SettleState state) {
  switch (state) {
    case SettleState::settled:
      return "settled";
    case SettleState::waiting:
      return "waiting";
    case SettleState::bound_reached:
      return "bound_reached";
    case SettleState::not_judged:
      break;
  }
  return "not_judged";
}

SettleVerdict judge_settle(const std::vector<SettleReading>& start,
                           const std::vector<SettleReading>& now, double since_heavy_s,
                           const SettlePolicy& policy) {
  SettleVerdict v;
  bool any_judged = false;
  const std::size_t n = std::min(start.size(), now.size());
  for (std::size_t i = 0; i < n; ++i) {
    const SettleReading& s = start[i];
    const SettleReading& c = now[i];
    bool judged = false;
    std::vector<std::string> away;
    if (s.temperature_c && c.temperature_c) {
      judged = true;
      const double above = *c.temperature_c - *s.temperature_c;
      if (above > policy.temperature_tolerance_c) {
        away.push_back(number(*c.temperature_c) + " °C, " + number(above) +
                       " °C above the start (" + number(*s.temperature_c) + " °C)");
      }
    }
    if (c.reasons) {
      // A reason unreadable at the start counts as clear: an idle GPU at a run's start holds none.
      judged = true;
      const int64_t fresh = *c.reasons & k_holding_reasons & ~s.reasons.value_or(0);
      if (fresh != 0)
        away.push_back("clocks-event reasons " + hex(fresh) + " set, clear at the start");
    }
    if (s.sm_clock_mhz && c.sm_clock_mhz) {
      judged = true;
      const bool idle = c.reasons && (*c.reasons & throttle::gpu_idle) != 0;
      if (!idle && *c.sm_clock_mhz < *s.sm_clock_mhz * (1.0 - policy.clock_tolerance)) {
        away.push_back("SM clock " + number(*c.sm_clock_mhz) + " MHz, below the start's " +
                       number(*s.sm_clock_mhz) + " MHz");
      }
    }
    any_judged = any_judged || judged;
    if (judged && !away.empty())
      v.unsettled.push_back("gpu" + std::to_string(i) + " " + join(away, ", "));
  }
  if (!any_judged) {
    v.state = SettleState::not_judged;
  } else if (v.unsettled.empty()) {
    v.state = SettleState::settled;
  } else {
    v.state = since_heavy_s >= policy.bound_s ? SettleState::bound_reached : SettleState::waiting;
  }
  return v;
}

std::string SettleRecord::text() const {
  std::string t = "settle after " + after + ": ";
  if (interrupted) return t + "interrupted after waiting " + seconds(waited_s);
  switch (state) {
    case SettleState::settled:
      return t + "settled after waiting " + seconds(waited_s) + " (" + seconds(since_heavy_s) +
             " after " + after + " ended)";
    case SettleState::bound_reached:
      return t + "not settled when its " + seconds(bound_s) + " bound was reached (waited " +
             seconds(waited_s) + "): " + join(unsettled, "; ");
    case SettleState::not_judged:
    case SettleState::waiting:
      break;
  }
  return t +
         "not judged (NVML gave no SM clock, temperature or clocks-event reasons both at the "
         "start of the run and now)";
}

SettleClock real_settle_clock() {
  SettleClock c;
  c.now_s = [] { return monotonic_seconds(); };
  c.sleep_s = [](double s) {
    std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, s)));
  };
  c.stop = [] { return interrupt_signal() != 0; };
  return c;
}

SettleRecord settle_gpus(TelemetrySource& source, const std::vector<SettleReading>& start,
                         const std::string& after, double heavy_ended_s, const SettlePolicy& policy,
                         const SettleClock& clock) {
  SettleRecord r;
  r.after = after;
  r.bound_s = policy.bound_s;
  const double begin_s = clock.now_s();
  for (;;) {
    const std::vector<SettleReading> now = read_settle_state(source);
    const double t = clock.now_s();
    const SettleVerdict v = judge_settle(start, now, t - heavy_ended_s, policy);
    r.waited_s = t - begin_s;
    r.since_heavy_s = t - heavy_ended_s;
    r.state = v.state;
    r.unsettled = v.unsettled;
    if (v.state != SettleState::waiting) return r;
    if (clock.stop()) {
      r.interrupted = true;
      return r;
    }
    // Never far past the bound: the last read falls on it (1 ms at least, so a clock that adds
    // seconds in floating point always gets there).
    const double left_s = policy.bound_s - (t - heavy_ended_s);
    clock.sleep_s(std::min(policy.poll_s, std::max(left_s, 1e-3)));
  }
}

bool run_may_settle(const std::vector<SuiteExecutable>& ordered, int executions) {
  bool heavy = false;
  bool device = false;
  for (const SuiteExecutable& s : ordered) {
    const SuiteKind kind = suite_kind(s.name);
    if (kind == SuiteKind::host) continue;
    if (heavy) return true;  // a device suite after a power-heavy one in the same round
    device = true;
    heavy = kind == SuiteKind::power_heavy;
  }
  // The next round starts with a device suite (the power-heavy one itself at least).
  return executions > 1 && device && std::any_of(ordered.begin(), ordered.end(), [](const auto& s) {
           return suite_kind(s.name) == SuiteKind::power_heavy;
         });
}

PlannedSettle planned_settle(const std::vector<PlannedExecution>& sequence, double bound_s) {
  PlannedSettle p;
  bool after_heavy = false;
  double idle_s = 0;  // host-suite time since the power-heavy suite ended
  for (const PlannedExecution& e : sequence) {
    if (e.kind == SuiteKind::host) {
      idle_s += e.seconds;
      continue;
    }
    if (after_heavy) {
      ++p.settles;
      p.seconds += std::max(0.0, bound_s - idle_s);
    }
    after_heavy = e.kind == SuiteKind::power_heavy;
    idle_s = 0;
  }
  return p;
}

}  // namespace gpubench::harness
