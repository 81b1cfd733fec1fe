// The suite's configuration: profile sizes and the environment overrides, all checked up front.
#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "suites/dataloader/dataloader_cases.hpp"
#include "suites/dataloader/pipeline.hpp"
#include "util/cpu_budget.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

using suite::Profile;

std::uint64_t env_u64(const char* name, std::uint64_t fallback, std::uint64_t max) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(v, &end, 10);
  if (errno != 0 || *end != '\0' || x == 0 || x > max || v[0] == '-') {
    throw bad_input(std::string(name) + "='" + v + "' is not valid",
                    "expected a whole number between 1 and " + std::to_string(max));
  }
  return x;
}

}  // namespace

std::vector<int> default_worker_sweep(int usable_cpus) {
  const int cpus = std::max(usable_cpus, 1);
  std::vector<int> out;
  for (int w = 1; w < cpus; w *= 2) out.push_back(w);
  out.push_back(cpus);
  return out;
}

std::vector<int> parse_worker_list(const std::string& text) {
  std::vector<int> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    char* end = nullptr;
    errno = 0;
    const long v = item.empty() ? 0 : std::strtol(item.c_str(), &end, 10);
    if (item.empty() || errno != 0 || *end != '\0') {
      throw bad_input("worker list '" + text + "' is malformed", "'" + item + "' is not a number",
                      "use a comma-separated list such as 1,2,4");
    }
    if (v < 1 || v > k_max_workers) {
      throw bad_input("worker count " + item + " is out of range",
                      "it must be between 1 and " + std::to_string(k_max_workers),
                      "use a worker count such as 1, 2, 4 or 2 x cores");
    }
    out.push_back(static_cast<int>(v));
    pos = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

SuiteConfig load_suite_config(Profile profile) {
  SuiteConfig c;
  c.profile = profile;
  c.data_dir = resolve_data_dir();
  if (const char* list = std::getenv("GPUBENCH_DATALOADER_WORKERS"); list && *list) {
    c.workers = parse_worker_list(list);
  } else {
    c.workers = default_worker_sweep(usable_cpu_count());
  }
  // Sized so a standard run (the default of `gpubench run`) stays within minutes on a small
  // machine: every case reads the whole dataset `iterations` times per repetition.
  const std::uint64_t default_mib = profile == Profile::quick      ? 32
                                    : profile == Profile::standard ? 128
                                                                   : 1024;
  c.dataset_bytes = env_u64("GPUBENCH_DATALOADER_DATASET_MIB", default_mib, std::uint64_t{1} << 30)
                    << 20;
  c.record_sizes = {k_image_record_bytes, k_small_record_bytes};
  if (profile == Profile::full) c.record_sizes.push_back(1u << 20);
  c.iterations = profile == Profile::full ? 8 : 4;
  return c;
}

}  // namespace gpubench::dataloader
