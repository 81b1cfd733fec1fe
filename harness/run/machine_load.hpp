// How busy the machine was with other work while a suite ran (issue 38): the 1-minute load
// average at its start and end, and the CPU time other processes used meanwhile, from /proc/stat's
// busy time minus the CPU time of gpubench and of the suite (their rusage). A host-memory result
// halved by a neighbour's job is then explained by the record, not guessed at.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "results/model.hpp"

namespace gpubench::harness {

// What is read at one instant. Unknown parts stay unset (no /proc: not Linux, a sandbox).
struct LoadSnapshot {
  std::optional<double> loadavg_1m;    // /proc/loadavg, first field
  std::optional<uint64_t> busy_ticks;  // /proc/stat "cpu" line, all but idle and iowait (USER_HZ)
  double own_cpu_s = 0;                // this process and its waited-for children: user + system
  double monotonic_s = 0;
};

// The first field of /proc/loadavg ("0.52 0.58 0.59 1/467 12345" -> 0.52); nullopt otherwise.
std::optional<double> parse_loadavg_1m(std::string_view text);
// The busy ticks of /proc/stat's aggregate line "cpu  user nice system idle iowait irq softirq
// steal ...": user + nice + system + irq + softirq + steal (guest time is inside user); nullopt
// when the line is missing or short.
std::optional<uint64_t> parse_stat_busy_ticks(std::string_view text);

LoadSnapshot take_load_snapshot();
// The load between two snapshots of this process (before and after the suite ran); nullopt when
// /proc could not be read at either end. Other processes' CPU time is never below 0 (the ticks'
// resolution, 10 ms, can put gpubench's own rusage above the busy time of a short suite).
std::optional<results::MachineLoad> load_between(const LoadSnapshot& before,
                                                 const LoadSnapshot& after);

}  // namespace gpubench::harness
