// String forms of the model's enums. These strings are stored in the database (CHECK constraints in
// results/schema/schema.cpp) and printed by the CLI: changing one is a schema change.
#include "results/model.hpp"

#include <nlohmann/json.hpp>

namespace gpubench::results {

const char* to_string(RunStatus status) {
  switch (status) {
    case RunStatus::running:
      return "running";
    case RunStatus::complete:
      return "complete";
    case RunStatus::interrupted:
      return "interrupted";
    case RunStatus::failed:
      return "failed";
    case RunStatus::abandoned:
      return "abandoned";
    case RunStatus::incomplete:
      return "incomplete";
  }
  return "failed";
}

std::optional<RunStatus> run_status_from_string(const std::string& text) {
  for (RunStatus s : {RunStatus::running, RunStatus::complete, RunStatus::interrupted,
                      RunStatus::failed, RunStatus::abandoned, RunStatus::incomplete}) {
    if (text == to_string(s)) return s;
  }
  return std::nullopt;
}

const char* to_string(SuiteStatus status) {
  switch (status) {
    case SuiteStatus::ok:
      return "ok";
    case SuiteStatus::failed:
      return "failed";
    case SuiteStatus::timeout:
      return "timeout";
    case SuiteStatus::crashed:
      return "crashed";
    case SuiteStatus::interrupted:
      return "interrupted";
    case SuiteStatus::skipped:
      return "skipped";
  }
  return "failed";
}

std::optional<SuiteStatus> suite_status_from_string(const std::string& text) {
  for (SuiteStatus s : {SuiteStatus::ok, SuiteStatus::failed, SuiteStatus::timeout,
                        SuiteStatus::crashed, SuiteStatus::interrupted, SuiteStatus::skipped}) {
    if (text == to_string(s)) return s;
  }
  return std::nullopt;
}

const char* to_string(Direction direction) {
  switch (direction) {
    case Direction::higher:
      return "higher";
    case Direction::lower:
      return "lower";
    case Direction::unknown:
      return "unknown";
  }
  return "unknown";
}

std::optional<Direction> direction_from_string(const std::string& text) {
  for (Direction d : {Direction::higher, Direction::lower, Direction::unknown}) {
    if (text == to_string(d)) return d;
  }
  return std::nullopt;
}

const char* to_string(BenchmarkStatus status) {
  switch (status) {
    case BenchmarkStatus::ok:
      return "ok";
    case BenchmarkStatus::skipped:
      return "skipped";
    case BenchmarkStatus::error:
      return "error";
  }
  return "error";
}

namespace {
template <typename T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}
}  // namespace

nlohmann::json to_json(const GpuInfo& g) {
  return {{"nvml_index", g.nvml_index},
          {"uuid", g.uuid},
          {"name", g.name},
          {"pci_bus_id", g.pci_bus_id},
          {"memory_bytes", or_null(g.memory_bytes)},
          {"sm_count", or_null(g.sm_count)},
          {"compute_capability", g.compute_capability},
          {"max_sm_clock_mhz", or_null(g.max_sm_clock_mhz)},
          {"max_mem_clock_mhz", or_null(g.max_mem_clock_mhz)},
          {"default_sm_clock_mhz", or_null(g.default_sm_clock_mhz)},
          {"app_sm_clock_mhz", or_null(g.app_sm_clock_mhz)},
          {"power_limit_w", or_null(g.power_limit_w)},
          {"ecc", g.ecc},
          {"pcie_gen", or_null(g.pcie_gen)},
          {"pcie_width", or_null(g.pcie_width)},
          {"numa_node", or_null(g.numa_node)}};
}

}  // namespace gpubench::results
