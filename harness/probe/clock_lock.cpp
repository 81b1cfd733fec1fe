#include "harness/probe/clock_lock.hpp"

#include "results/model.hpp"
#include "util/sample_state.hpp"

namespace gpubench::harness {

ClockLockState sm_clock_lock(const ClockLockFacts& f) {
  ClockLockState s;
  const bool app_known = f.app_sm_clock_mhz && f.default_app_sm_clock_mhz;
  if (app_known && *f.app_sm_clock_mhz != *f.default_app_sm_clock_mhz) {
    s.lock = ClockLock::locked;
    s.locked_mhz = *f.app_sm_clock_mhz;
    s.text = "SM clock: locked at " + std::to_string(*f.app_sm_clock_mhz) +
             " MHz (application clocks, nvidia-smi -ac; default " +
             std::to_string(*f.default_app_sm_clock_mhz) + " MHz)";
    return s;
  }
  if (f.reasons && (*f.reasons & sample_state::reasons::applications_clocks_setting) != 0) {
    s.lock = ClockLock::locked;
    s.text =
        "SM clock: locked (clocks-event reason 0x2: a clock setting holds it" +
        (f.sm_clock_mhz ? "; now " + std::to_string(*f.sm_clock_mhz) + " MHz)" : std::string(")"));
    return s;
  }
  const bool p0_known = f.p0_max_sm_clock_mhz && f.max_sm_clock_mhz;
  if (p0_known &&
      *f.p0_max_sm_clock_mhz < *f.max_sm_clock_mhz * (1.0 - sample_state::k_clock_tolerance)) {
    s.lock = ClockLock::locked;
    s.locked_mhz = *f.p0_max_sm_clock_mhz;
    s.text = "SM clock: capped at " + std::to_string(*f.p0_max_sm_clock_mhz) +
             " MHz (P0 allows at most that of the " + std::to_string(*f.max_sm_clock_mhz) +
             " MHz boost limit: a clock lock such as nvidia-smi -lgc, or a firmware limit)";
    return s;
  }
  if (!app_known && !p0_known) {
    s.text =
        "SM clock: unknown: NVML does not report the application clocks (deprecated in CUDA 13) "
        "nor P0's clock range, and a lock set with nvidia-smi -lgc has no NVML getter";
    return s;
  }
  s.lock = ClockLock::not_locked;
  if (!app_known) {
    s.text = "SM clock: no lock NVML shows (P0 allows up to the " +
             std::to_string(*f.max_sm_clock_mhz) +
             " MHz boost limit; a nvidia-smi -lgc lock has no NVML getter)";
    return s;
  }
  s.text = "SM clock: not locked (boost up to " +
           (f.max_sm_clock_mhz ? std::to_string(*f.max_sm_clock_mhz) + " MHz)"
                               : std::string("an unknown maximum)"));
  return s;
}

std::string clocks_locked_value(const std::vector<ClockLockState>& gpus) {
  for (const ClockLockState& g : gpus) {
    if (g.lock == ClockLock::locked) return "true";
  }
  return results::k_unknown;
}

}  // namespace gpubench::harness
