#include "util/cpu_budget.hpp"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <string>
#include <thread>

namespace gpubench {
namespace {

std::optional<long long> parse_count(std::string_view text) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size() || v <= 0) return std::nullopt;
  return v;
}

// The cgroup v2 path of this process ("0::/path" in /proc/self/cgroup); empty when not on v2.
std::string own_cgroup() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  }
  return "";
}

// The tightest quota on the way from this process's cgroup up to the root (a parent's quota
// limits its children too). Inside a container the own path is often not visible under
// /sys/fs/cgroup; its root is then the container's cgroup, so the root file is read as well.
std::optional<int> cgroup_quota_cpus() {
  std::optional<int> tightest;
  auto consider = [&](const std::string& dir) {
    std::ifstream in(dir + "/cpu.max");
    std::string line;
    if (!std::getline(in, line)) return;
    if (const auto cpus = cpus_of_cpu_max(line)) {
      tightest = tightest ? std::min(*tightest, *cpus) : *cpus;
    }
  };
  std::string path = own_cgroup();
  const std::string root = "/sys/fs/cgroup";
  while (!path.empty() && path != "/") {
    consider(root + path);
    path.erase(path.find_last_of('/'));
  }
  consider(root);
  return tightest;
}

}  // namespace

std::optional<int> cpus_of_cpu_max(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.remove_suffix(1);
  const std::size_t space = line.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view quota_text = line.substr(0, space);
  if (quota_text == "max") return std::nullopt;
  const auto quota = parse_count(quota_text);
  const auto period = parse_count(line.substr(space + 1));
  if (!quota || !period) return std::nullopt;
  const long long cpus = (*quota + *period - 1) / *period;
  return static_cast<int>(std::clamp<long long>(cpus, 1, 1 << 20));
}

int usable_cpu_count() {
  int cpus = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) cpus = CPU_COUNT(&set);
  if (cpus <= 0) cpus = static_cast<int>(std::thread::hardware_concurrency());
  if (const auto quota = cgroup_quota_cpus()) cpus = std::min(cpus, *quota);
  return std::max(cpus, 1);
}

}  // namespace gpubench
