// How many CPUs this process may keep busy at once: the smaller of its affinity mask
// (sched_getaffinity: taskset, a cgroup cpuset) and its cgroup v2 CPU quota (cpu.max, e.g.
// `docker run --cpus 2` on a 16-core host, which leaves the mask at 16). Host benchmarks size
// their thread counts with it: more threads than this measure the scheduler, not the work.
#pragma once

#include <optional>
#include <string_view>

namespace gpubench {

// CPUs in the affinity mask, capped by the cgroup quota when one is set. At least 1; all online
// CPUs (std::thread::hardware_concurrency) when the mask cannot be read.
int usable_cpu_count();

// The CPUs a cgroup v2 `cpu.max` line allows: "200000 100000" -> 2, "150000 100000" -> 2 (a
// partial CPU still runs a thread), "max 100000" -> nullopt (no quota). nullopt for anything
// malformed: an unreadable quota is no quota, not an error.
std::optional<int> cpus_of_cpu_max(std::string_view line);

}  // namespace gpubench
