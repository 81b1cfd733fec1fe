// Wall-clock timestamps for records, monotonic time for durations.
#pragma once

#include <cstdint>
#include <string>

namespace gpubench {

// UTC now as ISO 8601 with milliseconds: "2026-12-02T16:22:01.123Z".
std::string now_iso8601_utc();
// Seconds on the monotonic clock (for durations only).
double monotonic_seconds();
// CPU seconds consumed so far by the whole process (all threads, user + system:
// CLOCK_PROCESS_CPUTIME_ID), for CPU-cost-per-wall-second figures (differences only).
double process_cpu_seconds();
// CPU seconds consumed so far by the calling thread (CLOCK_THREAD_CPUTIME_ID; differences only).
double thread_cpu_seconds();

}  // namespace gpubench
