// The settle step (issue 36 item 5): after a power-heavy suite (run_order.hpp), before the next
// device suite, the harness waits, idle, until every GPU is back near the state it was in when the
// run started, or a bound is reached, and records which.
//
// "Near the start" per GPU, from NVML readings (the telemetry source the sampler uses):
//  - temperature: at most k_settle_temperature_tolerance_c above the start's;
//  - SM clock: at most k_settle_clock_tolerance below the start's, unless NVML says the GPU is
//    idle (reason 0x1): an idle GPU lowers its clock by design, which says nothing about the clock
//    the next suite will get;
//  - clocks-event reasons: no power-limit (0x4, 0x200, 0x400) or thermal/HW slowdown (0x8, 0x20,
//    0x40, 0x80) reason that was clear at the start.
// A criterion unreadable at the start or now decides nothing; a GPU with no readable criterion is
// not judged, and a run where no GPU can be judged does not wait.
//
// The bound counts from the end of the power-heavy suite, so host suites run in between count as
// idle time: the plan charges only the part of the bound they do not cover.
//
// judge_settle() and planned_settle() are pure (no NVML, no clock); settle_gpus() is the loop
// around them, with its clock and sleep passed in so tests run it on recorded-shape traces.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/probe/telemetry.hpp"
#include "harness/run/run_order.hpp"
#include "results/model.hpp"
#include "util/sample_state.hpp"

namespace gpubench::harness {

// The longest a settle waits, in seconds from the end of the power-heavy suite. Why 10 s: the
// clock loss a GEMM leaves (the power cap, NVML's power average) ends within about a second of the
// load, and most of a die's cooling after a load step comes in its first seconds; the rest (the
// heat sink, minutes) is not worth the run time: the 8-GPU quick and standard plans must stay
// within 600 s and 2700 s, 37 s and 14 s above their totals before this step.
inline constexpr double k_settle_bound_s = 10.0;
// Temperature "near the start": within 5 °C, about the drift of an idle GPU's temperature between
// runs minutes apart (fan control, inlet air); tighter would wait on that drift.
inline constexpr double k_settle_temperature_tolerance_c = 5.0;
// SM clock "near the start": at most 2% below it, the tolerance a sample's clock_below_expected
// state uses (util/sample_state.hpp), so the settle and the sample states agree on "below".
inline constexpr double k_settle_clock_tolerance = sample_state::k_clock_tolerance;
// How often the settle reads NVML while it waits (s): NVML's temperature and clocks-event reasons
// change on that scale, and a read of 8 GPUs takes milliseconds.
inline constexpr double k_settle_poll_s = 0.5;

struct SettlePolicy {
  double bound_s = k_settle_bound_s;
  double temperature_tolerance_c = k_settle_temperature_tolerance_c;
  double clock_tolerance = k_settle_clock_tolerance;  // fraction of the start's SM clock
  double poll_s = k_settle_poll_s;
};

// What the settle reads of one GPU (a TelemetrySample's fields; nullopt: unreadable).
struct SettleReading {
  std::optional<double> sm_clock_mhz;
  std::optional<double> temperature_c;
  std::optional<int64_t> reasons;  // NVML clocks-event reason bits
};
SettleReading settle_reading(const results::TelemetrySample& sample);
// One reading of every GPU of `source` (read from the calling thread: not while a sampler runs).
std::vector<SettleReading> read_settle_state(TelemetrySource& source);

enum class SettleState {
  settled,        // every GPU that could be judged is near its start state
  waiting,        // not yet, and the bound is not reached
  bound_reached,  // not settled, and the bound is reached: the next suite starts anyway
  not_judged,     // no GPU has a criterion readable both at the start and now
};
const char* to_string(SettleState state);

struct SettleVerdict {
  SettleState state = SettleState::not_judged;
  // Per GPU still away from its start state: "gpu0 61 °C, 20 °C above the start (41 °C)".
  std::vector<std::string> unsettled;
};
// The decision rule. `start` and `now` hold one reading per GPU (NVML index order; GPUs past the
// shorter list are not judged); `since_heavy_s`: seconds since the power-heavy suite ended.
SettleVerdict judge_settle(const std::vector<SettleReading>& start,
                           const std::vector<SettleReading>& now, double since_heavy_s,
                           const SettlePolicy& policy);

// What one settle did, recorded with the suite execution it came before.
struct SettleRecord {
  std::string after;         // the power-heavy suite ("gemm")
  std::string before;        // the device suite that starts after it ("memory")
  int before_execution = 0;  // 0-based, among its suite's executions
  SettleState state = SettleState::not_judged;
  double bound_s = k_settle_bound_s;  // the policy's bound it ran under
  double waited_s = 0;                // idle here, before the next suite started
  double since_heavy_s = 0;           // from the end of `after` to the end of the wait
  bool interrupted = false;           // a signal ended the wait
  std::vector<std::string> unsettled;
  // "settle after gemm: settled after waiting 3.4 s", "settle after gemm: not settled when its
  // 10 s bound was reached (waited 8.2 s): gpu0 61 °C, 20 °C above the start (41 °C)", ...
  std::string text() const;
};

// The loop's view of time: monotonic seconds, an idle wait, and whether to give up (a signal).
struct SettleClock {
  std::function<double()> now_s;
  std::function<void(double)> sleep_s;
  std::function<bool()> stop;
};
// The real clock (CLOCK_MONOTONIC, a sleeping thread), stopping on the run's interrupt signal.
SettleClock real_settle_clock();

// Reads every GPU of `source` until judge_settle says settled, bound reached or not judged, idle
// `policy.poll_s` between reads. `heavy_ended_s`: when the power-heavy suite `after` ended, on
// `clock`'s scale.
SettleRecord settle_gpus(TelemetrySource& source, const std::vector<SettleReading>& start,
                         const std::string& after, double heavy_ended_s, const SettlePolicy& policy,
                         const SettleClock& clock);

// Whether a run of `ordered` suites (run_order.hpp's order), `executions` rounds, settles at all:
// it has a power-heavy suite and a device suite runs after it, in its round or the next.
bool run_may_settle(const std::vector<SuiteExecutable>& ordered, int executions);

// Where a run will settle and what the plan charges for it.
struct PlannedExecution {
  std::string suite;
  SuiteKind kind = SuiteKind::device;
  double seconds = 0;  // its planned time
};
struct PlannedSettle {
  int settles = 0;     // device-suite executions that follow a power-heavy one
  double seconds = 0;  // the bound less the host-suite time between, summed
};
// `sequence`: every execution in the order the run makes them (rounds, run_order.hpp's order).
PlannedSettle planned_settle(const std::vector<PlannedExecution>& sequence, double bound_s);

}  // namespace gpubench::harness
