// Wall-clock timestamps for records, monotonic time for durations.
#pragma once

#include <cstdint>
#include <string>

namespace gpubench {

// UTC now as ISO 8601 with milliseconds: "2026-12-02T16:22:01.123Z".
std::string now_iso8601_utc();
// Seconds on the monotonic clock (for durations only).
double monotonic_seconds();

}  // namespace gpubench
