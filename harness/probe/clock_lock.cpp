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
  if (!app_known) {
    s.text =
        "SM clock: unknown: NVML does not report the application clocks (deprecated in CUDA 13), "
        "and a lock set with nvidia-smi -lgc has no NVML getter";
    return s;
  }
  s.lock = ClockLock::not_locked;
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
