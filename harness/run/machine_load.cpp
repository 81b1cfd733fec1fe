#include "harness/run/machine_load.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "util/clock.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

std::optional<double> parse_loadavg_1m(std::string_view text) {
  const std::string t(trim(text));
  const std::optional<double> v = parse_double(t.substr(0, t.find(' ')));
  if (!v || !(*v >= 0)) return std::nullopt;
  return v;
}

std::optional<uint64_t> parse_stat_busy_ticks(std::string_view text) {
  for (const std::string& line : split(text, '\n')) {
    if (line.rfind("cpu ", 0) != 0) continue;
    std::vector<uint64_t> v;
    for (const std::string& word : split(line.substr(4), ' ')) {
      if (word.empty()) continue;
      const std::optional<long long> n = parse_int(word);
      if (!n || *n < 0) return std::nullopt;
      v.push_back(static_cast<uint64_t>(*n));
    }
    if (v.size() < 8) return std::nullopt;
    // user nice system idle iowait irq softirq steal: idle (3) and iowait (4) are not busy.
    return v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
  }
  return std::nullopt;
}

namespace {

std::optional<std::string> proc_text(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

double cpu_seconds(int who) {
  struct rusage u {};
  if (::getrusage(who, &u) != 0) return 0;
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

}  // namespace

LoadSnapshot take_load_snapshot() {
  LoadSnapshot s;
  if (const auto text = proc_text("/proc/loadavg")) s.loadavg_1m = parse_loadavg_1m(*text);
  if (const auto text = proc_text("/proc/stat")) s.busy_ticks = parse_stat_busy_ticks(*text);
  // The suite is a waited-for child once it ended; gpubench's own threads (telemetry) count too.
  s.own_cpu_s = cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN);
  s.monotonic_s = monotonic_seconds();
  return s;
}

std::optional<results::MachineLoad> load_between(const LoadSnapshot& before,
                                                 const LoadSnapshot& after) {
  if (!before.loadavg_1m || !after.loadavg_1m || !before.busy_ticks || !after.busy_ticks ||
      *after.busy_ticks < *before.busy_ticks) {
    return std::nullopt;
  }
  const long ticks_per_s = ::sysconf(_SC_CLK_TCK);
  if (ticks_per_s <= 0) return std::nullopt;
  results::MachineLoad m;
  m.loadavg_1m_start = *before.loadavg_1m;
  m.loadavg_1m_end = *after.loadavg_1m;
  m.wall_s = std::max(0.0, after.monotonic_s - before.monotonic_s);
  const double busy_s = static_cast<double>(*after.busy_ticks - *before.busy_ticks) /
                        static_cast<double>(ticks_per_s);
  m.other_cpu_s = std::max(0.0, busy_s - (after.own_cpu_s - before.own_cpu_s));
  return m;
}

}  // namespace gpubench::harness
