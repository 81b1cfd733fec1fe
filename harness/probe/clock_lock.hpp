// Whether a GPU's SM clock is locked, from what the NVML reference documents (issue 36 item 2).
//
// What NVML can and cannot say (nvml.h of CUDA 13, NVML API 13):
//  - Application clocks (`nvidia-smi -ac`, nvmlDeviceSetApplicationsClocks): read back through
//    nvmlDeviceGetClock(NVML_CLOCK_ID_APP_CLOCK_TARGET / _DEFAULT), falling back to the older
//    nvmlDeviceGetApplicationsClock / nvmlDeviceGetDefaultApplicationsClock. Setting them "will
//    automatically disable automatic boosting of clocks" on Pascal and newer, so a target away
//    from its default is a lock at that target. All four are deprecated in CUDA 13 and go in
//    CUDA 14; a driver that no longer answers makes the state unknown.
//  - Locked GPU clocks (`nvidia-smi -lgc`, nvmlDeviceSetGpuLockedClocks): NVML has a setter and a
//    reset (nvmlDeviceResetGpuLockedClocks) and no getter. What NVML does report, not deprecated,
//    is the clock range of P0 (nvmlDeviceGetMinMaxClockOfPState, "min and max clocks of some clock
//    domain for a given PState"): a P0 maximum below the boost limit (nvmlDeviceGetMaxClockInfo)
//    means the GPU cannot reach its boost clock at full performance, whatever set it (a -lgc
//    lock, a firmware limit), and is shown as a cap. nvml.h does not say that -lgc narrows P0's
//    range, so a full range does not rule a lock out: "not locked" means no lock NVML shows.
//  - Clocks-event reason 0x2 (nvmlClocksEventReasonApplicationsClocksSetting): older references
//    say "GPU clocks are limited by current setting of applications clocks"; CUDA 13's marks it
//    "no longer used". Set, it shows a lock; clear, it proves nothing.
// Pure: the facts come from NVML (environment.cpp, the doctor's probe); tests feed values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpubench::harness {

struct ClockLockFacts {
  std::optional<int> max_sm_clock_mhz;          // nvmlDeviceGetMaxClockInfo(SM): the boost limit
  std::optional<int> app_sm_clock_mhz;          // application clock target
  std::optional<int> default_app_sm_clock_mhz;  // its default
  std::optional<uint64_t> reasons;              // clocks-event reasons now
  std::optional<int> sm_clock_mhz;              // SM clock now
  std::optional<int> p0_max_sm_clock_mhz;       // nvmlDeviceGetMinMaxClockOfPState(SM, P0) max
};

enum class ClockLock { not_locked, locked, unknown };

struct ClockLockState {
  ClockLock lock = ClockLock::unknown;
  std::optional<int> locked_mhz;  // the application clock or P0 cap it is held at, when known
  // For people: "SM clock: not locked (boost up to 1980 MHz)", "SM clock: locked at 1410 MHz
  // (application clocks, nvidia-smi -ac; default 1755 MHz)", "SM clock: unknown: <reason>".
  std::string text;
};

ClockLockState sm_clock_lock(const ClockLockFacts& facts);

// The run environment's Configuration::clocks_locked over every GPU: "true" when NVML shows a
// lock on any GPU, else "unknown" (never "false": a `nvidia-smi -lgc` lock has no NVML getter,
// so no reading rules one out). "unknown" with no GPU.
std::string clocks_locked_value(const std::vector<ClockLockState>& gpus);

}  // namespace gpubench::harness
