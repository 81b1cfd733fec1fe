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
//    reset (nvmlDeviceResetGpuLockedClocks) and no getter. nvmlDeviceGetMinMaxClockOfPState and
//    nvmlDeviceGetPerformanceModes are documented as the P-state's range, not as the lock, so they
//    are not read as one. Such a lock is invisible here; "not locked" means no lock NVML shows.
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
};

enum class ClockLock { not_locked, locked, unknown };

struct ClockLockState {
  ClockLock lock = ClockLock::unknown;
  std::optional<int> locked_mhz;  // the application clock it is locked at, when NVML says
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
